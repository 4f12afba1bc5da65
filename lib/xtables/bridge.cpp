// ebtables' side of libxtables (xtables_bridge.h): its option table, its
// globals, and the extensions ebtables-nft 1.8.9 loads up front.
// glibc's network headers (and xtables.h) before the kernel's.
#include <getopt.h>
#include <netinet/ether.h>
#include <xtables.h>

#include <linux/netfilter_bridge.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <cstdarg>
#include <cstring>

#include "fastrestore/xtables_bridge.h"
#include "globals.h"

namespace fastrestore {
namespace eb {

namespace {

// ebtables prints a plugin's message as it comes, leading newlines too.
__attribute__((noreturn)) void eb_exit_err(enum xtables_exittype status,
                                           const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  throw_plugin_failure(status, msg, ap, false);
}

} // namespace

// ebtables' own option table (the names getopt_long resolves).
struct option kEbOptions[] = {
    {"append", 1, nullptr, 'A'},
    {"insert", 1, nullptr, 'I'},
    {"delete", 1, nullptr, 'D'},
    {"list", 2, nullptr, 'L'},
    {"Lc", 0, nullptr, 4},
    {"Ln", 0, nullptr, 5},
    {"Lx", 0, nullptr, 6},
    {"Lmac2", 0, nullptr, 12},
    {"zero", 2, nullptr, 'Z'},
    {"flush", 2, nullptr, 'F'},
    {"policy", 1, nullptr, 'P'},
    {"in-interface", 1, nullptr, 'i'},
    {"in-if", 1, nullptr, 'i'},
    {"logical-in", 1, nullptr, 2},
    {"logical-out", 1, nullptr, 3},
    {"out-interface", 1, nullptr, 'o'},
    {"out-if", 1, nullptr, 'o'},
    {"version", 0, nullptr, 'V'},
    {"verbose", 0, nullptr, 'v'},
    {"help", 0, nullptr, 'h'},
    {"jump", 1, nullptr, 'j'},
    {"set-counters", 1, nullptr, 'c'},
    {"change-counters", 1, nullptr, 'C'},
    {"proto", 1, nullptr, 'p'},
    {"protocol", 1, nullptr, 'p'},
    {"db", 1, nullptr, 'b'},
    {"source", 1, nullptr, 's'},
    {"src", 1, nullptr, 's'},
    {"destination", 1, nullptr, 'd'},
    {"dst", 1, nullptr, 'd'},
    {"table", 1, nullptr, 't'},
    {"modprobe", 1, nullptr, 'M'},
    {"new-chain", 1, nullptr, 'N'},
    {"rename-chain", 1, nullptr, 'E'},
    {"delete-chain", 2, nullptr, 'X'},
    {"init-table", 0, nullptr, 11},
    {"concurrent", 0, nullptr, 13},
    {"check", 1, nullptr, 14},
    {nullptr, 0, nullptr, 0},
};

const char kOptString[] = "-:A:C:D:E:F::I:L::M:N:P:VX::Z::c:d:i:j:o:p:s:t:hv";

namespace {

// ebtables extensions have no revisions to ask the kernel about (as in
// ebtables-nft, the latest is taken).
int eb_compat_rev(const char *, uint8_t, int) {
  return 1;
}

} // namespace

xtables_globals g_eb = {
    0,       "ebtables",  "1.8.9 (nf_tables)", kEbOptions,
    nullptr, eb_exit_err, eb_compat_rev,
};

namespace {
Loaded *g_loaded = nullptr;
} // namespace

const Loaded *loaded() {
  return g_loaded;
}

void reset_match(xtables_match *m) {
  std::memset(m->m->data, 0, m->size);
  if (m->init != nullptr)
    m->init(m->m);
  m->mflags = 0;
}

void reset_target(xtables_target *t) {
  std::memset(t->t->data, 0, t->size);
  if (t->init != nullptr)
    t->init(t->t);
  t->tflags = 0;
}

namespace {

// libxtables returns a new merged table (or the old one when there is
// nothing to add) and leaves the old one to the caller.
struct option *replaced(struct option *old, struct option *merged) {
  if (merged != old && old != kEbOptions)
    free(old);
  return merged;
}
struct option *merge(struct option *opts, xtables_match *m) {
  return m->x6_options != nullptr
             ? xtables_options_xfrm(g_eb.orig_opts, opts, m->x6_options,
                                    &m->option_offset)
             : xtables_merge_options(g_eb.orig_opts, opts, m->extra_opts,
                                     &m->option_offset);
}
} // namespace

struct option *merge(struct option *opts, xtables_target *t) {
  return t->x6_options != nullptr
             ? xtables_options_xfrm(g_eb.orig_opts, opts, t->x6_options,
                                    &t->option_offset)
             : xtables_merge_options(g_eb.orig_opts, opts, t->extra_opts,
                                     &t->option_offset);
}

namespace {

// A plugin that registers a match for every family and one for bridge
// (libxt_limit): in a process that asked for the other family's first,
// libxtables finds that one first. The bridge one, by family.
xtables_match *bridge_variant(xtables_match *m) {
  if (m == nullptr || m->family == NFPROTO_BRIDGE)
    return m;
  for (xtables_match *r = xtables_matches; r != nullptr; r = r->next)
    if (r->family == NFPROTO_BRIDGE && std::strcmp(r->name, m->name) == 0)
      return r;
  return m;
}

} // namespace

void load_all() {
  if (g_loaded != nullptr)
    return;
  auto *l = new Loaded;
  struct option *opts = kEbOptions;
  for (const char *name : {"802_3", "arp", "ip", "ip6", "mark_m", "limit",
                           "pkttype", "vlan", "stp", "among"}) {
    xtables_match *m =
        bridge_variant(xtables_find_match(name, XTF_TRY_LOAD, nullptr));
    if (m == nullptr)
      continue;
    size_t size = XT_ALIGN(sizeof(xt_entry_match)) + m->size;
    m->m = static_cast<xt_entry_match *>(xtables_calloc(1, size));
    m->m->u.match_size = static_cast<uint16_t>(size);
    std::strcpy(m->m->u.user.name, m->name);
    m->m->u.user.revision = m->revision;
    reset_match(m);
    opts = replaced(opts, merge(opts, m));
    l->matches.push_back(m);
  }
  auto load_target = [&](const char *name, std::vector<xtables_target *> &to) {
    xtables_target *t = xtables_find_target(name, XTF_TRY_LOAD);
    if (t == nullptr)
      return;
    size_t size = XT_ALIGN(sizeof(xt_entry_target)) + t->size;
    t->t = static_cast<xt_entry_target *>(xtables_calloc(1, size));
    t->t->u.target_size = static_cast<uint16_t>(size);
    std::snprintf(t->t->u.user.name, sizeof(t->t->u.user.name), "%s", name);
    t->t->u.user.revision = t->revision;
    reset_target(t);
    opts = replaced(opts, merge(opts, t));
    to.push_back(t);
  };
  for (const char *name : {"log", "nflog"})
    load_target(name, l->watchers);
  for (const char *name : {"mark", "dnat", "snat", "arpreply", "redirect"})
    load_target(name, l->targets);
  l->opts = opts;
  g_loaded = l;
}

} // namespace eb

std::string ebtables_long_option(const std::string &name) {
  std::string found;
  for (const struct option *o = eb::kEbOptions; o->name != nullptr; ++o) {
    if (name == o->name)
      return name;
    if (!name.empty() &&
        std::strncmp(o->name, name.c_str(), name.size()) == 0) {
      // Two names for one option (in-if, in-interface) are no ambiguity.
      if (!found.empty() && found != o->name) {
        const struct option *f = eb::kEbOptions;
        while (found != f->name)
          ++f;
        if (f->val != o->val)
          return "";
        continue;
      }
      found = o->name;
    }
  }
  return found;
}

} // namespace fastrestore
