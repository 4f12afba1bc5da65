#include <linux/netfilter.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "check/plan.h"
#include "check_errors.h"

namespace fastrestore {
namespace {

using check::chain_exists;
using check::chain_not_empty;
using check::check_rename_target;
using check::declared_policy;
using check::fail;
using check::index_too_big;
using check::jumps;
using check::name_taken;
using check::no_such_chain;
using check::no_such_jump;
using check::no_such_rule;

bool same_blob(const XtBlob &a, const XtBlob &b) {
  return a.name == b.name && a.revision == b.revision && a.data == b.data;
}

bool same_eb(const EbFields &a, const EbFields &b) {
  return a.logical_in == b.logical_in && a.logical_out == b.logical_out &&
         a.bitmask == b.bitmask && a.invflags == b.invflags &&
         a.ethproto == b.ethproto && a.smac == b.smac && a.smsk == b.smsk &&
         a.dmac == b.dmac && a.dmsk == b.dmsk && a.policy_rule == b.policy_rule;
}

// An interface as -C and -D compare it: `-i +` (any interface) is no
// interface at all, as iptables reads it back.
std::string_view iface(const std::string &name, bool inverted) {
  return name == "+" && !inverted ? std::string_view() : name;
}

// Rule identity for -D and -C: everything but counters and location (the
// bridge family's base fields too).
bool same_rule(const Rule &a, const Rule &b) {
  if (iface(a.iniface, a.inv_iniface) != iface(b.iniface, b.inv_iniface) ||
      iface(a.outiface, a.inv_outiface) != iface(b.outiface, b.inv_outiface) ||
      a.inv_iniface != b.inv_iniface || a.inv_outiface != b.inv_outiface ||
      a.proto != b.proto || a.inv_proto != b.inv_proto || a.src != b.src ||
      a.smsk != b.smsk || a.dst != b.dst || a.dmsk != b.dmsk ||
      a.inv_src != b.inv_src || a.inv_dst != b.inv_dst || a.frag != b.frag ||
      a.inv_frag != b.inv_frag || a.verdict != b.verdict ||
      a.jump_chain != b.jump_chain || a.matches.size() != b.matches.size() ||
      a.target.has_value() != b.target.has_value() || !same_eb(a.eb, b.eb))
    return false;
  for (size_t i = 0; i < a.matches.size(); ++i)
    if (!same_blob(a.matches[i], b.matches[i]))
      return false;
  return !a.target || same_blob(*a.target, *b.target);
}

// The model of a table being replaced.
class TableModel {
public:
  TableModel(const BuiltinTable &t, bool counters, HeldRefusals &refused)
      : table_(t), counters_(counters), refused_(refused) {}

  PlannedChain *find(const std::string &name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &chains_[it->second];
  }

  // A base chain comes into existence when first declared or used.
  PlannedChain *find_or_create_builtin(const std::string &name,
                                       const Location &loc) {
    if (PlannedChain *c = find(name))
      return c;
    const BuiltinChain *b = find_builtin_chain(table_, name);
    if (b == nullptr)
      return nullptr;
    PlannedChain c;
    c.loc = loc;
    c.name = name;
    c.builtin = b;
    return add(std::move(c));
  }

  PlannedChain &chain_for_rule(const Command &cmd) {
    PlannedChain *c = find_or_create_builtin(cmd.chain, cmd.loc);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    return *c;
  }

  void declare(const ChainDecl &d) {
    if (d.builtin) {
      PlannedChain *c = find_or_create_builtin(d.name, d.loc);
      if (d.policy != "-")
        c->policy = declared_policy(d);
      if (counters_) {
        c->counters = true;
        c->packets = d.packets;
        c->bytes = d.bytes;
      }
      return;
    }
    if (PlannedChain *c = find(d.name)) {
      c->rules.clear(); // redeclaring a user chain flushes it
      return;
    }
    PlannedChain c;
    c.loc = d.loc;
    c.name = d.name;
    add(std::move(c));
  }

  void apply(const Command &cmd) {
    check_jumps(cmd);
    switch (cmd.kind) {
    case CommandKind::append: {
      PlannedChain &c = chain_for_rule(cmd);
      for (const auto &r : cmd.rules)
        c.rules.push_back(r);
      break;
    }
    case CommandKind::insert: {
      PlannedChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size() + 1)
        index_too_big(cmd.loc, "insertion");
      // Each rule goes to the position in turn, as with iptables.
      for (const auto &r : cmd.rules)
        c.rules.insert(c.rules.begin() + (cmd.rulenum - 1), r);
      break;
    }
    case CommandKind::remove:
    case CommandKind::check: {
      PlannedChain &c = chain_for_rule(cmd);
      for (const auto &r : cmd.rules) {
        auto it = std::find_if(c.rules.begin(), c.rules.end(),
                               [&](const Rule &x) { return same_rule(x, r); });
        if (it == c.rules.end())
          no_such_rule(cmd.loc);
        if (cmd.kind == CommandKind::remove)
          c.rules.erase(it);
      }
      break;
    }
    case CommandKind::remove_num: {
      PlannedChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size())
        index_too_big(cmd.loc, "deletion");
      c.rules.erase(c.rules.begin() + (cmd.rulenum - 1));
      break;
    }
    case CommandKind::replace: {
      PlannedChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size())
        index_too_big(cmd.loc, "replacement");
      c.rules[cmd.rulenum - 1] = cmd.rules.front();
      break;
    }
    case CommandKind::flush:
    case CommandKind::zero:
      check::refuse_zero_rule(cmd);
      for_chains(cmd, [&](PlannedChain &c) {
        if (cmd.kind == CommandKind::flush) {
          c.rules.clear();
          return;
        }
        for (auto &r : c.rules)
          r.packets = r.bytes = 0;
        if (c.builtin)
          c.packets = c.bytes = 0;
      });
      break;
    case CommandKind::new_chain:
      if (find(cmd.chain) || find_builtin_chain(table_, cmd.chain))
        chain_exists(cmd.loc);
      add(PlannedChain{cmd.loc, cmd.chain});
      break;
    case CommandKind::delete_chain:
      delete_chains(cmd);
      break;
    case CommandKind::rename_chain:
      rename(cmd);
      break;
    case CommandKind::policy: {
      uint32_t policy = check::checked_policy(table_, cmd);
      find_or_create_builtin(cmd.chain, cmd.loc)->policy = policy;
      break;
    }
    case CommandKind::none:
      break;
    }
  }

  // A rule's jump must name a chain that exists when the command is
  // carried out, as iptables-nft checks it before the rule's own chain
  // (base chains are left to the kernel, which refuses them).
  void check_jumps(const Command &cmd) const {
    for (const auto &r : cmd.rules)
      if (jumps(r) && find_builtin_chain(table_, r.jump_chain) == nullptr &&
          index_.count(r.jump_chain) == 0)
        no_such_jump(r);
  }

  std::vector<PlannedChain> take() { return std::move(chains_); }

private:
  PlannedChain *add(PlannedChain &&c) {
    index_[c.name] = chains_.size();
    chains_.push_back(std::move(c));
    return &chains_.back();
  }

  // The index again, after chains went or were renamed.
  void reindex() {
    index_.clear();
    for (size_t i = 0; i < chains_.size(); ++i)
      index_[chains_[i].name] = i;
  }

  template <class F> void for_chains(const Command &cmd, F f) {
    if (cmd.chain.empty()) {
      for (auto &c : chains_)
        f(c);
      return;
    }
    // A base chain comes into existence when flushed or zeroed, too.
    PlannedChain *c = find_or_create_builtin(cmd.chain, cmd.loc);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    f(*c);
  }

  bool referenced(const std::string &name) const {
    for (const auto &c : chains_)
      for (const auto &r : c.rules)
        if (jumps(r) && r.jump_chain == name)
          return true;
    return false;
  }

  void delete_chains(const Command &cmd) {
    if (cmd.chain.empty()) {
      // Every user chain; refused like the kernel refuses a busy chain.
      for (const auto &c : chains_)
        if (!c.builtin && (!c.rules.empty() || referenced(c.name)))
          hold_busy(cmd, c.name);
      // iptables-nft also drops base chains that are empty and accept.
      chains_.erase(std::remove_if(chains_.begin(), chains_.end(),
                                   [](const PlannedChain &c) {
                                     return c.builtin == nullptr ||
                                            (c.rules.empty() &&
                                             c.policy.value_or(NF_ACCEPT) ==
                                                 NF_ACCEPT);
                                   }),
                    chains_.end());
      reindex();
      return;
    }
    PlannedChain *c = find(cmd.chain);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    if (c->builtin) {
      // An empty base chain goes, as iptables-nft deletes it.
      if (!c->rules.empty())
        chain_not_empty(cmd.loc);
      chains_.erase(chains_.begin() + (c - chains_.data()));
      reindex();
      return;
    }
    if (!c->rules.empty() || referenced(cmd.chain))
      hold_busy(cmd, cmd.chain);
    chains_.erase(chains_.begin() + (c - chains_.data()));
    reindex();
  }

  // The kernel refuses to delete a busy chain only at COMMIT: iptables-nft
  // has dropped the chain from its own view by then, so a later line that
  // names it is refused by iptables-nft itself, which comes first.
  void hold_busy(const Command &cmd, const std::string &chain) {
    refused_.run(
        [&] {
          fail(cmd.loc,
               "CHAIN_DEL failed (Device or resource busy): chain " + chain,
               ExitCode::kernel);
        },
        false);
  }

  void rename(const Command &cmd) {
    PlannedChain *c = find(cmd.chain);
    if (c == nullptr || c->builtin)
      no_such_chain(cmd.loc);
    if (find(cmd.arg) || find_builtin_chain(table_, cmd.arg))
      name_taken(cmd.loc);
    check_rename_target(cmd);
    c->name = cmd.arg;
    reindex();
    for (auto &x : chains_)
      for (auto &r : x.rules)
        if (jumps(r) && r.jump_chain == cmd.chain)
          r.jump_chain = cmd.arg;
  }

  const BuiltinTable &table_;
  bool counters_;
  HeldRefusals &refused_;
  std::vector<PlannedChain> chains_;
  std::unordered_map<std::string, size_t> index_; // name -> chains_ index
};

Plan plan_replace(const Block &block, const BuiltinTable &t, bool counters) {
  HeldRefusals refused;
  TableModel model(t, counters, refused);
  for (const auto &e : block.entries)
    refused.run(
        [&] {
          if (e.decl)
            model.declare(*e.decl);
          else
            model.apply(*e.cmd);
        },
        false);
  refused.throw_first();
  Plan plan;
  plan.table = block.table;
  plan.loc = block.loc;
  plan.replace = true;
  plan.chains = model.take();
  return plan;
}

} // namespace

Plan plan_noflush(const Block &block, bool counters, KernelAccess kernel,
                  uint32_t id_base);

Plan plan_block(const Block &block, bool noflush, bool counters,
                KernelAccess kernel, uint32_t id_base) {
  const BuiltinTable *t = find_builtin_table(block.table, block.family);
  if (t == nullptr)
    fail(block.loc, "table name '" + block.table + "' invalid",
         ExitCode::parameter);
  return noflush ? plan_noflush(block, counters, std::move(kernel), id_base)
                 : plan_replace(block, *t, counters);
}

} // namespace fastrestore
