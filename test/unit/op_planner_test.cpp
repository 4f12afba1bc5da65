// OpPlanner entry by entry, as the restore streams a block: the replace
// path (what it plans itself, what it leaves to the whole-block model),
// the --noflush checks against a kernel it reaches only through
// KernelAccess, and the transaction ids it hands out above its base.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include "fastrestore/plan.h"
#include "fastrestore/tables.h"
#include "helpers.h"

using namespace fastrestore;

namespace {

Block::Entry decl(const std::string &name, const std::string &policy,
                  int line) {
  ChainDecl d;
  d.loc.line = line;
  d.name = name;
  d.policy = policy;
  d.builtin = find_builtin_chain(*find_builtin_table("filter"), name);
  return {d, std::nullopt};
}

Block::Entry cmd(const std::string &line, int n) {
  Command c = test::parse_line(line);
  c.loc.line = n;
  for (auto &r : c.rules)
    r.loc.line = n;
  return {std::nullopt, c};
}

// A kernel whose filter table has INPUT, FORWARD, OUTPUT and `user`.
KernelAccess kernel_with(const std::string &user, int *reads = nullptr) {
  KernelChain c;
  c.name = user;
  return test::kernel_with(c, reads);
}

std::string refusal(OpPlanner &p, Block::Entry e) {
  std::vector<Op> out;
  try {
    p.add(std::move(e), out);
  } catch (const Error &err) {
    return err.diag().message;
  }
  return "";
}

} // namespace

TEST_CASE("OpPlanner replace: declarations and appends planned in order",
          "[op_planner]") {
  OpPlanner p("filter", false, false);
  std::vector<Op> out;
  REQUIRE(p.add(decl("INPUT", "DROP", 2), out));
  REQUIRE(p.add(decl("mine", "-", 3), out));
  REQUIRE(p.add(cmd("-A mine -s 192.0.2.1 -j ACCEPT", 4), out));
  REQUIRE(p.add(cmd("-I INPUT 1 -j mine", 5), out));
  REQUIRE(out.size() == 4);
  CHECK(out[0].kind == OpKind::chain_update);
  CHECK(out[0].chain.policy == uint32_t(NF_DROP));
  CHECK(out[1].kind == OpKind::chain_create);
  CHECK(out[2].kind == OpKind::rule_append);
  CHECK(out[2].chain.name == "mine");
  CHECK(out[3].kind == OpKind::rule_insert);
  // A replaced table's rules need no transaction ids.
  CHECK(out[2].id == 0);
}

TEST_CASE("OpPlanner replace: positional commands need the whole-block model",
          "[op_planner]") {
  for (const char *line : {"-I INPUT 2 -j ACCEPT", "-D INPUT 1",
                           "-R INPUT 1 -j ACCEPT", "-E mine other"}) {
    OpPlanner p("filter", false, false);
    std::vector<Op> out;
    REQUIRE(p.add(decl("mine", "-", 2), out));
    REQUIRE(p.add(cmd("-A INPUT -j ACCEPT", 3), out));
    CHECK_FALSE(p.add(cmd(line, 4), out));
  }
}

TEST_CASE("OpPlanner replace: a declared chain again is flushed",
          "[op_planner]") {
  OpPlanner p("filter", false, false);
  std::vector<Op> out;
  REQUIRE(p.add(decl("mine", "-", 2), out));
  REQUIRE(p.add(decl("mine", "-", 3), out));
  REQUIRE(out.size() == 2);
  CHECK(out[1].kind == OpKind::chain_flush);
}

TEST_CASE("OpPlanner replace: a jump to an undeclared chain is refused",
          "[op_planner]") {
  OpPlanner p("filter", false, false);
  CHECK(refusal(p, cmd("-A INPUT -j nochain", 2)) ==
        "Chain 'nochain' does not exist");
}

TEST_CASE("OpPlanner --noflush: ids above the base, chains asked once",
          "[op_planner]") {
  int reads = 0;
  OpPlanner p("filter", true, false, kernel_with("keep", &reads), Family::ipv4,
              5000);
  std::vector<Op> out;
  REQUIRE(p.add(cmd("-A keep -s 192.0.2.1 -j ACCEPT", 2), out));
  REQUIRE(p.add(cmd("-A INPUT -j keep", 3), out));
  REQUIRE(out.size() >= 2);
  uint32_t last = 5000;
  for (const Op &op : out)
    if (op.kind == OpKind::rule_append) {
      CHECK(op.id > last);
      last = op.id;
    }
  CHECK(last > 5000);
}

TEST_CASE("OpPlanner --noflush: the kernel's missing chains are refused",
          "[op_planner]") {
  OpPlanner p("filter", true, false, kernel_with("keep"));
  CHECK(refusal(p, cmd("-A nochain -j ACCEPT", 2)) ==
        "No chain/target/match by that name.");
  OpPlanner q("filter", true, false, kernel_with("keep"));
  CHECK(refusal(q, cmd("-A INPUT -j nochain", 2)) ==
        "Chain 'nochain' does not exist");
  // -R checks its jump as -A does.
  OpPlanner r("filter", true, false, kernel_with("keep"));
  CHECK(refusal(r, cmd("-R INPUT 1 -j nochain", 2)) ==
        "Chain 'nochain' does not exist");
}
