#include <catch2/catch.hpp>

#include "../helpers.h"

using fastrestore::test::render_rule;

TEST_CASE("other matches and targets carry their binary", "[ext][compat]") {
  CHECK(render_rule("-A INPUT -m conntrack --ctstate NEW -j LOG") ==
        "[ match name conntrack rev 3 ]\n"
        "[ counter pkts 0 bytes 0 ]\n"
        "[ target name LOG rev 0 ]\n");
  CHECK(render_rule("-A PREROUTING -p tcp -j DNAT --to-destination 1.2.3.4",
                    fastrestore::Family::ipv4, "nat") ==
        "[ meta load l4proto => reg 1 ]\n"
        "[ cmp eq reg 1 0x00000006 ]\n"
        "[ counter pkts 0 bytes 0 ]\n"
        "[ target name DNAT rev 2 ]\n");
}

TEST_CASE("compat payload is the plugin's struct", "[ext][compat]") {
  auto r = fastrestore::test::parse_line("-A INPUT -m comment --comment hello")
               .rules[0];
  REQUIRE(r.matches.size() == 1);
  CHECK(r.matches[0].data.size() == 256); // struct xt_comment_info
  CHECK(std::string(reinterpret_cast<const char *>(r.matches[0].data.data())) ==
        "hello");
}
