#include <catch2/catch.hpp>

#include <linux/netfilter.h>

#include "check/plan.h"
#include "helpers.h"

using namespace fastrestore;

namespace {

// A base chain the kernel holds, policy accept, with the rules' handles.
KernelChain base_chain(const std::string &name, uint64_t handle,
                       std::vector<uint64_t> rules) {
  KernelChain c;
  c.name = name;
  c.handle = handle;
  c.base = true;
  c.rules = std::move(rules);
  return c;
}

Block block(const std::string &table, std::vector<std::string> lines) {
  Block b;
  b.table = table;
  int n = 1;
  for (const auto &l : lines) {
    ++n;
    if (l[0] == ':') {
      ChainDecl d;
      d.loc.line = n;
      auto sp = l.find(' ');
      d.name = l.substr(1, sp - 1);
      d.policy = l.substr(sp + 1);
      d.builtin = find_builtin_chain(*find_builtin_table(table), d.name);
      b.entries.push_back({d, std::nullopt});
    } else {
      Command c = test::parse_line(l, Family::ipv4, table);
      c.loc.line = n;
      for (auto &r : c.rules)
        r.loc.line = n;
      b.entries.push_back({std::nullopt, c});
    }
  }
  return b;
}

Diagnostic plan_error(const Block &b, bool noflush = false) {
  try {
    plan_block(b, noflush, false);
  } catch (const Error &e) {
    return e.diag();
  }
  return {};
}

// The same block planned entry by entry, as the restore does it.
Diagnostic stream_error(const Block &b) {
  OpPlanner planner(b.table, false, false);
  std::vector<Op> out;
  try {
    for (auto e : b.entries)
      planner.add(std::move(e), out);
  } catch (const Error &e) {
    return e.diag();
  }
  return {};
}

std::vector<std::string> chain_names(const Plan &p) {
  std::vector<std::string> out;
  for (const auto &c : p.chains)
    out.push_back(c.name);
  return out;
}

} // namespace

TEST_CASE("replace: chains in creation order, base chains on first use",
          "[planner]") {
  Plan p = plan_block(block("filter", {":zed -", ":INPUT DROP",
                                       "-A OUTPUT -j ACCEPT", "-A zed"}),
                      false, false);
  CHECK(p.replace);
  CHECK(chain_names(p) == std::vector<std::string>{"zed", "INPUT", "OUTPUT"});
  CHECK(p.chains[1].policy == uint32_t(NF_DROP));
  CHECK_FALSE(p.chains[2].policy); // created by use: kernel default
  CHECK(p.chains[0].rules.size() == 1);
}

TEST_CASE("replace: insert, delete, replace, rename work on the model",
          "[planner]") {
  Plan p = plan_block(
      block("filter", {":a -", "-A INPUT -s 1.1.1.1", "-A INPUT -s 2.2.2.2",
                       "-I INPUT 2 -s 3.3.3.3", "-D INPUT -s 1.1.1.1",
                       "-R INPUT 1 -s 4.4.4.4", "-A INPUT -j a", "-E a b"}),
      false, false);
  REQUIRE(p.chains.size() == 2);
  CHECK(p.chains[0].name == "b");
  const auto &rules = p.chains[1].rules;
  REQUIRE(rules.size() == 3);
  CHECK(rules[0].src[0] == 4);
  CHECK(rules[1].src[0] == 2);
  CHECK(rules[2].jump_chain == "b");
}

TEST_CASE("replace: errors as iptables-nft-restore reports them", "[planner]") {
  CHECK(plan_error(block("filter", {"-A nochain"})).message ==
        "No chain/target/match by that name.");
  auto jump = plan_error(block("filter", {"-A INPUT -j nochain"}));
  CHECK(jump.message == "Chain 'nochain' does not exist");
  CHECK(jump.code == ExitCode::parameter);
  CHECK(jump.loc.line == 2);
  CHECK(plan_error(block("filter", {":x -", "-N x"})).message ==
        "Chain already exists.");
  CHECK(plan_error(block("filter", {"-A INPUT", "-I INPUT 3"})).message ==
        "Index of insertion too big.");
  CHECK(plan_error(block("filter", {"-A INPUT", "-D INPUT 2"})).message ==
        "Index of deletion too big.");
  CHECK(plan_error(block("filter", {"-A INPUT", "-D INPUT -j DROP"}))
            .message.find("Bad rule") == 0);
  CHECK(plan_error(block("filter", {":x -", "-P x DROP"})).message ==
        "Bad built-in chain name.");
  auto busy = plan_error(block("filter", {":x -", "-A x", "-X x"}));
  CHECK(busy.code == ExitCode::kernel);
  CHECK(busy.loc.line == 4);
}

TEST_CASE("replace: -X without a chain removes user chains and idle base "
          "chains",
          "[planner]") {
  // As iptables-nft: empty base chains that accept go too.
  Plan p =
      plan_block(block("filter", {":INPUT ACCEPT", ":FORWARD DROP",
                                  ":OUTPUT ACCEPT", "-A OUTPUT", ":a -", "-X"}),
                 false, false);
  CHECK(chain_names(p) == std::vector<std::string>{"FORWARD", "OUTPUT"});
  CHECK(plan_error(block("filter", {"-A OUTPUT", "-X OUTPUT"})).message ==
        "Directory not empty.");
}

TEST_CASE("noflush: one operation per line", "[planner]") {
  Plan p = plan_block(block("filter", {":INPUT DROP", ":u -", "-A u -j DROP",
                                       "-I FORWARD -s 1.2.3.4", "-N v", "-F u",
                                       "-X v", "-P OUTPUT DROP"}),
                      true, false);
  CHECK_FALSE(p.replace);
  std::vector<OpKind> kinds;
  for (const auto &op : p.ops)
    kinds.push_back(op.kind);
  CHECK(kinds == std::vector<OpKind>{OpKind::chain_update,
                                     OpKind::chain_restore, OpKind::rule_append,
                                     OpKind::chain_update, // FORWARD exists
                                     OpKind::rule_insert, OpKind::chain_new,
                                     OpKind::chain_flush, OpKind::chain_delete,
                                     OpKind::chain_update});
}

TEST_CASE("noflush: positions refer to kernel handles and batch ids",
          "[planner]") {
  KernelTable kt;
  kt.exists = true;
  kt.chains.push_back(base_chain("INPUT", 1, {10, 11}));
  int reads = 0;
  auto read = [&]() -> const KernelTable & {
    ++reads;
    return kt;
  };
  Plan p = plan_block(
      block("filter", {"-A INPUT -s 1.1.1.1", "-I INPUT 2", "-D INPUT 1",
                       "-R INPUT 2 -s 2.2.2.2", "-R INPUT 3 -s 3.3.3.3"}),
      true, false, KernelAccess{read, {}, {}});
  CHECK(reads == 1);
  // Model: [10, 11, id1] -> [10, id2, 11, id1] -> [id2, 11, id1]
  //        -> -R 2 replaces handle 11 -> -R 3 replaces batch rule id1.
  std::vector<OpKind> kinds;
  for (const auto &op : p.ops)
    kinds.push_back(op.kind);
  REQUIRE(kinds ==
          std::vector<OpKind>{OpKind::chain_update, OpKind::rule_append,
                              OpKind::rule_insert_before, OpKind::rule_delete,
                              OpKind::rule_replace, OpKind::rule_delete,
                              OpKind::rule_append});
  CHECK(p.ops[2].ref.handle == 11);
  CHECK(p.ops[3].ref.handle == 10);
  CHECK(p.ops[4].ref.handle == 11);
  CHECK(p.ops[5].ref.id == p.ops[1].id);
  // Without access to the kernel a positional command is refused.
  CHECK(plan_error(block("filter", {"-D INPUT 1"}), true).code ==
        ExitCode::parameter);
}

TEST_CASE("noflush: index errors against the kernel's rules", "[planner]") {
  KernelTable kt;
  kt.exists = true;
  kt.chains.push_back(base_chain("INPUT", 1, {10}));
  auto read = [&]() -> const KernelTable & { return kt; };
  auto err = [&](std::vector<std::string> lines) {
    try {
      plan_block(block("filter", std::move(lines)), true, false,
                 KernelAccess{read, {}, {}});
    } catch (const Error &e) {
      return e.diag().message;
    }
    return std::string();
  };
  CHECK(err({"-D INPUT 2"}) == "Index of deletion too big.");
  CHECK(err({"-I INPUT 3"}) == "Index of insertion too big.");
  CHECK(err({"-R INPUT 2"}) == "Index of replacement too big.");
  CHECK(err({"-D nochain 1"}) == "No chain/target/match by that name.");
  // -X of a built-in chain: iptables-nft keeps one whose policy is not
  // ACCEPT; one that holds rules it sends, for the kernel to refuse.
  CHECK(err({"-P INPUT DROP", "-X INPUT"}) == "Directory not empty.");
  CHECK(err({"-A INPUT", "-X INPUT"}).empty());
  CHECK(err({"-D INPUT -j ACCEPT"}).find("contents of the kernel's rules") !=
        std::string::npos);
}

TEST_CASE("replace: checks iptables-nft makes as it carries out the block",
          "[planner]") {
  for (bool streamed : {false, true}) {
    auto err = [&](std::vector<std::string> lines) {
      return streamed ? stream_error(block("filter", lines))
                      : plan_error(block("filter", lines));
    };
    auto policy = err({":INPUT MAYBE"});
    CHECK(policy.code == ExitCode::format);
    CHECK(policy.message == "Bad policy name `MAYBE'.");
    // A jump must name a chain made before the rule.
    auto later = err({"-A INPUT -j x", ":x -"});
    CHECK(later.message == "Chain 'x' does not exist");
    CHECK(later.code == ExitCode::parameter);
    // ... and is checked before the rule's own chain.
    CHECK(err({"-A nochain -j x"}).message == "Chain 'x' does not exist");
  }
  // (-D takes the whole-block model.)
  CHECK(plan_error(block("filter", {"-A INPUT", "-D INPUT -j x"})).message ==
        "Chain 'x' does not exist");
  auto rename = plan_error(block("filter", {":x -", "-E x DROP"}));
  CHECK(rename.code == ExitCode::kernel);
  CHECK(rename.loc.line == 3);
}
