#include <catch2/catch.hpp>

#include "helpers.h"

using fastrestore::Family;
using fastrestore::test::render_rule;

TEST_CASE("interfaces: exact names include the NUL, + is a prefix",
          "[nft_rule]") {
  CHECK(render_rule("-A INPUT -i eth0") ==
        "[ meta load iifname => reg 1 ]\n"
        "[ cmp eq reg 1 0x30687465 0x00000000 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A OUTPUT ! -o eth+") == "[ meta load oifname => reg 1 ]\n"
                                              "[ cmp neq reg 1 0x00687465 ]\n"
                                              "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -i +") == "[ meta load iifname => reg 1 ]\n"
                                        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("addresses: whole-byte prefixes load fewer bytes", "[nft_rule]") {
  CHECK(render_rule("-A INPUT -d 10.0.0.0/8") ==
        "[ payload load 1b @ network header + 16 => reg 1 ]\n"
        "[ cmp eq reg 1 0x0000000a ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -s 10.0.0.0/255.0.255.0") ==
        "[ payload load 4b @ network header + 12 => reg 1 ]\n"
        "[ bitwise reg 1 = ( reg 1 & 0x00ff00ff ) ^ 0x00000000 ]\n"
        "[ cmp eq reg 1 0x0000000a ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT ! -s 10.1.0.0/16") ==
        "[ payload load 2b @ network header + 12 => reg 1 ]\n"
        "[ cmp neq reg 1 0x0000010a ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("IPv6 addresses and protocol", "[nft_rule]") {
  CHECK(render_rule("-A INPUT -s 2001:db8::/32 -p udp", Family::ipv6) ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000011 ]\n"
        "[ payload load 4b @ network header + 8 => reg 1 ]\n"
        "[ cmp eq reg 1 0xb80d0120 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("fragments: offset bits masked", "[nft_rule]") {
  CHECK(render_rule("-A INPUT -f") ==
        "[ payload load 2b @ network header + 6 => reg 1 ]\n"
        "[ bitwise reg 1 = ( reg 1 & 0x0000ff1f ) ^ 0x00000000 ]\n"
        "[ cmp neq reg 1 0x00000000 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("verdicts and jumps are immediates", "[nft_rule]") {
  CHECK(render_rule("-A INPUT -j DROP") == "[ counter pkts 0 bytes 0 ]\n"
                                           "[ immediate reg 0 drop ]\n");
  CHECK(render_rule("-A INPUT -j RETURN") == "[ counter pkts 0 bytes 0 ]\n"
                                             "[ immediate reg 0 return ]\n");
  CHECK(render_rule("-A INPUT -j web") == "[ counter pkts 0 bytes 0 ]\n"
                                          "[ immediate reg 0 jump -> web ]\n");
  CHECK(render_rule("-A INPUT -g web") == "[ counter pkts 0 bytes 0 ]\n"
                                          "[ immediate reg 0 goto -> web ]\n");
}

TEST_CASE("rule counters carry -c values", "[nft_rule]") {
  CHECK(render_rule("-A INPUT -c 3 300") == "[ counter pkts 3 bytes 300 ]\n");
}
