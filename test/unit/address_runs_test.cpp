// The runs --optimize can put into one set (address_runs.h), found in
// rules parsed through libxtables.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fastrestore/ipsets.h"
#include "helpers.h"
#include "optimize/address_runs.h"

using namespace fastrestore;

namespace {

std::vector<Rule> rules_of(const std::vector<std::string> &lines,
                           Family family = Family::ipv4) {
  std::vector<Rule> out;
  for (const std::string &l : lines)
    for (Rule &r : test::parse_line(l, family).rules)
      out.push_back(std::move(r));
  return out;
}

std::vector<AddressRun> find_address_runs(const std::vector<Rule> &rules,
                                          Family family, size_t min) {
  std::vector<const Rule *> at;
  for (const Rule &r : rules)
    at.push_back(&r);
  return fastrestore::find_address_runs(at, family, min);
}

std::vector<std::string> numbered(int n, const std::string &before,
                                  const std::string &after) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i)
    out.push_back(before + std::to_string(i) + after);
  return out;
}

} // namespace

TEST_CASE("address runs: sources, destinations, the shortest run",
          "[address_runs]") {
  auto lines = numbered(8, "-A INPUT -s 10.0.0.", " -j DROP");
  std::vector<AddressRun> runs =
      find_address_runs(rules_of(lines), Family::ipv4, 8);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].first == 0);
  CHECK(runs[0].count == 8);
  CHECK(runs[0].source);
  CHECK_FALSE(runs[0].prefixes);
  // One rule short of the minimum: none.
  lines.pop_back();
  CHECK(find_address_runs(rules_of(lines), Family::ipv4, 8).empty());
  // Destinations with prefixes, between rules that break the run.
  std::vector<std::string> d = {"-A INPUT -j ACCEPT"};
  for (const std::string &l :
       numbered(9, "-A INPUT -p tcp --dport 22 -d 10.", ".0.0/16 -j ACCEPT"))
    d.push_back(l);
  d.push_back("-A INPUT -p tcp --dport 23 -d 10.20.0.0/16 -j ACCEPT");
  runs = find_address_runs(rules_of(d), Family::ipv4, 8);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].first == 1);
  CHECK(runs[0].count == 9);
  CHECK_FALSE(runs[0].source);
  CHECK(runs[0].prefixes);
}

TEST_CASE("address runs: rules a packet could match twice stay apart",
          "[address_runs]") {
  // An address twice ends the run at its second rule.
  auto lines = numbered(8, "-A INPUT -s 10.0.0.", " -j DROP");
  lines.insert(lines.begin() + 4, "-A INPUT -s 10.0.0.2 -j DROP");
  std::vector<AddressRun> runs =
      find_address_runs(rules_of(lines), Family::ipv4, 4);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].count == 4);
  CHECK(runs[1].first == 4);
  CHECK(runs[1].count == 5);
  // A prefix holding an earlier address, or inside an earlier prefix.
  std::vector<std::string> nested =
      numbered(8, "-A INPUT -s 10.1.", ".0/24 -j LOG");
  nested.push_back("-A INPUT -s 10.1.3.7 -j LOG");
  nested.push_back("-A INPUT -s 10.0.0.0/8 -j LOG");
  runs = find_address_runs(rules_of(nested), Family::ipv4, 8);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].count == 8);
  nested.erase(nested.begin() + 8); // the /8 right after the /24s
  runs = find_address_runs(rules_of(nested), Family::ipv4, 8);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].count == 8);
  // Negated keys and /0 never join.
  CHECK(find_address_runs(
            rules_of(numbered(8, "-A INPUT ! -s 10.0.0.", " -j DROP")),
            Family::ipv4, 8)
            .empty());
  std::vector<std::string> zero =
      numbered(8, "-A INPUT -s 10.0.0.", " -j DROP");
  zero[3] = "-A INPUT -s 0.0.0.0/0 -j DROP";
  CHECK(find_address_runs(rules_of(zero), Family::ipv4, 8).empty());
}

TEST_CASE("address runs: comments and counters go to the members",
          "[address_runs]") {
  std::vector<std::string> lines = numbered(
      8, "-A INPUT -s 2001:db8::", " -m comment --comment \"host\" -j DROP");
  lines[2] = "-A INPUT -s 2001:db8::3 -j DROP"; // no comment: still one run
  lines[5] = "-A INPUT -s 2001:db8::6 -m comment --comment \"other\" -j DROP";
  std::vector<Rule> rules = rules_of(lines, Family::ipv6);
  const std::vector<AddressRun> runs =
      find_address_runs(rules, Family::ipv6, 8);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].count == 8);
  rules[5].packets = 7;
  rules[5].bytes = 420;
  const RunMember m = run_member(rules[5], true, Family::ipv6);
  CHECK(m.prefix == 128);
  CHECK(m.address[15] == 6);
  CHECK(m.packets == 7);
  CHECK(m.bytes == 420);
  REQUIRE(m.comment);
  CHECK(*m.comment == "other");
  CHECK_FALSE(run_member(rules[2], true, Family::ipv6).comment);
  // Another target, another match: another rule.
  std::vector<std::string> mixed =
      numbered(8, "-A INPUT -s 10.0.0.", " -j DROP");
  mixed[4] = "-A INPUT -s 10.0.0.5 -j ACCEPT";
  CHECK(find_address_runs(rules_of(mixed), Family::ipv4, 8).empty());
  mixed[4] = "-A INPUT -s 10.0.0.5 -p udp -j DROP";
  CHECK(find_address_runs(rules_of(mixed), Family::ipv4, 8).empty());
}

TEST_CASE("ipset names: fastrestore's prefix, within the kernel's 31",
          "[address_runs]") {
  const std::string name = ipset::set_name(0x0123456789abcdefULL);
  CHECK(name == "fastrestore-0123456789abcdef");
  CHECK(ipset::fresh_name(0x0123456789abcdefULL) ==
        "fastrestore-0123456789abcdef-n");
  CHECK(ipset::fresh_name(~0ULL).size() <= 31);
  CHECK(ipset::owned(name));
  CHECK(ipset::owned(ipset::fresh_name(1)));
  CHECK_FALSE(ipset::owned("blocklist"));
  CHECK_FALSE(ipset::owned("fastrestore"));
}
