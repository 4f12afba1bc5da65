// libxtables plugin lookups for readers and printers (xt_lookup.h).
#include "fastrestore/xt_lookup.h"

#include <xtables.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace fastrestore {
namespace {

// The registered plugin a clone copies (same name, revision and family),
// with the clone freed; the plugin itself when it is no clone.
template <class P> P *registered(P *found, P *list) {
  if (found == nullptr || found->next != found)
    return found;
  for (P *p = list; p != nullptr; p = p->next)
    if (p != found && p->name == found->name &&
        p->revision == found->revision && p->family == found->family) {
      free(found);
      return p;
    }
  return found;
}

// A handful of plugins serve a whole save: a short list beats a map.
template <class P> struct Cached {
  std::string name;
  int revision;
  P *plugin;
};

template <class P, class Find, class FindRev>
P *lookup(std::vector<Cached<P>> &cache, const std::string &name, int revision,
          Find find, FindRev find_rev) {
  for (const auto &c : cache)
    if (c.revision == revision && c.name == name)
      return c.plugin;
  P *best = find(name.c_str());
  P *p = best;
  if (best != nullptr && revision >= 0) {
    P *exact = find_rev(name.c_str(), best, revision);
    if (exact != nullptr)
      p = exact;
  }
  cache.push_back({name, revision, p});
  return p;
}

} // namespace

xtables_match *peek_match(const char *name) {
  return registered(xtables_find_match(name, XTF_TRY_LOAD, nullptr),
                    xtables_matches);
}

xtables_target *peek_target(const char *name) {
  return registered(xtables_find_target(name, XTF_TRY_LOAD), xtables_targets);
}

xtables_match *match_plugin(const std::string &name, int revision) {
  static std::vector<Cached<xtables_match>> cache;
  return lookup(
      cache, name, revision, [](const char *n) { return peek_match(n); },
      [](const char *n, xtables_match *m, int r) {
        return xtables_find_match_revision(n, XTF_TRY_LOAD, m, r);
      });
}

xtables_target *target_plugin(const std::string &name, int revision) {
  static std::vector<Cached<xtables_target>> cache;
  return lookup(
      cache, name, revision, [](const char *n) { return peek_target(n); },
      [](const char *n, xtables_target *t, int r) {
        return xtables_find_target_revision(n, XTF_TRY_LOAD, t, r);
      });
}

size_t owned_payload(bool target, const char *name, int revision, size_t len) {
  size_t size = 0, owned = 0;
  int rev = revision;
  if (target) {
    if (const xtables_target *t = peek_target(name)) {
      size = t->size;
      owned = t->userspacesize;
      rev = t->revision;
    }
  } else if (const xtables_match *m = peek_match(name)) {
    size = m->size;
    owned = m->userspacesize;
    rev = m->revision;
  }
  if (size == 0 || owned == 0 || owned > len ||
      (revision >= 0 && rev != revision))
    return len;
  return owned;
}

} // namespace fastrestore
