#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("udp: destination port", "[ext][udp]") {
  CHECK(render_rule("-A INPUT -p udp --dport 53") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000011 ]\n"
        "[ payload load 2b @ transport header + 2 => reg 1 ]\n"
        "[ cmp eq reg 1 0x00003500 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("udp: different inversions use two compares", "[ext][udp]") {
  CHECK(render_rule("-A INPUT -p udp --sport 53 ! --dport 53") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000011 ]\n"
        "[ payload load 2b @ transport header + 0 => reg 1 ]\n"
        "[ cmp eq reg 1 0x00003500 ]\n"
        "[ payload load 2b @ transport header + 2 => reg 1 ]\n"
        "[ cmp neq reg 1 0x00003500 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("udp: ports need -p udp", "[ext][udp]") {
  CHECK_THROWS_WITH(render_rule("-A INPUT -p tcp -m udp --dport 1"),
                    "UDP match requires '-p udp'");
}
