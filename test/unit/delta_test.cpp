// The incremental restore's delta (delta.h) without a kernel: which
// kernel rules and chains stay, and the operations, in batch order, that
// make the rest.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include <functional>
#include <string>
#include <vector>

#include "check/delta.h"
#include "fastrestore/tables.h"

using namespace fastrestore;

namespace {

const BuiltinTable &filter() {
  return *find_builtin_table("filter", Family::ipv4);
}

// Rules named by a letter: key 'a', 'b', ...
StateRule rule(const std::string &id, uint64_t handle = 0) {
  StateRule r;
  r.key = std::hash<std::string>()(id);
  r.handle = handle;
  return r;
}

struct Table {
  TableState want_state, kernel;
  std::vector<std::vector<std::string>> names; // the desired rules' names

  StateChain chain(const std::string &name) {
    StateChain c;
    c.name = name;
    if (const BuiltinChain *b = find_builtin_chain(filter(), name)) {
      c.base = true;
      c.hook = b->hook;
      c.prio = b->prio;
      c.type = b->type;
    }
    return c;
  }

  // A desired chain with rules `ids` (a base chain when the table has one
  // of that name).
  void want(const std::string &name, std::vector<std::string> rule_ids,
            std::optional<uint32_t> policy = std::nullopt) {
    StateChain c = chain(name);
    if (policy) {
      c.has_policy = true;
      c.policy = *policy;
    }
    for (const auto &id : rule_ids)
      c.rules.push_back(rule(id));
    want_state.chains.push_back(std::move(c));
    names.push_back(std::move(rule_ids));
  }

  // A kernel chain whose rules have handles 100, 101, ... in order.
  void have(const std::string &name, std::vector<std::string> rule_ids,
            uint32_t policy = NF_ACCEPT) {
    StateChain c = chain(name);
    if (c.base) {
      c.has_policy = true;
      c.policy = policy;
    }
    c.counters = true;
    for (size_t i = 0; i < rule_ids.size(); ++i) {
      c.rules.push_back(
          rule(rule_ids[i], 100 * (kernel.chains.size() + 1) + i));
      c.rules.back().counters = true;
    }
    kernel.chains.push_back(std::move(c));
  }

  std::optional<Delta> delta(bool counters = false) {
    return plan_delta(want_state, kernel, counters);
  }

  // The operations as lines: "KIND CHAIN [rule] [@handle]".
  std::vector<std::string> lines(const Delta &d) const {
    std::vector<std::string> out;
    for (const DeltaOp &op : d.ops) {
      std::string l;
      bool kernel_chain = false, with_rule = false;
      switch (op.kind) {
      case DeltaKind::chain_update:
        l = "update";
        break;
      case DeltaKind::chain_create:
        l = "create";
        break;
      case DeltaKind::chain_delete:
        l = "delete-chain";
        kernel_chain = true;
        break;
      case DeltaKind::chain_flush:
        l = "flush";
        kernel_chain = true;
        break;
      case DeltaKind::rule_append:
        l = "append";
        with_rule = true;
        break;
      case DeltaKind::rule_insert_before:
        l = "insert";
        with_rule = true;
        break;
      case DeltaKind::rule_delete:
        l = "delete";
        break;
      case DeltaKind::rule_replace:
        l = "replace";
        with_rule = true;
        break;
      }
      l += " " + (kernel_chain ? kernel.chains[op.chain].name
                               : want_state.chains[op.chain].name);
      if (with_rule)
        l += " " + names[op.chain][op.rule];
      if (op.handle != 0)
        l += " @" + std::to_string(op.handle);
      out.push_back(l);
    }
    return out;
  }
};

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
  // Between a and b, old's place goes to x (replaced in place); the last
  // ones at the end, in order.
  const std::vector<std::string> want = {"replace INPUT x @101",
                                         "append INPUT y", "append INPUT z"};
  CHECK(t.lines(*d) == want);
  CHECK(d->chains[0].kept == 2);
  CHECK(d->chains[0].added == 3);
  CHECK(d->chains[0].removed == 1);
}

TEST_CASE("delta: more rules go than come, or the other way round", "[delta]") {
  Table t;
  t.want("INPUT", {"a", "x", "b", "y1", "y2", "y3"});
  t.have("INPUT", {"a", "o1", "o2", "o3", "b", "o4"});
  auto d = t.delta();
  REQUIRE(d);
  const std::vector<std::string> want = {
      "delete INPUT @102",     "delete INPUT @103", "replace INPUT x @101",
      "replace INPUT y1 @105", "append INPUT y2",   "append INPUT y3"};
  CHECK(t.lines(*d) == want);
  CHECK(d->kept_handles == std::vector<uint64_t>{100, 101, 104, 105, 0, 0});
  CHECK(d->chains[0].added == 4);
  CHECK(d->chains[0].removed == 4);
}

TEST_CASE("delta: a move keeps the longest run in order", "[delta]") {
  Table t;
  t.want("INPUT", {"b", "c", "d", "a"});
  t.have("INPUT", {"a", "b", "c", "d"});
  auto d = t.delta();
  REQUIRE(d);
  const std::vector<std::string> want = {"delete INPUT @100", "append INPUT a"};
  CHECK(t.lines(*d) == want);
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
  CHECK(t.lines(*d) == want);
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
  // `new` exists before the jump to it; `old` goes once the jump to it is
  // replaced.
  const std::vector<std::string> want = {
      "flush old", "create new", "replace INPUT new @100", "delete-chain old",
      "delete-chain OUTPUT"};
  CHECK(d->kept_handles == std::vector<uint64_t>{100});
  CHECK(t.lines(*d) == want);
}

TEST_CASE("delta: a base chain's policy as planned", "[delta]") {
  Table t;
  t.want("INPUT", {}, NF_DROP);
  t.want("FORWARD", {}); // no policy given: ACCEPT, as a new chain has
  t.have("INPUT", {}, NF_ACCEPT);
  t.have("FORWARD", {}, NF_DROP);
  auto d = t.delta();
  REQUIRE(d);
  // Both differ: INPUT wants DROP, FORWARD the ACCEPT of no policy.
  const std::vector<std::string> want = {"update INPUT", "update FORWARD"};
  CHECK(t.lines(*d) == want);
  t.kernel.chains[1].policy = NF_ACCEPT;
  CHECK(t.lines(*t.delta()) == std::vector<std::string>{"update INPUT"});
}

TEST_CASE("delta: counters given with -c replace a kept rule's", "[delta]") {
  Table t;
  t.want("INPUT", {"a", "b"});
  t.have("INPUT", {"a", "b"});
  t.kernel.chains[0].rules[0].packets = 5;
  t.want_state.chains[0].rules[0].counters = true; // a's line: [0:0]
  // b's line gives none: b keeps its own.
  t.kernel.chains[0].rules[1].packets = 9;
  CHECK(t.delta(false)->ops.empty());
  const std::vector<std::string> want = {"replace INPUT a @100"};
  CHECK(t.lines(*t.delta(true)) == want);
  // Kernel counters not known (a journal): the line's are set.
  t.want_state.chains[0].rules[0].packets = 5;
  CHECK(t.delta(true)->ops.empty());
  t.kernel.chains[0].rules[0].counters = false;
  CHECK(t.lines(*t.delta(true)) == want);
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

TEST_CASE("delta: a rule the kernel settles is made again, never kept",
          "[delta]") {
  Table t;
  t.want("INPUT", {"a", "cg", "b"});
  t.want_state.chains[0].rules[1].made_again = true;
  t.have("INPUT", {"a", "cg", "b"});
  auto d = t.delta();
  REQUIRE(d);
  const std::vector<std::string> want = {"replace INPUT cg @101"};
  CHECK(t.lines(*d) == want);
  CHECK(d->chains[0].kept == 2);
  CHECK(d->chains[0].added == 1);
  CHECK(d->chains[0].removed == 1);
}
