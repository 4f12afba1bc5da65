// Match and target entries for libxtables plugins (plugin_entry.h).
#include "xtables/plugin_entry.h"

#include <xtables.h>

#include <cstring>
#include <string>
#include <vector>

#include "fastrestore/xt_lookup.h"

namespace fastrestore {
namespace {

void fill_header(PluginEntry &e, const std::string &name, uint8_t revision,
                 bool target) {
  if (target) {
    auto *t = reinterpret_cast<xt_entry_target *>(e.entry.data());
    t->u.target_size = static_cast<uint16_t>(e.entry.size());
    std::strncpy(t->u.user.name, name.c_str(), sizeof(t->u.user.name) - 1);
    t->u.user.revision = revision;
  } else {
    auto *m = reinterpret_cast<xt_entry_match *>(e.entry.data());
    m->u.match_size = static_cast<uint16_t>(e.entry.size());
    std::strncpy(m->u.user.name, name.c_str(), sizeof(m->u.user.name) - 1);
    m->u.user.revision = revision;
  }
}

} // namespace

size_t PluginEntry::header_size() {
  static_assert(XT_ALIGN(sizeof(xt_entry_match)) ==
                XT_ALIGN(sizeof(xt_entry_target)));
  return XT_ALIGN(sizeof(xt_entry_match));
}

PluginEntry new_match(const std::string &name) {
  PluginEntry e;
  xtables_match *m = match_plugin(name, -1);
  if (m == nullptr)
    return e;
  e.plugin = m;
  e.entry.assign(PluginEntry::header_size() + m->size, 0);
  fill_header(e, m->name, m->revision, false);
  if (m->init != nullptr)
    m->init(reinterpret_cast<xt_entry_match *>(e.entry.data()));
  return e;
}

PluginEntry new_target(const std::string &name) {
  PluginEntry e;
  xtables_target *t = target_plugin(name, -1);
  if (t == nullptr)
    return e;
  e.plugin = t;
  e.entry.assign(PluginEntry::header_size() + t->size, 0);
  fill_header(e, name, t->revision, true);
  return e;
}

PluginEntry compat_entry(void *plugin, const std::string &name,
                         uint8_t revision, const void *data, size_t len,
                         bool target) {
  PluginEntry e;
  e.plugin = plugin;
  e.entry.assign(PluginEntry::header_size() + len, 0);
  if (len > 0)
    std::memcpy(e.data(), data, len);
  fill_header(e, name, revision, target);
  return e;
}

} // namespace fastrestore
