// ipsets.h against the kernel: run by ctest inside a private network
// namespace of its own (unshare -n), never in the machine's.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "fastrestore/ipsets.h"

using namespace fastrestore;

namespace {

std::vector<std::string> names() {
  std::string error;
  auto n = ipset::set_names(&error);
  INFO(error);
  REQUIRE(n);
  std::sort(n->begin(), n->end());
  return *n;
}

} // namespace

TEST_CASE("ipsets: made, filled with counters and comments, swapped, destroyed",
          "[ipsets]") {
  const std::string a = ipset::set_name(1), fresh = ipset::fresh_name(1);
  REQUIRE_FALSE(ipset::run_commands(
      {"create " + a + " hash:ip family inet maxelem 4 counters comment",
       "add " + a + " 10.0.0.1 packets 5 bytes 300 comment \"hello world\"",
       "add " + a + " 10.0.0.2"}));
  std::string error;
  auto members = ipset::set_members(a, &error);
  REQUIRE(members);
  std::sort(members->begin(), members->end());
  CHECK(
      *members ==
      std::vector<std::string>{
          "add " + a + " 10.0.0.1 packets 5 bytes 300 comment \"hello world\"",
          "add " + a + " 10.0.0.2 packets 0 bytes 0"});
  // A refill under the fresh name, swapped in, the old set destroyed (a
  // swap takes sets of one type only: hash:net for hash:ip is refused).
  const auto mixed = ipset::run_commands(
      {"create " + fresh + " hash:net family inet counters comment",
       "swap " + fresh + " " + a});
  REQUIRE(mixed);
  CHECK(mixed->index == 1);
  REQUIRE_FALSE(ipset::run_commands(
      {"destroy " + fresh,
       "create " + fresh + " hash:ip family inet maxelem 4 counters comment",
       "add " + fresh + " 10.1.0.1", "swap " + fresh + " " + a,
       "destroy " + fresh}));
  members = ipset::set_members(a, &error);
  REQUIRE(members);
  CHECK(*members ==
        std::vector<std::string>{"add " + a + " 10.1.0.1 packets 0 bytes 0"});
  CHECK(names() == std::vector<std::string>{a});
  REQUIRE_FALSE(ipset::run_commands({"destroy " + a}));
  CHECK(names().empty());
}

TEST_CASE("ipsets: the first command refused stops the rest", "[ipsets]") {
  const std::string b = ipset::set_name(2);
  const auto refused = ipset::run_commands(
      {"create " + b + " hash:ip family inet6 counters",
       "add " + b + " 2001:db8::1", "add " + b + " 2001:db8::1",
       "add " + b + " 2001:db8::2"});
  REQUIRE(refused);
  CHECK(refused->index == 2);
  CHECK(refused->message.find("already added") != std::string::npos);
  std::string error;
  auto members = ipset::set_members(b, &error);
  REQUIRE(members);
  CHECK(members->size() == 1);
  CHECK_FALSE(ipset::set_members("no-such-set", &error));
  CHECK_FALSE(error.empty());
  REQUIRE_FALSE(ipset::run_commands({"destroy " + b}));
}

TEST_CASE("ipsets: a set made with its members, counters and comments",
          "[ipsets]") {
  ipset::SetSpec spec;
  spec.name = ipset::set_name(3);
  spec.net = true;
  spec.ipv6 = true;
  spec.comments = true;
  spec.maxelem = 3;
  std::vector<ipset::Member> members(2);
  members[0].address = {0x20, 0x01, 0x0d, 0xb8};
  members[0].prefix = 32;
  members[0].packets = 9;
  members[0].bytes = 900;
  members[0].comment = "first";
  members[1].address = {0x20, 0x01, 0x0d, 0xb9, 0, 1};
  members[1].prefix = 48;
  REQUIRE_FALSE(ipset::make_set(spec, members));
  std::string error;
  auto saved = ipset::set_members(spec.name, &error);
  REQUIRE(saved);
  std::sort(saved->begin(), saved->end());
  CHECK(*saved ==
        std::vector<std::string>{
            "add " + spec.name +
                " 2001:db8::/32 packets 9 bytes 900 comment \"first\"",
            "add " + spec.name + " 2001:db9:1::/48 packets 0 bytes 0"});
  // A member twice: refused, named by its index; a set that exists.
  spec.name = ipset::set_name(4);
  spec.net = false;
  spec.ipv6 = false;
  std::vector<ipset::Member> twice(3);
  for (auto &m : twice)
    m.address = {10, 0, 0, 1};
  twice[1].address[3] = 2;
  const auto refused = ipset::make_set(spec, twice);
  REQUIRE(refused);
  CHECK(refused->index == 3);
  const auto exists = ipset::make_set(spec, {});
  REQUIRE(exists);
  CHECK(exists->index == 0);
  REQUIRE_FALSE(ipset::run_commands(
      {"destroy " + spec.name, "destroy " + ipset::set_name(3)}));
}
