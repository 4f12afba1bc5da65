// The nf_tables side of the incremental restore without a kernel: a
// replacement batch read back as the desired table (desired_table), and a
// delta written as copies of its messages (write_delta).
#include <catch2/catch.hpp>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <string>
#include <vector>

#include "../../lib/backend/nft/table_delta.h"
#include "fastrestore/nft_backend.h"
#include "fastrestore/tables.h"
#include "helpers.h"

using namespace fastrestore;

namespace {

// A replacement of the filter table: INPUT (policy DROP) with `input`
// lines, and a user chain `web` with `web` lines, each line numbered from
// 10 in order.
std::unique_ptr<nft::Batch> replacement(const std::vector<std::string> &input,
                                        const std::vector<std::string> &web) {
  Plan p;
  p.table = "filter";
  p.loc.line = 1;
  p.replace = true;
  int line = 10;
  for (const auto &[name, lines] : {std::make_pair(std::string("INPUT"), input),
                                    std::make_pair(std::string("web"), web)}) {
    PlannedChain c;
    c.name = name;
    c.loc.line = 2;
    c.builtin = find_builtin_chain(*find_builtin_table("filter"), name);
    if (c.builtin != nullptr)
      c.policy = NF_DROP;
    for (const auto &l : lines) {
      Command cmd = test::parse_line("-A " + name + " " + l);
      cmd.rules[0].loc.line = line++;
      c.rules.push_back(cmd.rules[0]);
    }
    p.chains.push_back(std::move(c));
  }
  return nft::build_batch(p, Family::ipv4);
}

// Each object message of `b`: "TYPE FLAGS" with the type's name.
std::vector<std::string> kinds(const nft::Batch &b) {
  std::vector<std::string> out;
  b.each_message([&](std::string_view m, size_t) {
    const auto *h = reinterpret_cast<const nlmsghdr *>(m.data());
    const uint16_t t = h->nlmsg_type & 0xff;
    std::string k = t == NFT_MSG_NEWTABLE   ? "newtable"
                    : t == NFT_MSG_NEWCHAIN ? "newchain"
                    : t == NFT_MSG_DELCHAIN ? "delchain"
                    : t == NFT_MSG_NEWRULE  ? "newrule"
                    : t == NFT_MSG_DELRULE  ? "delrule"
                                            : "other";
    if (t == NFT_MSG_NEWRULE)
      k += h->nlmsg_flags & NLM_F_REPLACE  ? " replace"
           : h->nlmsg_flags & NLM_F_APPEND ? " append"
                                           : " insert";
    out.push_back(k);
  });
  return out;
}

} // namespace

TEST_CASE("table delta: a replacement read back as the desired table",
          "[table_delta]") {
  auto b = replacement({"-p tcp --dport 22 -j ACCEPT", "-j web"},
                       {"-s 10.0.0.1 -j DROP"});
  auto want = nft::desired_table(*b);
  REQUIRE(want);
  REQUIRE(want->state.chains.size() == 2);
  const StateChain &input = want->state.chains[0];
  CHECK(input.name == "INPUT");
  CHECK(input.base);
  CHECK(input.has_policy);
  CHECK(input.policy == uint32_t(NF_DROP));
  REQUIRE(input.rules.size() == 2);
  CHECK(want->rule_lines[0] == std::vector<int>{10, 11});
  CHECK(want->state.chains[1].name == "web");
  CHECK_FALSE(want->state.chains[1].base);
  // Chains, then rules, in batch order: what the kernel numbers.
  REQUIRE(want->allocations.size() == 5);
  CHECK(want->allocations[0].rule == SIZE_MAX);
  CHECK(want->allocations[2].chain == 0);
  CHECK(want->allocations[2].rule == 0);

  // The same rule has the same key; another rule, or the same rule with a
  // comment, another.
  auto again = nft::desired_table(*replacement(
      {"-p tcp --dport 22 -j ACCEPT", "-j web"}, {"-s 10.0.0.1 -j DROP"}));
  CHECK(again->state.chains[0].rules[0].key == input.rules[0].key);
  auto other = nft::desired_table(*replacement(
      {"-p tcp --dport 22 -m comment --comment x -j ACCEPT", "-j web"},
      {"-s 10.0.0.2 -j DROP"}));
  CHECK(other->state.chains[0].rules[0].key != input.rules[0].key);
  CHECK(other->state.chains[0].rules[1].key == input.rules[1].key);
  CHECK(other->state.chains[1].rules[0].key !=
        want->state.chains[1].rules[0].key);
}

TEST_CASE("table delta: the delta as copies of the replacement's messages",
          "[table_delta]") {
  auto old_batch = replacement({"-p tcp --dport 22 -j ACCEPT", "-j web"},
                               {"-s 10.0.0.1 -j DROP"});
  auto old_want = nft::desired_table(*old_batch);
  REQUIRE(old_want);
  // The kernel holds the old table, handles 100, 101, ... per chain.
  TableState kernel = old_want->state;
  for (size_t c = 0; c < kernel.chains.size(); ++c)
    for (size_t r = 0; r < kernel.chains[c].rules.size(); ++r)
      kernel.chains[c].rules[r].handle = 100 * (c + 1) + r;
  kernel.chains[0].policy = NF_ACCEPT;

  // New: a rule before the jump, web's rule changed, INPUT drops.
  auto b = replacement(
      {"-p tcp --dport 22 -j ACCEPT", "-s 192.0.2.1 -j DROP", "-j web"},
      {"-s 10.0.0.2 -j DROP"});
  auto want = nft::desired_table(*b);
  REQUIRE(want);
  auto delta = plan_delta(want->state, kernel, false);
  REQUIRE(delta);
  nft::Batch out(Family::ipv4);
  auto made = nft::write_delta(out, *delta, *want, *b, kernel, "filter",
                               Family::ipv4, Location{1, 0, 0});
  out.finish();
  const std::vector<std::string> want_kinds = {
      "newtable", "newchain", "newrule insert", "newrule replace"};
  CHECK(kinds(out) == want_kinds);
  CHECK(delta->kept_handles[0] == std::vector<uint64_t>{100, 0, 101});
  CHECK(delta->kept_handles[1] == std::vector<uint64_t>{200});
  // Only the inserted rule is numbered by the kernel; the copies name the
  // lines they came from.
  REQUIRE(made.size() == 1);
  CHECK(made[0].chain == 0);
  CHECK(made[0].rule == 1);
  CHECK(out.location(made[0].message).line == 11);
}

TEST_CASE("table delta: what a replacement batch cannot say", "[table_delta]") {
  // A --noflush batch (no table deletion) is not a replacement.
  Plan p = test::one_rule_plan();
  p.replace = false;
  Op op{OpKind::rule_append, Location{3, 0, 0}, {}, p.chains[0].rules[0]};
  op.chain.name = "INPUT";
  p.ops.push_back(op);
  CHECK_FALSE(nft::desired_table(*nft::build_batch(p, Family::ipv4)));
}
