#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("NFLOG becomes a log expression", "[ext][NFLOG]") {
  CHECK(render_rule("-A INPUT -j NFLOG --nflog-group 5 --nflog-prefix "
                    "\"a prefix\" --nflog-threshold 3 --nflog-size 128") ==
        "[ counter pkts 0 bytes 0 ]\n"
        "[ log prefix a prefix group 5 snaplen 128 qthreshold 3 ]\n");
  CHECK(render_rule("-A INPUT -j NFLOG") ==
        "[ counter pkts 0 bytes 0 ]\n"
        "[ log group 0 snaplen 0 qthreshold 0 ]\n");
}
