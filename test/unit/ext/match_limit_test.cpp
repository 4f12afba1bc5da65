#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("limit: rate in the coarsest exact unit", "[ext][limit]") {
  CHECK(render_rule("-A INPUT -m limit --limit 5/min") ==
        "[ limit rate 5/minute burst 5 type packets flags 0x0 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -m limit --limit 10/sec --limit-burst 20") ==
        "[ limit rate 10/second burst 20 type packets flags 0x0 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
  CHECK(render_rule("-A INPUT -m limit --limit 7/day") ==
        "[ limit rate 7/day burst 5 type packets flags 0x0 ]\n"
        "[ counter pkts 0 bytes 0 ]\n");
}
