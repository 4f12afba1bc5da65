#include "ip_entry.h"
#include "print/save_print.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <xtables.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

namespace fastrestore::save {
namespace {

const char *mask_to_str(const in_addr *mask) {
  static char buf[INET_ADDRSTRLEN];
  const uint32_t hmask = ntohl(mask->s_addr);
  if (mask->s_addr == 0xffffffffu)
    return "32";
  uint32_t bits = 0xfffffffeu;
  int i = 32;
  while (--i >= 0 && hmask != bits)
    bits <<= 1;
  if (i >= 0)
    snprintf(buf, sizeof(buf), "%u", i);
  else
    inet_ntop(AF_INET, mask, buf, sizeof(buf));
  return buf;
}

void save_ipv4_addr(char letter, const uint8_t *a, const uint8_t *m,
                    bool invert) {
  in_addr addr, mask;
  std::memcpy(&addr, a, 4);
  std::memcpy(&mask, m, 4);
  if (!mask.s_addr && !invert && !addr.s_addr)
    return;
  char buf[INET_ADDRSTRLEN];
  printf("%s -%c %s/%s", invert ? " !" : "", letter,
         inet_ntop(AF_INET, &addr, buf, sizeof(buf)), mask_to_str(&mask));
}

void save_ipv6_addr(char letter, const uint8_t *a, const uint8_t *m,
                    bool invert) {
  in6_addr addr, mask;
  std::memcpy(&addr, a, 16);
  std::memcpy(&mask, m, 16);
  const int l = xtables_ip6mask_to_cidr(&mask);
  if (!invert && l == 0)
    return;
  char buf[INET6_ADDRSTRLEN];
  printf("%s -%c %s", invert ? " !" : "", letter,
         inet_ntop(AF_INET6, &addr, buf, sizeof(buf)));
  if (l == -1)
    printf("/%s", inet_ntop(AF_INET6, &mask, buf, sizeof(buf)));
  else
    printf("/%d", l);
}

// A contiguous, byte-bounded mask is assumed, as iptables does.
void save_iface(char letter, const char *iface, const unsigned char *mask,
                bool invert) {
  if (mask[0] == 0)
    return;
  printf("%s -%c ", invert ? " !" : "", letter);
  for (unsigned i = 0; i < IFNAMSIZ; i++) {
    if (mask[i] != 0) {
      if (iface[i] != '\0')
        putchar(iface[i]);
    } else {
      if (iface[i - 1] != '\0')
        putchar('+');
      break;
    }
  }
}

} // namespace

IpEntry::IpEntry(const SavedRule &r, Family family) {
  if (family == Family::ipv4) {
    auto &e = *reinterpret_cast<ipt_entry *>(buf_);
    std::memcpy(&e.ip.src, r.src.data(), 4);
    std::memcpy(&e.ip.dst, r.dst.data(), 4);
    std::memcpy(&e.ip.smsk, r.smsk.data(), 4);
    std::memcpy(&e.ip.dmsk, r.dmsk.data(), 4);
    std::memcpy(e.ip.iniface, r.iniface.data(), IFNAMSIZ);
    std::memcpy(e.ip.outiface, r.outiface.data(), IFNAMSIZ);
    std::memcpy(e.ip.iniface_mask, r.inmask.data(), IFNAMSIZ);
    std::memcpy(e.ip.outiface_mask, r.outmask.data(), IFNAMSIZ);
    e.ip.proto = r.proto;
    e.ip.flags = static_cast<uint8_t>((r.frag ? IPT_F_FRAG : 0) |
                                      (r.go ? IPT_F_GOTO : 0));
    e.ip.invflags = r.invflags;
  } else {
    auto &e = *reinterpret_cast<ip6t_entry *>(buf_);
    std::memcpy(&e.ipv6.src, r.src.data(), 16);
    std::memcpy(&e.ipv6.dst, r.dst.data(), 16);
    std::memcpy(&e.ipv6.smsk, r.smsk.data(), 16);
    std::memcpy(&e.ipv6.dmsk, r.dmsk.data(), 16);
    std::memcpy(e.ipv6.iniface, r.iniface.data(), IFNAMSIZ);
    std::memcpy(e.ipv6.outiface, r.outiface.data(), IFNAMSIZ);
    std::memcpy(e.ipv6.iniface_mask, r.inmask.data(), IFNAMSIZ);
    std::memcpy(e.ipv6.outiface_mask, r.outmask.data(), IFNAMSIZ);
    e.ipv6.proto = r.proto;
    e.ipv6.flags = r.go ? IP6T_F_GOTO : 0;
    e.ipv6.invflags = r.invflags;
  }
}

const char *proto_name(uint8_t proto) {
  for (unsigned i = 0; xtables_chain_protos[i].name != nullptr; ++i)
    if (xtables_chain_protos[i].num == proto)
      return xtables_chain_protos[i].name;
  if (proto == 0)
    return nullptr;
  // /etc/protocols, asked once per number.
  static std::string names[256];
  static bool asked[256];
  if (!asked[proto]) {
    asked[proto] = true;
    if (const protoent *p = getprotobynumber(proto))
      names[proto] = p->p_name;
  }
  return names[proto].empty() ? nullptr : names[proto].c_str();
}

void print_ip_base(const SavedRule &r, Family family) {
  const bool v4 = family == Family::ipv4;
  if (v4) {
    save_ipv4_addr('s', r.src.data(), r.smsk.data(),
                   r.invflags & IPT_INV_SRCIP);
    save_ipv4_addr('d', r.dst.data(), r.dmsk.data(),
                   r.invflags & IPT_INV_DSTIP);
  } else {
    save_ipv6_addr('s', r.src.data(), r.smsk.data(),
                   r.invflags & IP6T_INV_SRCIP);
    save_ipv6_addr('d', r.dst.data(), r.dmsk.data(),
                   r.invflags & IP6T_INV_DSTIP);
  }
  save_iface('i', r.iniface.data(), r.inmask.data(),
             r.invflags & IPT_INV_VIA_IN);
  save_iface('o', r.outiface.data(), r.outmask.data(),
             r.invflags & IPT_INV_VIA_OUT);
  if (r.proto > 0) {
    const char *pname = proto_name(r.proto);
    if (r.invflags & XT_INV_PROTO)
      printf(" !");
    if (pname != nullptr)
      printf(" -p %s", pname);
    else
      printf(" -p %u", r.proto);
  }
  if (v4 && r.frag) {
    if (r.invflags & IPT_INV_FRAG)
      printf(" !");
    printf(" -f");
  }
}

void print_ip_rule(const std::string &chain, const SavedRule &r, Family family,
                   bool counters) {
  if (counters)
    printf("[%" PRIu64 ":%" PRIu64 "] ", r.packets, r.bytes);
  printf("-A %s", chain.c_str());
  print_ip_base(r, family);

  // The plugins read the base fields from the rule's ipt_entry / ip6t_entry.
  const IpEntry entry(r, family);
  const void *fw = entry.fw();
  for (const auto &m : r.matches) {
    auto *p = static_cast<xtables_match *>(m.plugin);
    auto *em = reinterpret_cast<const xt_entry_match *>(m.entry.data());
    printf(" -m %s", p->alias != nullptr ? p->alias(em) : p->name);
    if (p->save != nullptr)
      p->save(fw, em);
  }
  if (r.target.plugin != nullptr) {
    auto *p = static_cast<xtables_target *>(r.target.plugin);
    auto *et = reinterpret_cast<const xt_entry_target *>(r.target.entry.data());
    printf(" -j %s", p->alias != nullptr ? p->alias(et) : r.jumpto.c_str());
    if (p->save != nullptr)
      p->save(fw, et);
  } else if (!r.jumpto.empty()) {
    printf(" -%c %s", r.go ? 'g' : 'j', r.jumpto.c_str());
  }
  putchar('\n');
}

} // namespace fastrestore::save
