// The incremental restore's delta (delta.h) without a kernel: which
// kernel rules and chains stay, and the operations, in batch order, that
// make the rest.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include <string>
#include <vector>

#include "fastrestore/delta.h"
#include "fastrestore/tables.h"

using namespace fastrestore;

namespace {

const BuiltinTable &filter() {
  return *find_builtin_table("filter", Family::ipv4);
}

// Rules named by their identity: "a", "b", ... (a rule's target is its
// name, so an operation shows which rule it carries).
Rule rule(const std::string &id) {
  Rule r;
  r.verdict = Verdict::jump;
  r.jump_chain = id;
  return r;
}

struct Table {
  Plan plan;
  std::vector<std::vector<std::string>> ids;
  KernelTable kernel;
  KernelRules rules;

  // A planned chain with rules `ids` (a base chain when the table has one
  // of that name).
  void want(const std::string &name, std::vector<std::string> rule_ids,
            std::optional<uint32_t> policy = std::nullopt) {
    PlannedChain c;
    c.name = name;
    c.builtin = find_builtin_chain(filter(), name);
    c.policy = policy;
    for (const auto &id : rule_ids)
      c.rules.push_back(rule(id));
    plan.chains.push_back(std::move(c));
    ids.push_back(std::move(rule_ids));
  }

  // A kernel chain whose rules have handles 100, 101, ... in order.
  void have(const std::string &name, std::vector<std::string> rule_ids,
            uint32_t policy = NF_ACCEPT) {
    KernelChain c;
    c.name = name;
    c.handle = kernel.chains.size() + 1;
    if (const BuiltinChain *b = find_builtin_chain(filter(), name)) {
      c.base = true;
      c.hook = b->hook;
      c.prio = b->prio;
      c.type = b->type;
      c.has_policy = true;
      c.policy = policy;
    }
    auto &entries = rules.rules.emplace_back();
    for (size_t i = 0; i < rule_ids.size(); ++i) {
      c.rules.push_back(100 * (kernel.chains.size() + 1) + i);
      entries.push_back({rule_ids[i], 0, 0});
    }
    kernel.chains.push_back(std::move(c));
  }

  std::optional<Delta> delta(bool counters = false) {
    kernel.exists = true;
    rules.table = &kernel;
    return plan_delta(plan, ids, rules, counters);
  }
};

// The operations as lines: "KIND CHAIN [rule] [ref handle]".
std::vector<std::string> lines(const Delta &d) {
  std::vector<std::string> out;
  for (const Op &op : d.ops) {
    std::string l;
    switch (op.kind) {
    case OpKind::chain_update:
      l = "update";
      break;
    case OpKind::chain_create:
      l = "create";
      break;
    case OpKind::chain_delete:
      l = "delete-chain";
      break;
    case OpKind::chain_flush:
      l = "flush";
      break;
    case OpKind::rule_append:
      l = "append";
      break;
    case OpKind::rule_insert_before:
      l = "insert";
      break;
    case OpKind::rule_delete:
      l = "delete";
      break;
    case OpKind::rule_replace:
      l = "replace";
      break;
    default:
      l = "other";
    }
    l += " " + op.chain.name;
    if (!op.rule.jump_chain.empty())
      l += " " + op.rule.jump_chain;
    if (op.ref.handle != 0)
      l += " @" + std::to_string(op.ref.handle);
    out.push_back(l);
  }
  return out;
}

} // namespace

TEST_CASE("delta: the same table sends nothing", "[delta]") {
  Table t;
  t.want("INPUT", {"a", "b"});
  t.want("web", {"c"});
  t.have("INPUT", {"a", "b"});
  t.have("web", {"c"});
  auto d = t.delta();
  REQUIRE(d);
  CHECK(d->ops.empty());
  REQUIRE(d->chains.size() == 2);
  CHECK(d->chains[0].kept == 2);
  CHECK(d->chains[1].kept == 1);
}

TEST_CASE("delta: rules added in the middle and at the end, one removed",
          "[delta]") {
  Table t;
  t.want("INPUT", {"a", "x", "b", "y", "z"});
  t.have("INPUT", {"a", "old", "b"});
  auto d = t.delta();
  REQUIRE(d);
  // Removals first; a new rule goes before the next kept rule, the last
  // ones at the end, in order.
  const std::vector<std::string> want = {"delete INPUT @101",
                                         "insert INPUT x @102",
                                         "append INPUT y", "append INPUT z"};
  CHECK(lines(*d) == want);
  CHECK(d->chains[0].kept == 2);
  CHECK(d->chains[0].added == 3);
  CHECK(d->chains[0].removed == 1);
}

TEST_CASE("delta: a move keeps the longest run in order", "[delta]") {
  Table t;
  t.want("INPUT", {"b", "c", "d", "a"});
  t.have("INPUT", {"a", "b", "c", "d"});
  auto d = t.delta();
  REQUIRE(d);
  const std::vector<std::string> want = {"delete INPUT @100", "append INPUT a"};
  CHECK(lines(*d) == want);
}

TEST_CASE("delta: duplicate rules pair in order", "[delta]") {
  Table t;
  t.want("INPUT", {"a", "a", "b"});
  t.have("INPUT", {"a", "b", "a"});
  auto d = t.delta();
  REQUIRE(d);
  // The first two kernel rules stay (a, b); the third goes; an a comes in
  // before b.
  const std::vector<std::string> want = {"delete INPUT @102",
                                         "insert INPUT a @101"};
  CHECK(lines(*d) == want);
}

TEST_CASE("delta: chains made, emptied and deleted, in a safe order",
          "[delta]") {
  Table t;
  t.want("INPUT", {"new"});
  t.want("new", {});
  t.have("INPUT", {"old"});
  t.have("old", {"r"});
  t.have("OUTPUT", {});
  auto d = t.delta();
  REQUIRE(d);
  // The jump to `old` goes before `old` does; `new` exists before the
  // jump to it.
  const std::vector<std::string> want = {
      "flush old",           "delete INPUT @100", "delete-chain old",
      "delete-chain OUTPUT", "create new",        "append INPUT new"};
  CHECK(lines(*d) == want);
  CHECK(d->ops[2].chain_handle == 2); // by handle
}

TEST_CASE("delta: a base chain's policy as planned", "[delta]") {
  Table t;
  t.want("INPUT", {}, NF_DROP);
  t.want("FORWARD", {}); // no policy given: ACCEPT, as a new chain has
  t.have("INPUT", {}, NF_ACCEPT);
  t.have("FORWARD", {}, NF_DROP);
  auto d = t.delta();
  REQUIRE(d);
  REQUIRE(d->ops.size() == 2);
  CHECK(d->ops[0].kind == OpKind::chain_update);
  CHECK(d->ops[0].chain.policy == uint32_t(NF_DROP));
  CHECK(d->ops[1].chain.policy == uint32_t(NF_ACCEPT));
}

TEST_CASE("delta: counters given with -c replace a kept rule's", "[delta]") {
  Table t;
  t.want("INPUT", {"a", "b"});
  t.have("INPUT", {"a", "b"});
  t.rules.rules[0][0].packets = 5;
  t.plan.chains[0].rules[0].counters_set = true; // a's line: [0:0]
  // b's line gives none: b keeps its own.
  t.rules.rules[0][1].packets = 9;
  CHECK(t.delta(false)->ops.empty());
  const std::vector<std::string> want = {"replace INPUT a @100"};
  CHECK(lines(*t.delta(true)) == want);
}

TEST_CASE("delta: what it cannot keep, it leaves to a replacement", "[delta]") {
  Table user_for_base;
  user_for_base.want("web", {});
  user_for_base.have("web", {});
  user_for_base.kernel.chains[0].base = true; // the kernel's is hooked
  CHECK_FALSE(user_for_base.delta());

  Table other_priority;
  other_priority.want("INPUT", {});
  other_priority.have("INPUT", {});
  other_priority.kernel.chains[0].prio = 10;
  CHECK_FALSE(other_priority.delta());
}
