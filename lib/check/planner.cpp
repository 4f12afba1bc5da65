#include <linux/netfilter.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "check/plan.h"
#include "check/table_model.h"
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

// A table being replaced: the block's declarations and commands applied
// to the model of the new table (table_model.h), which starts empty; each
// rule's IR kept by the id it is referred to by.
class Replacement {
public:
  Replacement(const BuiltinTable &t, bool counters, HeldRefusals &refused)
      : table_(t), counters_(counters), refused_(refused) {}

  // A base chain comes into existence when first declared or used.
  ModelChain *find_or_create_builtin(const std::string &name,
                                     const Location &loc) {
    if (ModelChain *c = model_.find(name))
      return c;
    const BuiltinChain *b = find_builtin_chain(table_, name);
    if (b == nullptr)
      return nullptr;
    return &model_.add(chain(name, loc, b));
  }

  ModelChain &chain_for_rule(const Command &cmd) {
    ModelChain *c = find_or_create_builtin(cmd.chain, cmd.loc);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    return *c;
  }

  void declare(const ChainDecl &d) {
    if (d.builtin) {
      ModelChain *c = find_or_create_builtin(d.name, d.loc);
      if (d.policy != "-")
        c->policy = declared_policy(d);
      if (counters_) {
        c->counters = true;
        c->packets = d.packets;
        c->bytes = d.bytes;
      }
      return;
    }
    if (ModelChain *c = model_.find(d.name)) {
      c->rules.clear(); // redeclaring a user chain flushes it
      return;
    }
    model_.add(chain(d.name, d.loc, nullptr));
  }

  void apply(const Command &cmd) {
    check_jumps(cmd);
    switch (cmd.kind) {
    case CommandKind::append: {
      ModelChain &c = chain_for_rule(cmd);
      for (const auto &r : cmd.rules)
        c.rules.push_back(keep(r));
      break;
    }
    case CommandKind::insert: {
      ModelChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size() + 1)
        index_too_big(cmd.loc, "insertion");
      // Each rule goes to the position in turn, as with iptables.
      for (const auto &r : cmd.rules)
        c.rules.insert(c.rules.begin() + (cmd.rulenum - 1), keep(r));
      break;
    }
    case CommandKind::remove:
    case CommandKind::check: {
      // A chain that is not there holds no such rule, as iptables-nft says.
      ModelChain *found = find_or_create_builtin(cmd.chain, cmd.loc);
      if (found == nullptr)
        no_such_rule(cmd.loc);
      ModelChain &c = *found;
      for (const auto &r : cmd.rules) {
        auto it =
            std::find_if(c.rules.begin(), c.rules.end(), [&](const RuleRef &x) {
              return same_rule(rule(x), r);
            });
        if (it == c.rules.end())
          no_such_rule(cmd.loc);
        if (cmd.kind == CommandKind::remove)
          c.rules.erase(it);
      }
      break;
    }
    case CommandKind::remove_num: {
      ModelChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size())
        index_too_big(cmd.loc, "deletion");
      c.rules.erase(c.rules.begin() + (cmd.rulenum - 1));
      break;
    }
    case CommandKind::replace: {
      ModelChain &c = chain_for_rule(cmd);
      if (cmd.rulenum > c.rules.size())
        index_too_big(cmd.loc, "replacement");
      c.rules[cmd.rulenum - 1] = keep(cmd.rules.front());
      break;
    }
    case CommandKind::flush:
    case CommandKind::zero:
      check::refuse_zero_rule(cmd);
      for_chains(cmd, [&](ModelChain &c) {
        if (cmd.kind == CommandKind::flush) {
          c.rules.clear();
          return;
        }
        for (const RuleRef &x : c.rules)
          rule(x).packets = rule(x).bytes = 0;
        if (c.builtin)
          c.packets = c.bytes = 0;
      });
      break;
    case CommandKind::new_chain:
      if (model_.has(cmd.chain) || find_builtin_chain(table_, cmd.chain))
        chain_exists(cmd.loc);
      model_.add(chain(cmd.chain, cmd.loc, nullptr));
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
          !model_.has(r.jump_chain))
        no_such_jump(r);
  }

  // The new table's chains, each with its rules, in order.
  std::vector<PlannedChain> take() {
    std::vector<PlannedChain> out;
    model_.each([&](ModelChain &c) {
      PlannedChain &p = out.emplace_back();
      static_cast<ChainAttrs &>(p) = c;
      p.rules.reserve(c.rules.size());
      for (const RuleRef &x : c.rules)
        p.rules.push_back(std::move(rule(x)));
    });
    return out;
  }

private:
  static ModelChain chain(const std::string &name, const Location &loc,
                          const BuiltinChain *builtin) {
    ModelChain c;
    c.loc = loc;
    c.name = name;
    c.builtin = builtin;
    c.base = builtin != nullptr;
    return c;
  }

  // Rule `r` kept, referred to by its id (each rule taken once: a rule
  // the block repeats is two rules).
  RuleRef keep(const Rule &r) {
    rules_.push_back(r);
    return RuleRef{0, static_cast<uint32_t>(rules_.size())};
  }
  Rule &rule(const RuleRef &x) { return rules_[x.id - 1]; }

  template <class F> void for_chains(const Command &cmd, F f) {
    if (cmd.chain.empty()) {
      model_.each(f);
      return;
    }
    // A base chain comes into existence when flushed or zeroed, too.
    ModelChain *c = find_or_create_builtin(cmd.chain, cmd.loc);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    f(*c);
  }

  bool referenced(const std::string &name) {
    bool found = false;
    model_.each([&](const ModelChain &c) {
      for (const RuleRef &x : c.rules)
        found = found || (jumps(rule(x)) && rule(x).jump_chain == name);
    });
    return found;
  }

  void delete_chains(const Command &cmd) {
    if (cmd.chain.empty()) {
      // Every user chain; refused like the kernel refuses a busy chain.
      model_.each([&](const ModelChain &c) {
        if (!c.builtin && (!c.rules.empty() || referenced(c.name)))
          hold_busy(cmd, c.name);
      });
      // iptables-nft also drops base chains that are empty and accept.
      model_.remove_if([](const ModelChain &c) {
        return c.builtin == nullptr || (c.rules.empty() && c.accept());
      });
      return;
    }
    ModelChain *c = model_.find(cmd.chain);
    if (c == nullptr)
      no_such_chain(cmd.loc);
    if (c->builtin) {
      // An empty base chain goes, as iptables-nft deletes it.
      if (!c->rules.empty())
        chain_not_empty(cmd.loc);
      model_.remove(cmd.chain);
      return;
    }
    if (!c->rules.empty() || referenced(cmd.chain))
      hold_busy(cmd, cmd.chain);
    model_.remove(cmd.chain);
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
    // iptables-nft looks for the new name first.
    if (model_.has(cmd.arg) || find_builtin_chain(table_, cmd.arg))
      name_taken(cmd.loc);
    const ModelChain *c = model_.find(cmd.chain);
    if (c == nullptr || c->builtin)
      no_such_chain(cmd.loc);
    check_rename_target(cmd);
    model_.rename(cmd.chain, cmd.arg);
    model_.each([&](const ModelChain &x) {
      for (const RuleRef &ref : x.rules) {
        Rule &r = rule(ref);
        if (jumps(r) && r.jump_chain == cmd.chain)
          r.jump_chain = cmd.arg;
      }
    });
  }

  const BuiltinTable &table_;
  bool counters_;
  HeldRefusals &refused_;
  TableModel model_;
  std::vector<Rule> rules_; // by id - 1
};

Plan plan_replace(const Block &block, const BuiltinTable &t, bool counters) {
  HeldRefusals refused;
  Replacement model(t, counters, refused);
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
