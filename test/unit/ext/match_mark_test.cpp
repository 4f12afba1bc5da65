#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("mark: full mask compares directly", "[ext][mark]") {
  CHECK(render_rule("-A INPUT -m mark --mark 0x10") ==
        "[ meta load mark => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000010 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}

TEST_CASE("mark: a mask adds a bitwise, ! inverts", "[ext][mark]") {
  CHECK(render_rule("-A INPUT -m mark ! --mark 0x1/0xff") ==
        "[ meta load mark => reg 1 ]\n"
        "[ bitwise reg 1 = ( reg 1 & 0x000000ff ) ^ 0x00000000 ]\n"
        "[ cmp neq reg 1 0x00000001 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}
