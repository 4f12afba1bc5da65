// ebtables-nft's policy rule (bridge_policy.h): the marker the encoder
// writes is the one the decoder reads, what the decoder refuses, and how
// the --noflush planner keeps a bridge user chain's policy rule last.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include <algorithm>
#include <cstring>

#include "check/bridge_policy.h"
#include "check/plan.h"
#include "helpers.h"
#include "nft/nft_rule.h"

using namespace fastrestore;

namespace {

std::string policy_message(Verdict v, bool marked = true) {
  Rule r;
  r.verdict = v;
  r.eb.policy_rule = marked;
  return nft::rule_message(r, Family::bridge, "filter", "mine");
}

std::optional<uint32_t> verdict_of(const std::string &msg) {
  return nft::eb_policy_verdict(reinterpret_cast<const nlmsghdr *>(msg.data()));
}

// Where the marker lies in an encoded message.
size_t marker_at(const std::string &msg) {
  const std::string m(reinterpret_cast<const char *>(nft::kEbPolicyUserData),
                      sizeof(nft::kEbPolicyUserData));
  return msg.find(m);
}

Command append(const std::string &chain, Verdict v, int line) {
  Command c;
  c.kind = CommandKind::append;
  c.chain = chain;
  c.loc.line = line;
  Rule r;
  r.loc.line = line;
  r.verdict = v;
  c.rules.push_back(r);
  return c;
}

// A bridge filter table whose user chain `mine` ends in a DROP policy rule
// (handle 7) after one ordinary rule (handle 6).
KernelAccess bridge_kernel() {
  KernelChain c;
  c.name = "mine";
  c.handle = 3;
  c.rules = {6, 7};
  c.messages = {policy_message(Verdict::accept, false),
                policy_message(Verdict::drop)};
  c.eb_policy = NF_DROP; // as the reader decodes the last message
  return test::kernel_with(c);
}

} // namespace

TEST_CASE("eb policy rule: the encoder's marker is what the decoder reads",
          "[eb_policy]") {
  const std::string accept = policy_message(Verdict::accept);
  CHECK(marker_at(accept) != std::string::npos);
  CHECK(verdict_of(accept) == uint32_t(NF_ACCEPT));
  CHECK(verdict_of(policy_message(Verdict::drop)) == uint32_t(NF_DROP));
}

TEST_CASE("eb policy rule: other rules are not policy rules", "[eb_policy]") {
  // No marker.
  CHECK(!verdict_of(policy_message(Verdict::accept, false)));
  // Marked, but not ACCEPT or DROP.
  CHECK(!verdict_of(policy_message(Verdict::ret)));
  // The marker's value is not 1.
  std::string msg = policy_message(Verdict::accept);
  size_t at = marker_at(msg);
  REQUIRE(at != std::string::npos);
  msg[at + 2] = 2;
  CHECK(!verdict_of(msg));
  // A TLV longer than the user data fails the whole parse.
  msg = policy_message(Verdict::accept);
  msg[at + 1] = 5;
  CHECK(!verdict_of(msg));
}

TEST_CASE("eb policy rule: --noflush appends go before the policy rule",
          "[eb_policy]") {
  OpPlanner p("filter", true, false, bridge_kernel(), Family::bridge);
  std::vector<Op> out;
  REQUIRE(p.add({std::nullopt, append("mine", Verdict::accept, 2)}, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == OpKind::rule_insert_before);
  CHECK(out[0].ref.handle == 7);
  // A built-in chain has its policy in the chain: a plain append.
  out.clear();
  REQUIRE(p.add({std::nullopt, append("INPUT", Verdict::drop, 3)}, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == OpKind::rule_append);
}

TEST_CASE("eb policy rule: -F keeps it, -X deletes it first", "[eb_policy]") {
  OpPlanner p("filter", true, false, bridge_kernel(), Family::bridge);
  std::vector<Op> out;
  Command flush;
  flush.kind = CommandKind::flush;
  flush.chain = "mine";
  flush.loc.line = 2;
  REQUIRE(p.add({std::nullopt, flush}, out));
  auto again = std::find_if(out.begin(), out.end(), [](const Op &op) {
    return op.kind == OpKind::rule_append;
  });
  REQUIRE(again != out.end());
  CHECK(again->rule.eb.policy_rule);
  CHECK(again->rule.verdict == Verdict::drop);

  OpPlanner q("filter", true, false, bridge_kernel(), Family::bridge);
  out.clear();
  Command del;
  del.kind = CommandKind::delete_chain;
  del.chain = "mine";
  del.loc.line = 2;
  REQUIRE(q.add({std::nullopt, del}, out));
  REQUIRE(out.size() >= 2);
  CHECK(out[0].kind == OpKind::rule_delete);
  CHECK(out[0].ref.handle == 7);
  CHECK(out.back().kind == OpKind::chain_delete);
}
