#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("tcp: one port each way is one 4-byte compare", "[ext][tcp]") {
  CHECK(render_rule("-A INPUT -p tcp -m tcp --sport 1000 --dport 22") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ payload load 4b @ transport header + 0 => reg 1 ]\n"
        "[ cmp eq reg 1 0x1600e803 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("tcp: ranges, upper bounds and inversions", "[ext][tcp]") {
  CHECK(render_rule("-A INPUT -p tcp --dport 1000:2000") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ payload load 2b @ transport header + 2 => reg 1 ]\n"
        "[ range eq reg 1 0x0000e803 0x0000d007 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -p tcp ! --sport :1023") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ payload load 2b @ transport header + 0 => reg 1 ]\n"
        "[ cmp gt reg 1 0x0000ff03 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("tcp: flags are masked and compared", "[ext][tcp]") {
  CHECK(render_rule("-A INPUT -p tcp --syn") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ payload load 1b @ transport header + 13 => reg 1 ]\n"
        "[ bitwise reg 1 = ( reg 1 & 0x00000017 ) ^ 0x00000000 ]\n"
        "[ cmp eq reg 1 0x00000002 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("tcp: --tcp-option and a bare -m tcp stay compat", "[ext][tcp]") {
  CHECK(render_rule("-A INPUT -p tcp -m tcp --tcp-option 2") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ match name tcp rev 0 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -p tcp -m tcp") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ match name tcp rev 0 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("tcp: ports need -p tcp", "[ext][tcp]") {
  CHECK_THROWS_WITH(render_rule("-A INPUT -p udp -m tcp --dport 1"),
                    "TCP match requires '-p tcp'");
}
