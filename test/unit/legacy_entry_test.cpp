#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

extern "C" {
#include <libiptc/libip6tc.h>
}
#include <libiptc/libiptc.h>

#include <cstring>

#include "helpers.h"
#include "legacy/legacy.h"

using namespace fastrestore;

TEST_CASE("legacy entry: header, matches, standard target", "[legacy]") {
  Rule r = test::parse_line("-A INPUT -s 10.1.2.3/24 -i eth+ -p tcp "
                            "--dport 22 -j ACCEPT")
               .rules[0];
  std::vector<unsigned char> mask;
  auto buf = legacy::build_entry(r, Family::ipv4, &mask);
  const auto *e = reinterpret_cast<const ipt_entry *>(buf.data());
  CHECK(e->next_offset == buf.size());
  CHECK(e->ip.proto == IPPROTO_TCP);
  CHECK(e->ip.src.s_addr == htonl(0x0a010200)); // masked by /24
  CHECK(e->ip.smsk.s_addr == htonl(0xffffff00));
  CHECK(std::string(e->ip.iniface) == "eth+");
  CHECK(e->ip.iniface_mask[2] == 0xff);
  CHECK(e->ip.iniface_mask[3] == 0); // '+' matches any suffix
  const auto *m = reinterpret_cast<const xt_entry_match *>(e->elems);
  CHECK(std::string(m->u.user.name) == "tcp");
  CHECK(sizeof(ipt_entry) + m->u.match_size == e->target_offset);
  const auto *t =
      reinterpret_cast<const xt_entry_target *>(buf.data() + e->target_offset);
  CHECK(std::string(t->u.user.name) == "ACCEPT");
  CHECK(mask.size() == buf.size());
  CHECK(mask[0] == 0xff); // the entry is compared whole
}

TEST_CASE("legacy entry: jumps, gotos and IPv6 protocol flag", "[legacy]") {
  Rule go = test::parse_line("-A INPUT -g other").rules[0];
  auto buf = legacy::build_entry(go, Family::ipv4);
  const auto *e = reinterpret_cast<const ipt_entry *>(buf.data());
  CHECK((e->ip.flags & IPT_F_GOTO) != 0);
  const auto *t =
      reinterpret_cast<const xt_entry_target *>(buf.data() + e->target_offset);
  CHECK(std::string(t->u.user.name) == "other");

  Rule v6 = test::parse_line("-A INPUT -p all", Family::ipv6).rules[0];
  auto buf6 = legacy::build_entry(v6, Family::ipv6);
  const auto *e6 = reinterpret_cast<const ip6t_entry *>(buf6.data());
  CHECK((e6->ipv6.flags & IP6T_F_PROTO) != 0); // -p given, even "all"
  CHECK(e6->ipv6.proto == 0);
  test::xt_parser(Family::ipv4); // leave the shared parser on IPv4
}
