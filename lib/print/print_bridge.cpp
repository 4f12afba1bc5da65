#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter_bridge/ebtables.h>
#include <xtables.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "print/save_print.h"

namespace fastrestore::save {
namespace {

void print_mac(char option, const uint8_t *mac, const uint8_t *mask,
               bool invert) {
  printf("-%c ", option);
  if (invert)
    printf("! ");
  if (xtables_print_well_known_mac_and_mask(mac, mask))
    xtables_print_mac_and_mask(mac, mask);
  printf(" ");
}

void print_iface(const char *option, const char *name, bool invert) {
  if (*name != '\0')
    printf("%s%s %s ", option, invert ? " !" : "", name);
}

} // namespace

void print_bridge_body(const SavedRule &r, const BridgeFormat &f) {
  const auto &eb = r.eb;
  if (!(eb.bitmask & EBT_NOPROTO)) {
    printf("-p ");
    if (eb.invflags & EBT_IPROTO)
      printf("! ");
    if (eb.bitmask & EBT_802_3) {
      printf("Length ");
    } else {
      const xt_ethertypeent *ent =
          xtables_getethertypebynumber(ntohs(eb.ethproto));
      if (ent == nullptr)
        printf("0x%x ", ntohs(eb.ethproto));
      else
        printf("%s ", ent->e_name);
    }
  }
  if (eb.bitmask & EBT_ISOURCE)
    print_mac('s', eb.smac.data(), eb.smsk.data(), eb.invflags & EBT_ISOURCE);
  if (eb.bitmask & EBT_IDEST)
    print_mac('d', eb.dmac.data(), eb.dmsk.data(), eb.invflags & EBT_IDEST);
  print_iface("-i", r.iniface.data(), eb.invflags & EBT_IIN);
  print_iface("--logical-in", eb.logical_in.data(),
              eb.invflags & EBT_ILOGICALIN);
  print_iface("-o", r.outiface.data(), eb.invflags & EBT_IOUT);
  print_iface("--logical-out", eb.logical_out.data(),
              eb.invflags & EBT_ILOGICALOUT);

  // The plugins print from the rule's struct ebt_entry.
  ebt_entry e{};
  e.bitmask = eb.bitmask;
  e.invflags = eb.invflags;
  e.ethproto = eb.ethproto;
  std::memcpy(e.in, r.iniface.data(), IFNAMSIZ);
  std::memcpy(e.out, r.outiface.data(), IFNAMSIZ);
  std::memcpy(e.logical_in, eb.logical_in.data(), IFNAMSIZ);
  std::memcpy(e.logical_out, eb.logical_out.data(), IFNAMSIZ);
  std::memcpy(e.sourcemac, eb.smac.data(), 6);
  std::memcpy(e.sourcemsk, eb.smsk.data(), 6);
  std::memcpy(e.destmac, eb.dmac.data(), 6);
  std::memcpy(e.destmsk, eb.dmsk.data(), 6);
  for (const auto &m : r.matches) {
    if (m.watcher) {
      auto *p = static_cast<xtables_target *>(m.plugin);
      if (p->print != nullptr)
        p->print(&e, reinterpret_cast<const xt_entry_target *>(m.entry.data()),
                 f.numeric);
    } else {
      auto *p = static_cast<xtables_match *>(m.plugin);
      if (p->print != nullptr)
        p->print(&e, reinterpret_cast<const xt_entry_match *>(m.entry.data()),
                 f.numeric);
    }
  }
  printf("-j ");
  printf("%s", r.jumpto.empty() ? "CONTINUE" : r.jumpto.c_str());
  if (r.target.plugin != nullptr) {
    auto *p = static_cast<xtables_target *>(r.target.plugin);
    if (p->print != nullptr) {
      printf(" ");
      p->print(&e,
               reinterpret_cast<const xt_entry_target *>(r.target.entry.data()),
               f.numeric);
    }
  }
  if (f.c_counters) {
    if (f.ebt_save)
      printf(" -c %" PRIu64 " %" PRIu64, r.packets, r.bytes);
    else
      printf(" , pcnt = %" PRIu64 " -- bcnt = %" PRIu64, r.packets, r.bytes);
  }
  putchar('\n');
}

} // namespace fastrestore::save
