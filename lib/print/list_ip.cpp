// iptables -L's rows and heads: the column widths and the order of
// iptables' print_header, print_rule_details, print_fragment,
// print_ifaces and print_ipv4_addresses / print_ipv6_addresses.
#include "print/list_print.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <xtables.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "ip_entry.h"
#include "print/save_print.h"

namespace fastrestore::save {
namespace {

// An address and its mask: "anywhere" for any unless numeric, else the
// address (its name without -n) and the mask ("/24", "" for a host).
std::string address(const uint8_t *a, const uint8_t *m, Family family,
                    bool numeric) {
  std::string out;
  if (family == Family::ipv4) {
    in_addr addr, mask;
    std::memcpy(&addr, a, 4);
    std::memcpy(&mask, m, 4);
    if (mask.s_addr == 0 && !numeric)
      return "anywhere";
    out = numeric ? xtables_ipaddr_to_numeric(&addr)
                  : xtables_ipaddr_to_anyname(&addr);
    out += xtables_ipmask_to_numeric(&mask);
  } else {
    in6_addr addr, mask;
    std::memcpy(&addr, a, 16);
    std::memcpy(&mask, m, 16);
    if (IN6_IS_ADDR_UNSPECIFIED(&addr) && !numeric)
      return "anywhere";
    out = numeric ? xtables_ip6addr_to_numeric(&addr)
                  : xtables_ip6addr_to_anyname(&addr);
    out += xtables_ip6mask_to_numeric(&mask);
  }
  return out;
}

// An interface column: the name, "+" kept, "!" before an inverted one,
// "any" ("*" with -n) for none.
std::string iface(const char *name, bool inverted, bool numeric) {
  std::string out = inverted ? "!" : "";
  out += name[0] != '\0' ? name : (numeric ? "*" : "any");
  return out.substr(0, IFNAMSIZ + 1);
}

} // namespace

void print_list_header(const ListFormat &f, const std::string &chain,
                       const char *policy, uint64_t packets, uint64_t bytes,
                       int64_t references) {
  const unsigned num_format = FMT_NOTABLE | (f.exact ? 0 : FMT_KILOMEGAGIGA);
  printf("Chain %s", chain.c_str());
  if (policy != nullptr) {
    printf(" (policy %s", policy);
    if (f.verbose) {
      fputc(' ', stdout);
      xtables_print_num(packets, num_format);
      fputs("packets, ", stdout);
      xtables_print_num(bytes, num_format);
      fputs("bytes", stdout);
    }
    printf(")\n");
  } else {
    printf(" (%" PRId64 " references)\n", references);
  }
  if (f.line_numbers)
    printf("%-4s ", "num");
  if (f.verbose) {
    if (!f.exact) {
      printf("%5s ", "pkts");
      printf("%5s ", "bytes");
    } else {
      printf("%8s ", "pkts");
      printf("%10s ", "bytes");
    }
  }
  printf("%-9s ", "target");
  fputs(" prot ", stdout);
  fputs("opt", stdout);
  if (f.verbose) {
    printf(" %-6s ", "in");
    printf("%-6s ", "out");
  }
  printf(" %-19s ", "source");
  printf(" %-19s ", "destination");
  printf("\n");
}

void print_list_rule(const ListFormat &f, unsigned num, const SavedRule &r,
                     Family family) {
  const bool v4 = family == Family::ipv4;
  if (f.line_numbers)
    printf("%-4u ", num);
  if (f.verbose) {
    const unsigned num_format = f.exact ? 0 : FMT_KILOMEGAGIGA;
    xtables_print_num(r.packets, num_format);
    xtables_print_num(r.bytes, num_format);
  }
  printf("%-9s ", r.jumpto.c_str());
  fputc(r.invflags & XT_INV_PROTO ? '!' : ' ', stdout);
  // (With -n the protocol is a number, "all" too.)
  const char *pname = f.numeric ? nullptr : proto_name(r.proto);
  if (pname == nullptr && !f.numeric && r.proto == 0)
    pname = "all";
  if (pname != nullptr)
    printf("%-4s ", pname);
  else
    printf("%-4hu ", static_cast<unsigned short>(r.proto));
  // The fragment column: IPv6 has none.
  if (v4) {
    fputc(r.invflags & IPT_INV_FRAG ? '!' : '-', stdout);
    fputc(r.frag ? 'f' : '-', stdout);
  } else {
    fputs("--", stdout);
  }
  fputc(' ', stdout);
  if (f.verbose) {
    printf(" %-6s ",
           iface(r.iniface.data(), r.invflags & IPT_INV_VIA_IN, f.numeric)
               .c_str());
    printf("%-6s ",
           iface(r.outiface.data(), r.invflags & IPT_INV_VIA_OUT, f.numeric)
               .c_str());
  }
  const uint8_t inv_src = v4 ? IPT_INV_SRCIP : IP6T_INV_SRCIP;
  const uint8_t inv_dst = v4 ? IPT_INV_DSTIP : IP6T_INV_DSTIP;
  fputc(r.invflags & inv_src ? '!' : ' ', stdout);
  printf("%-19s ",
         address(r.src.data(), r.smsk.data(), family, f.numeric).c_str());
  fputc(r.invflags & inv_dst ? '!' : ' ', stdout);
  printf("%-19s ",
         address(r.dst.data(), r.dmsk.data(), family, f.numeric).c_str());
  if (r.go)
    printf("[goto] ");

  const IpEntry entry(r, family);
  for (const auto &m : r.matches) {
    auto *p = static_cast<xtables_match *>(m.plugin);
    if (p->print != nullptr)
      p->print(entry.fw(),
               reinterpret_cast<const xt_entry_match *>(m.entry.data()),
               f.numeric);
  }
  if (r.target.plugin != nullptr) {
    auto *p = static_cast<xtables_target *>(r.target.plugin);
    if (p->print != nullptr)
      p->print(entry.fw(),
               reinterpret_cast<const xt_entry_target *>(r.target.entry.data()),
               f.numeric);
  }
  fputc('\n', stdout);
}

} // namespace fastrestore::save
