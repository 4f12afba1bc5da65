// OpPlanner entry by entry, as the restore streams a block: the replace
// path (what it plans itself, what it leaves to the whole-block model),
// the --noflush checks against a kernel it reaches only through
// KernelAccess, and the transaction ids it hands out above its base.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include <memory>

#include "check/plan.h"
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

namespace {

// A kernel's filter table: INPUT with rules 1 and 2, FORWARD, OUTPUT,
// and user chains keep (rules 10 and 11) and other (rule 20).
KernelTable small_table() {
  KernelTable t;
  t.name = "filter";
  t.exists = true;
  auto chain = [&](const char *name, bool base, uint64_t handle,
                   std::vector<uint64_t> rules) {
    KernelChain c;
    c.name = name;
    c.base = base;
    c.handle = handle;
    c.rules = std::move(rules);
    t.chains.push_back(std::move(c));
  };
  chain("INPUT", true, 1, {1, 2});
  chain("FORWARD", true, 2, {});
  chain("OUTPUT", true, 3, {});
  chain("keep", false, 4, {10, 11});
  chain("other", false, 5, {20});
  return t;
}

struct Reads {
  int whole = 0;
  std::vector<std::string> chains;
};

// The table above; with `by_chain`, also read a chain at a time.
KernelAccess small_kernel(Reads &reads, bool by_chain) {
  KernelAccess k;
  k.read = [&reads, table = std::make_shared<KernelTable>(
                        small_table())]() -> const KernelTable & {
    ++reads.whole;
    return *table;
  };
  if (by_chain)
    k.read_chains = [&reads](const std::vector<std::string> &names) {
      KernelTable all = small_table(), some = all;
      some.chains.clear();
      for (const auto &n : names) {
        reads.chains.push_back(n);
        for (const auto &c : all.chains)
          if (c.name == n)
            some.chains.push_back(c);
      }
      return some;
    };
  k.chain_exists = [](const std::string &chain) {
    for (const auto &c : small_table().chains)
      if (c.name == chain)
        return true;
    return false;
  };
  return k;
}

// Plans `lines` with --noflush; each op as one line of text.
std::vector<std::string> noflush_ops(const std::vector<std::string> &lines,
                                     KernelAccess kernel) {
  OpPlanner p("filter", true, false, std::move(kernel));
  std::vector<std::string> shown;
  int n = 1;
  for (const auto &line : lines) {
    std::vector<Op> out;
    try {
      p.add(cmd(line, ++n), out);
    } catch (const Error &e) {
      shown.push_back("refused: " + e.diag().message);
      continue;
    }
    for (const Op &op : out)
      // (-X deletes a chain by handle when its rules were read, by name
      // otherwise: reading a chain at a time reads fewer.)
      shown.push_back(std::to_string(static_cast<int>(op.kind)) + " " +
                      op.chain.name + " ref " + std::to_string(op.ref.handle) +
                      "/" + std::to_string(op.ref.id) + " id " +
                      std::to_string(op.id) + " chain " +
                      (op.kind == OpKind::chain_delete
                           ? std::string("-")
                           : std::to_string(op.chain_handle)) +
                      " " + op.new_name);
  }
  return shown;
}

} // namespace

TEST_CASE("OpPlanner --noflush: a command on one chain reads that chain",
          "[op_planner]") {
  Reads reads;
  auto ops = noflush_ops(
      {"-D keep 2", "-I keep 2 -j ACCEPT", "-R keep 1 -j DROP", "-Z keep"},
      small_kernel(reads, true));
  CHECK(reads.whole == 0);
  CHECK(reads.chains == std::vector<std::string>{"keep"});
  REQUIRE(!ops.empty());
  CHECK(ops.front() == "9 keep ref 11/0 id 0 chain 0 ");
  // A command on every chain reads the table.
  Reads all;
  noflush_ops({"-D keep 1", "-F"}, small_kernel(all, true));
  CHECK(all.whole == 1);
  CHECK(all.chains == std::vector<std::string>{"keep"});
}

TEST_CASE("OpPlanner --noflush: reading a chain at a time plans as reading "
          "the table",
          "[op_planner]") {
  const std::vector<std::vector<std::string>> blocks = {
      {"-A keep -j ACCEPT", "-D keep 3", "-I keep 2 -j DROP", "-D keep 1"},
      {"-N fresh", "-A fresh -j ACCEPT", "-D fresh 1", "-X fresh", "-F"},
      {"-F keep", "-D keep 1", "-A keep -j DROP", "-R keep 1 -j ACCEPT",
       "-X other", "-N other", "-X"},
      {"-D INPUT 2", "-X keep", "-N keep", "-A keep -j ACCEPT", "-Z",
       "-E other renamed", "-D renamed 1", "-X"},
      {"-I INPUT 3 -j ACCEPT", "-I INPUT 4 -j ACCEPT", "-D INPUT 9",
       "-D nochain 1", "-Z INPUT", "-X INPUT", "-F INPUT", "-X INPUT",
       "-A INPUT -j ACCEPT", "-F"},
  };
  for (const auto &block : blocks) {
    Reads a, b;
    CAPTURE(block);
    CHECK(noflush_ops(block, small_kernel(a, true)) ==
          noflush_ops(block, small_kernel(b, false)));
  }
}
