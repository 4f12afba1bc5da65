// The text save of legacy x_tables, as iptables-legacy-save and
// ip6tables-legacy-save print it: the tables the kernel lists, each read
// through libiptc, rules printed through the plugins' save functions.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

extern "C" {
#include <libiptc/libip6tc.h>
}
#include <libiptc/libiptc.h>
#include <xtables.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "fastrestore/iptc.h"
#include "fastrestore/save_print.h"
#include "fastrestore/version.h"
#include "fastrestore/xtables_setup.h"
#include "save.h"

namespace fastrestore::save {

using legacy::Iptc;
using legacy::iptc_of;
namespace {

[[noreturn]] void die(const std::string &msg) {
  fflush(stdout);
  fprintf(stderr, "%s\n", msg.c_str());
  exit(1);
}

// iptables' print_match_save.
void print_match(const xt_entry_match *m, const void *ip) {
  const char *name = m->u.user.name;
  xtables_match *match = xtables_find_match(name, XTF_TRY_LOAD, nullptr);
  if (match == nullptr) {
    if (m->u.match_size != 0)
      die(std::string("Can't find library for match `") + name + "'");
    return;
  }
  xtables_match *mt = xtables_find_match_revision(name, XTF_TRY_LOAD, match,
                                                  m->u.user.revision);
  xtables_match *mt2 = mt != nullptr ? mt : match;
  printf(" -m %s", mt2->alias != nullptr ? mt2->alias(m) : name);
  if (mt != nullptr && mt->save != nullptr)
    mt->save(ip, m);
  else if (match->save != nullptr)
    printf(" [unsupported revision]");
}

// iptables' print_rule4 / print_rule6 for iptables-save.
template <class Entry>
void print_rule(const Iptc &tc, const Entry *e, const void *ip, SavedRule &base,
                Family family, xtc_handle *h, const char *chain,
                bool counters) {
  if (counters)
    printf("[%llu:%llu] ", static_cast<unsigned long long>(e->counters.pcnt),
           static_cast<unsigned long long>(e->counters.bcnt));
  printf("-A %s", chain);
  print_ip_base(base, family);
  for (unsigned off = sizeof(Entry); off < e->target_offset;) {
    auto *m = reinterpret_cast<const xt_entry_match *>(
        reinterpret_cast<const char *>(e) + off);
    print_match(m, ip);
    off += m->u.match_size;
  }
  const char *target_name = tc.target(e, h);
  auto *t = reinterpret_cast<const xt_entry_target *>(
      reinterpret_cast<const char *>(e) + e->target_offset);
  if (t->u.user.name[0] != '\0') {
    const char *name = t->u.user.name;
    xtables_target *target = xtables_find_target(name, XTF_TRY_LOAD);
    if (target == nullptr)
      die(std::string("Can't find library for target `") + name + "'");
    xtables_target *tg = xtables_find_target_revision(
        name, XTF_TRY_LOAD, target, t->u.user.revision);
    xtables_target *tg2 = tg != nullptr ? tg : target;
    printf(" -j %s", tg2->alias != nullptr ? tg2->alias(t) : target_name);
    if (tg != nullptr && tg->save != nullptr)
      tg->save(ip, t);
    else if (target->save != nullptr)
      printf(" [unsupported revision]");
    else if (t->u.target_size != sizeof(xt_entry_target))
      die(std::string("Target `") + name + "' is missing save function");
  } else if (target_name != nullptr && *target_name != '\0') {
    printf(" -%c %s", base.go ? 'g' : 'j', target_name);
  }
  putchar('\n');
}

SavedRule base_of(const ipt_entry *e) {
  SavedRule r;
  std::memcpy(r.src.data(), &e->ip.src, 4);
  std::memcpy(r.smsk.data(), &e->ip.smsk, 4);
  std::memcpy(r.dst.data(), &e->ip.dst, 4);
  std::memcpy(r.dmsk.data(), &e->ip.dmsk, 4);
  std::memcpy(r.iniface.data(), e->ip.iniface, IFNAMSIZ);
  std::memcpy(r.outiface.data(), e->ip.outiface, IFNAMSIZ);
  std::memcpy(r.inmask.data(), e->ip.iniface_mask, IFNAMSIZ);
  std::memcpy(r.outmask.data(), e->ip.outiface_mask, IFNAMSIZ);
  r.proto = static_cast<uint8_t>(e->ip.proto);
  r.invflags = e->ip.invflags;
  r.frag = e->ip.flags & IPT_F_FRAG;
  r.go = e->ip.flags & IPT_F_GOTO;
  return r;
}

SavedRule base_of(const ip6t_entry *e) {
  SavedRule r;
  std::memcpy(r.src.data(), &e->ipv6.src, 16);
  std::memcpy(r.smsk.data(), &e->ipv6.smsk, 16);
  std::memcpy(r.dst.data(), &e->ipv6.dst, 16);
  std::memcpy(r.dmsk.data(), &e->ipv6.dmsk, 16);
  std::memcpy(r.iniface.data(), e->ipv6.iniface, IFNAMSIZ);
  std::memcpy(r.outiface.data(), e->ipv6.outiface, IFNAMSIZ);
  std::memcpy(r.inmask.data(), e->ipv6.iniface_mask, IFNAMSIZ);
  std::memcpy(r.outmask.data(), e->ipv6.outiface_mask, IFNAMSIZ);
  r.proto = static_cast<uint8_t>(e->ipv6.proto);
  r.invflags = e->ipv6.invflags;
  r.go = e->ipv6.flags & IP6T_F_GOTO;
  return r;
}

void dump_table(const Iptc &tc, Family family, const std::string &table,
                bool counters) {
  xtc_handle *h = tc.init(table.c_str());
  if (h == nullptr)
    die(std::string("fastrestore save: Cannot initialize: ") +
        tc.strerror(errno));
  time_t now = time(nullptr);
  printf("# Generated by fastrestore v%s on %s", kVersion, ctime(&now));
  printf("*%s\n", table.c_str());
  for (const char *c = tc.first_chain(h); c != nullptr; c = tc.next_chain(h)) {
    printf(":%s ", c);
    if (tc.builtin(c, h)) {
      xt_counters n{};
      printf("%s ", tc.get_policy(c, &n, h));
      printf("[%llu:%llu]\n", static_cast<unsigned long long>(n.pcnt),
             static_cast<unsigned long long>(n.bcnt));
    } else {
      printf("- [0:0]\n");
    }
  }
  for (const char *c = tc.first_chain(h); c != nullptr; c = tc.next_chain(h))
    for (const void *e = tc.first_rule(c, h); e != nullptr;
         e = tc.next_rule(e, h)) {
      if (family == Family::ipv4) {
        auto *e4 = static_cast<const ipt_entry *>(e);
        SavedRule b = base_of(e4);
        print_rule(tc, e4, &e4->ip, b, family, h, c, counters);
      } else {
        auto *e6 = static_cast<const ip6t_entry *>(e);
        SavedRule b = base_of(e6);
        print_rule(tc, e6, &e6->ipv6, b, family, h, c, counters);
      }
    }
  now = time(nullptr);
  printf("COMMIT\n");
  printf("# Completed on %s", ctime(&now));
  tc.free(h);
}

} // namespace

int save_legacy(const TextSaveOptions &opts) {
  if (opts.family == Family::bridge) {
    fprintf(stderr, "fastrestore save: no legacy ebtables here: bridge "
                    "tables live in nf_tables (drop --legacy)\n");
    return 2;
  }
  use_xtables(opts.family, make_netlink_revision_probe());
  const Iptc &tc = iptc_of(opts.family);
  std::vector<std::string> tables;
  if (!opts.table.empty()) {
    tables.push_back(opts.table);
  } else {
    FILE *f = fopen(opts.family == Family::ipv4 ? "/proc/net/ip_tables_names"
                                                : "/proc/net/ip6_tables_names",
                    "re");
    if (f == nullptr)
      return 1;
    char line[64];
    while (fgets(line, sizeof(line), f) != nullptr) {
      size_t n = strlen(line);
      if (n == 0 || line[n - 1] != '\n') {
        fclose(f);
        die(std::string("fastrestore save: Badly formed tablename `") + line +
            "'");
      }
      line[n - 1] = '\0';
      tables.emplace_back(line);
    }
    fclose(f);
  }
  for (const auto &t : tables)
    dump_table(tc, opts.family, t, opts.counters);
  fflush(stdout);
  return 0;
}

} // namespace fastrestore::save
