#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("TRACE sets meta nftrace", "[ext][TRACE]") {
  CHECK(render_rule("-A PREROUTING -j TRACE", fastrestore::Family::ipv4,
                    "raw") == "[ counter pkts 0 bytes 0 ]\n"
                              "[ immediate reg 9 0x00000001 ]\n"
                              "[ meta set nftrace with reg 9 ]\n");
}
