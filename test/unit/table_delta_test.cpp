// The nf_tables side of the incremental restore without a kernel: a
// replacement batch read back as the desired table (desired_table), and a
// delta written as copies of its messages (write_delta).
#include <catch2/catch.hpp>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <string>
#include <vector>

#include "../../lib/incremental/table_delta.h"
#include "fastrestore/tables.h"
#include "helpers.h"
#include "nft/nft_backend.h"

using namespace fastrestore;

namespace {

// The input lines of `want`'s chain c's rules, in order.
std::vector<int> lines_of(const nft::DesiredTable &want, size_t c) {
  std::vector<int> out;
  for (const nft::RuleSource &s : want.rule_sources[c])
    out.push_back(s.line);
  return out;
}

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
  CHECK(lines_of(*want, 0) == std::vector<int>{10, 11});
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

TEST_CASE("table delta: chains declared by lines the batch lacks",
          "[table_delta]") {
  // INPUT made by the batch; web declared by a line taken unparsed (the
  // kernel has it), and a rule parsed into it.
  Plan p;
  p.table = "filter";
  p.loc.line = 1;
  p.replace = true;
  PlannedChain input;
  input.name = "INPUT";
  input.builtin = find_builtin_chain(*find_builtin_table("filter"), "INPUT");
  input.rules.push_back(test::parse_line("-A INPUT -j web").rules[0]);
  p.chains.push_back(input);
  Rule web_rule = test::parse_line("-A web -s 10.0.0.1 -j DROP").rules[0];
  web_rule.loc.line = 12;
  auto b = nft::build_batch(p, Family::ipv4, [&](nft::Batch &batch) {
    batch.add_rule(NLM_F_CREATE | NLM_F_APPEND, web_rule, Family::ipv4,
                   "filter", "web");
  });
  // Without the declaration the rule's chain is unknown.
  CHECK_FALSE(nft::desired_table(*b));
  auto want = nft::desired_table(*b, {"web"});
  REQUIRE(want);
  REQUIRE(want->state.chains.size() == 2);
  CHECK(want->state.chains[0].name == "web");
  CHECK_FALSE(want->state.chains[0].base);
  CHECK(want->chain_messages[0].empty());
  CHECK(want->chain_index[0] == SIZE_MAX);
  REQUIRE(want->state.chains[0].rules.size() == 1);
  CHECK(lines_of(*want, 0) == std::vector<int>{12});
  CHECK(want->state.chains[1].name == "INPUT");
  CHECK(want->state.chains[1].rules.size() == 1);
  // Only the batch's own chain is allocated by the batch.
  for (const auto &a : want->allocations)
    CHECK((a.chain != 0 || a.rule != SIZE_MAX));

  // A chain the batch makes after all (declared again, -N), or declared
  // twice: not a table desired_table can say.
  CHECK_FALSE(nft::desired_table(*replacement({"-j web"}, {}), {"web"}));
  CHECK_FALSE(nft::desired_table(*b, {"web", "web"}));
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
  // (INPUT's three rules, then web's one.)
  CHECK(delta->kept_handles == std::vector<uint64_t>{100, 0, 101, 200});
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

namespace {

// A --noflush batch of `ops` on the filter table.
std::unique_ptr<nft::Batch> commands(std::vector<Op> ops) {
  Plan p;
  p.table = "filter";
  p.loc.line = 1;
  p.ops = std::move(ops);
  return nft::build_batch(p, Family::ipv4);
}

Op chain_op(OpKind kind, const std::string &chain, int line) {
  Op op{kind, Location{line, 0, 0}, {}, {}};
  op.chain.name = chain;
  return op;
}

Op rule_op(OpKind kind, const std::string &chain, const std::string &rule,
           int line, uint32_t id) {
  Op op = chain_op(kind, chain, line);
  op.rule = test::parse_line("-A " + chain + " " + rule).rules[0];
  op.rule.loc.line = line;
  op.id = id;
  return op;
}

// The kernel's filter table: INPUT with two rules (handles 5, 6), web
// with one (7), an empty chain old, and x with one rule (9).
TableState kernel_filter() {
  TableState k;
  StateChain input;
  input.name = "INPUT";
  input.base = true;
  input.hook = NF_INET_LOCAL_IN;
  input.type = "filter";
  input.has_policy = true;
  input.policy = NF_DROP;
  input.rules = {StateRule{101, 5}, StateRule{102, 6}};
  StateChain web;
  web.name = "web";
  web.rules = {StateRule{103, 7}};
  StateChain old;
  old.name = "old";
  StateChain x;
  x.name = "x";
  x.rules = {StateRule{104, 9}};
  k.chains = {input, web, old, x};
  return k;
}

} // namespace

TEST_CASE("table delta: --noflush commands applied to the kernel's table",
          "[table_delta]") {
  const TableState kernel = kernel_filter();
  // :web - (made if missing, flushed), -A web, -A INPUT, -X old, -F x.
  auto b = commands({chain_op(OpKind::chain_restore, "web", 2),
                     rule_op(OpKind::rule_append, "web", "-j DROP", 3, 1),
                     rule_op(OpKind::rule_append, "INPUT", "-j web", 4, 2),
                     chain_op(OpKind::chain_delete, "old", 5),
                     chain_op(OpKind::chain_flush, "x", 6),
                     chain_op(OpKind::chain_new, "fresh", 7)});
  auto want = nft::noflush_table(*b, kernel);
  REQUIRE(want);
  const auto &chains = want->state.chains;
  REQUIRE(chains.size() == 4);
  CHECK(chains[0].name == "INPUT");
  CHECK(chains[0].has_policy);
  CHECK(chains[0].policy == NF_DROP);
  REQUIRE(chains[0].rules.size() == 3);
  // The kernel's rules keep keys and handles and carry no message.
  CHECK(chains[0].rules[0].key == 101);
  CHECK(chains[0].rules[1].handle == 6);
  CHECK(want->rule_sources[0][1].index == SIZE_MAX);
  CHECK(want->rule_sources[0][1].message.empty());
  CHECK(want->rule_sources[0][2].line == 4);
  CHECK_FALSE(want->rule_sources[0][2].message.empty());
  CHECK(chains[1].name == "web");
  REQUIRE(chains[1].rules.size() == 1);
  CHECK(want->rule_sources[1][0].line == 3);
  CHECK(chains[2].name == "x");
  CHECK(chains[2].rules.empty());
  CHECK(chains[3].name == "fresh");
  // The kernel chains it empties: web, old and x, not INPUT.
  const auto named = nft::noflush_chains(*b);
  std::vector<bool> emptied;
  for (const StateChain &c : kernel.chains)
    emptied.push_back(named.count(c.name) && named.at(c.name).emptied);
  CHECK(emptied == std::vector<bool>{false, true, true, true});
  // Sent again it would append to INPUT again (and -N fresh fails).
  CHECK_FALSE(want->repeatable);
  // What the kernel numbers: the new chain and the two rules, in order.
  REQUIRE(want->allocations.size() == 3);
  CHECK(want->allocations[0].rule == 0);
  CHECK(want->allocations[0].chain == 1);
  CHECK(want->allocations[1].chain == 0);
  CHECK(want->allocations[1].rule == 2);
  CHECK(want->allocations[2].rule == SIZE_MAX);

  // The delta from the kernel keeps INPUT's rules and sends the rest.
  auto delta = plan_delta(want->state, kernel, false);
  REQUIRE(delta);
  // (INPUT's rules come first.)
  REQUIRE(delta->kept_handles.size() >= 3);
  CHECK(std::vector<uint64_t>(delta->kept_handles.begin(),
                              delta->kept_handles.begin() + 3) ==
        std::vector<uint64_t>{5, 6, 0});
}

TEST_CASE("table delta: --noflush commands a delta does not take",
          "[table_delta]") {
  const TableState kernel = kernel_filter();
  auto none = [&](std::vector<Op> ops) {
    return !nft::noflush_table(*commands(std::move(ops)), kernel);
  };
  // A rule placed before a handle the table lacks, a chain made twice
  // with -N, a chain deleted with its rules, a rule deleted by a handle
  // the table lacks, a rename.
  Op before = rule_op(OpKind::rule_insert_before, "INPUT", "-j DROP", 2, 1);
  before.ref.handle = 8;
  CHECK(none({before}));
  CHECK(none({chain_op(OpKind::chain_new, "web", 2)}));
  CHECK(none({chain_op(OpKind::chain_delete, "web", 2)}));
  Op gone = chain_op(OpKind::rule_delete, "INPUT", 2);
  gone.ref.handle = 8;
  CHECK(none({gone}));
  Op rename = chain_op(OpKind::chain_rename, "web", 2);
  rename.chain_handle = 3;
  rename.new_name = "www";
  CHECK(none({rename}));
  CHECK(none({rule_op(OpKind::rule_append, "nosuch", "-j DROP", 2, 1)}));
  // A rule deleted by its handle, and one inserted at the head.
  Op del = chain_op(OpKind::rule_delete, "INPUT", 2);
  del.ref.handle = 5;
  auto want = nft::noflush_table(
      *commands({del, rule_op(OpKind::rule_insert, "x", "-j DROP", 3, 1)}),
      kernel);
  REQUIRE(want);
  REQUIRE(want->state.chains[0].rules.size() == 1);
  CHECK(want->state.chains[0].rules[0].handle == 6);
  REQUIRE(want->state.chains[3].rules.size() == 2);
  CHECK(want->rule_sources[3][0].line == 3);
  CHECK(want->state.chains[3].rules[1].handle == 9);
  CHECK_FALSE(want->repeatable);

  // kube-proxy's shape: declared chains filled, a declared chain deleted.
  auto again = nft::noflush_table(
      *commands({chain_op(OpKind::chain_restore, "web", 2),
                 chain_op(OpKind::chain_restore, "old", 3),
                 rule_op(OpKind::rule_append, "web", "-j DROP", 4, 1),
                 chain_op(OpKind::chain_delete, "old", 5)}),
      kernel);
  REQUIRE(again);
  CHECK(again->repeatable);
  // A chain deleted without being declared is gone the second time.
  auto once = nft::noflush_table(
      *commands({chain_op(OpKind::chain_delete, "old", 5)}), kernel);
  REQUIRE(once);
  CHECK_FALSE(once->repeatable);
}

TEST_CASE("table delta: --noflush rules placed by position, recorded only",
          "[table_delta]") {
  const TableState kernel = kernel_filter();
  // -I INPUT 2 (before handle 6), -R INPUT 1 (in handle 5's place), -A x
  // then -D of that rule by its transaction id, -R web 1 (in handle 7's
  // place), then -I web 1 before that rule, by its transaction id.
  Op before = rule_op(OpKind::rule_insert_before, "INPUT", "-j DROP", 2, 1);
  before.ref.handle = 6;
  Op replace = rule_op(OpKind::rule_replace, "INPUT", "-j ACCEPT", 3, 2);
  replace.ref.handle = 5;
  Op append = rule_op(OpKind::rule_append, "x", "-j DROP", 4, 3);
  Op del = chain_op(OpKind::rule_delete, "x", 5);
  del.ref.id = 3;
  Op web = rule_op(OpKind::rule_replace, "web", "-j DROP", 6, 4);
  web.ref.handle = 7;
  Op first = rule_op(OpKind::rule_insert_before, "web", "-j ACCEPT", 7, 5);
  first.ref.id = 4;
  auto want = nft::noflush_table(
      *commands({before, replace, append, del, web, first}), kernel);
  REQUIRE(want);
  CHECK(want->commands_only);
  CHECK_FALSE(want->repeatable);
  const auto &input = want->state.chains[0].rules;
  REQUIRE(input.size() == 3);
  // The replacing rule keeps handle 5; the inserted one is numbered by
  // the kernel (an allocation); 6 is the kernel's.
  CHECK(input[0].handle == 5);
  CHECK(input[1].handle == 0);
  CHECK(input[2].handle == 6);
  CHECK(want->rule_sources[0][1].line == 2);
  CHECK(want->state.chains[3].rules.size() == 1); // x: its rule 9 alone
  const auto &www = want->state.chains[1].rules;
  REQUIRE(www.size() == 2);
  CHECK(www[1].handle == 7);
  CHECK(want->rule_sources[1][0].line == 7);
  // Messages that make rules: -I INPUT 2, -A x (deleted again), -I web.
  REQUIRE(want->allocations.size() == 3);
  CHECK(want->allocations[1].rule == SIZE_MAX);
}

TEST_CASE("table delta: --noflush rules a later flush takes back",
          "[table_delta]") {
  const TableState kernel = kernel_filter();
  // -A web, -F web, -A web: the kernel numbers both rules, and only the
  // second stays; web's kernel rule goes with the flush.
  auto want = nft::noflush_table(
      *commands({rule_op(OpKind::rule_append, "web", "-j DROP", 2, 1),
                 chain_op(OpKind::chain_flush, "web", 3),
                 rule_op(OpKind::rule_append, "web", "-j ACCEPT", 4, 2)}),
      kernel);
  REQUIRE(want);
  const auto &web = want->state.chains[1];
  REQUIRE(web.name == "web");
  REQUIRE(web.rules.size() == 1);
  CHECK(web.rules[0].handle == 0);
  CHECK(want->rule_sources[1][0].line == 4);
  REQUIRE(want->allocations.size() == 2);
  CHECK(want->allocations[0].rule == SIZE_MAX);
  CHECK(want->allocations[1].chain == 1);
  CHECK(want->allocations[1].rule == 0);
  CHECK(want->allocations[0].message < want->allocations[1].message);
}

TEST_CASE("table delta: --noflush rule lines taken unparsed, by line",
          "[table_delta]") {
  const TableState kernel = kernel_filter();
  // :web - (line 2), [line 3 known], -A web (line 4), [line 5 known],
  // -X old (line 6), [line 7 known, to INPUT].
  auto b = commands({chain_op(OpKind::chain_restore, "web", 2),
                     rule_op(OpKind::rule_append, "web", "-j DROP", 4, 1),
                     chain_op(OpKind::chain_restore, "old", 5),
                     chain_op(OpKind::chain_delete, "old", 6)});
  const std::vector<nft::UnparsedLine> known{{3, "web", 201},
                                             {7, "INPUT", 202}};
  auto want = nft::noflush_table(*b, kernel, known);
  REQUIRE(want);
  const auto &web = want->state.chains[1];
  REQUIRE(web.name == "web");
  REQUIRE(web.rules.size() == 2);
  CHECK(web.rules[0].key == 201); // line 3, before line 4's rule
  CHECK(want->rule_sources[1][0].message.empty());
  CHECK(want->rule_sources[1][0].line == 3);
  CHECK(want->rule_sources[1][1].line == 4);
  const auto &input = want->state.chains[0];
  REQUIRE(input.rules.size() == 3);
  CHECK(input.rules[2].key == 202); // after the last message
  CHECK(want->rule_sources[0][2].line == 7);
  // An append to INPUT, which the block does not flush: added again.
  CHECK_FALSE(want->repeatable);
  // Only the batch's own rule is numbered by the kernel.
  CHECK(want->allocations.size() == 1);
  // A known line for a chain the block deleted before it: no table.
  CHECK_FALSE(nft::noflush_table(*b, kernel, {{7, "old", 203}}));
  // A declaration taken unparsed flushes its chain (x held one rule), and
  // the chain's rules from then on are the block's.
  auto declared =
      nft::noflush_table(*b, kernel, {{1, "x", 0, true}, {3, "x", 204}});
  REQUIRE(declared);
  const auto &x = declared->state.chains[2]; // old is gone
  REQUIRE(x.name == "x");
  REQUIRE(x.rules.size() == 1);
  CHECK(x.rules[0].key == 204);
  CHECK(declared->repeatable);
  CHECK_FALSE(nft::noflush_table(*b, kernel, {{7, "old", 0, true}}));
}

TEST_CASE("table delta: what --noflush commands do to each chain they name",
          "[table_delta]") {
  auto b = commands({chain_op(OpKind::chain_restore, "web", 2),
                     rule_op(OpKind::rule_append, "web", "-j DROP", 3, 1),
                     rule_op(OpKind::rule_append, "web", "-j ACCEPT", 4, 2),
                     rule_op(OpKind::rule_append, "INPUT", "-j web", 5, 3),
                     chain_op(OpKind::chain_delete, "old", 6)});
  const auto named = nft::noflush_chains(*b);
  REQUIRE(named.size() == 3);
  CHECK(named.at("web").emptied);
  CHECK(named.at("web").rules == 2);
  CHECK_FALSE(named.at("INPUT").emptied);
  CHECK(named.at("INPUT").rules == 1);
  CHECK(named.at("old").emptied);
  CHECK(named.at("old").rules == 0);
}
