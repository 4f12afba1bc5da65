// ipsets.h against the kernel: run by ctest inside a private network
// namespace of its own (unshare -n), never in the machine's.
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

TEST_CASE("ipsets: members read back, their digest, the sets' sizes; unused "
          "sets of fastrestore's go",
          "[ipsets]") {
  ipset::SetSpec spec;
  spec.name = ipset::set_name(5);
  spec.net = true;
  spec.comments = true;
  spec.maxelem = 3;
  std::vector<ipset::Member> members(3);
  members[0].address = {10, 9, 0, 0};
  members[0].prefix = 16;
  members[0].comment = "a \"quoted\" text";
  members[0].packets = 4;
  members[0].bytes = 400;
  members[1].address = {10, 1, 2, 3};
  members[1].prefix = 32;
  members[2].address = {10, 1, 2, 0};
  members[2].prefix = 24;
  REQUIRE_FALSE(ipset::make_set(spec, members));
  std::string error;
  const auto back = ipset::read_members(spec.name, false, &error);
  INFO(error);
  REQUIRE(back);
  REQUIRE(back->size() == 3);
  // In address order, then prefix length.
  CHECK((*back)[0].address == members[2].address);
  CHECK((*back)[0].prefix == 24);
  CHECK((*back)[1].prefix == 32);
  CHECK((*back)[2].comment == members[0].comment);
  CHECK((*back)[2].packets == 4);
  CHECK((*back)[2].bytes == 400);
  CHECK_FALSE((*back)[1].comment);
  // The digest: the same members in any order, counters aside; not for a
  // changed comment, prefix or address.
  CHECK(ipset::members_digest(*back, false) ==
        ipset::members_digest(members, false));
  auto other = members;
  other[0].packets = 0;
  CHECK(ipset::members_digest(other, false) ==
        ipset::members_digest(members, false));
  other[0].comment = "another";
  CHECK(ipset::members_digest(other, false) !=
        ipset::members_digest(members, false));
  other = members;
  other[1].prefix = 31;
  CHECK(ipset::members_digest(other, false) !=
        ipset::members_digest(members, false));
  other = members;
  other[1].address[3] = 4;
  CHECK(ipset::members_digest(other, false) !=
        ipset::members_digest(members, false));

  REQUIRE_FALSE(ipset::run_commands({"create mine hash:ip"}));
  const auto headers = ipset::set_headers(&error);
  REQUIRE(headers);
  CHECK(*headers ==
        std::vector<ipset::SetHeader>{{spec.name, 3, 3, true, false},
                                      {"mine", 0, 65536, false, false}});
  // Edited in place: a member deleted, one added, one whose comment
  // changes deleted and added again; the others keep their counters.
  ipset::Member gone = (*back)[1], fresh = (*back)[1];
  fresh.address[3] = 7;
  ipset::Member recommented = (*back)[2];
  recommented.comment = "new";
  REQUIRE_FALSE(
      ipset::edit_set(spec, {gone, (*back)[2]}, {fresh, recommented}));
  const auto edited = ipset::read_members(spec.name, false, &error);
  REQUIRE(edited);
  REQUIRE(edited->size() == 3);
  CHECK((*edited)[0].address[3] == 0);
  CHECK((*edited)[1].address[3] == 7);
  CHECK((*edited)[2].comment == std::optional<std::string>("new"));
  CHECK((*edited)[2].packets == 4);
  // A member that is not there: refused, by its index.
  const auto refused = ipset::edit_set(spec, {gone}, {});
  REQUIRE(refused);
  CHECK(refused->index == 0);
  // Neither the user's set nor one kept goes; the others do.
  {
    ipset::Lock lock;
    ipset::destroy_unused({spec.name}, false);
  }
  CHECK(names() == std::vector<std::string>{spec.name, "mine"});
  CHECK(ipset::any_owned_set() == std::optional<bool>(true));
  ipset::tidy(false);
  CHECK(names() == std::vector<std::string>{"mine"});
  CHECK(ipset::any_owned_set() == std::optional<bool>(false));
  REQUIRE_FALSE(ipset::run_commands({"destroy mine"}));
}
