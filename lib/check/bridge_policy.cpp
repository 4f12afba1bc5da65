// A bridge user chain's policy as planning sees it (bridge_policy.h): a
// block's policies (EbPolicies), and OpPlanner's --noflush operations on
// a kernel chain's policy rule.
#include "check/bridge_policy.h"

#include <linux/netfilter.h>

#include <algorithm>

#include "check/plan.h"
#include "check_errors.h"
#include "fastrestore/tables.h"

namespace fastrestore {

using check::chain_op;
using check::fail;

void EbPolicies::begin(const std::string &table) {
  table_ = table;
  policies_.clear();
  new_chains_.clear();
}

bool EbPolicies::take(Block::Entry &e) {
  const BuiltinTable *t = find_builtin_table(table_, Family::bridge);
  if (e.decl && !e.decl->builtin) {
    const std::string &p = e.decl->policy;
    if (p != "ACCEPT" && p != "DROP" && p != "RETURN")
      fail(e.decl->loc,
           "Can't set policy `" + p + "' on `" + e.decl->name + "'",
           ExitCode::format, ""); // ebtables-restore: "line N failed"
    new_chains_.insert(e.decl->name);
    set(e.decl->name, p, e.decl->loc);
    e.decl->policy = "-";
    return false; // the planner creates the chain
  }
  // ebtables-nft gives a chain made with -N the policy ACCEPT.
  if (e.cmd && e.cmd->kind == CommandKind::new_chain) {
    new_chains_.insert(e.cmd->chain);
    set(e.cmd->chain, "ACCEPT", e.cmd->loc);
    return false;
  }
  if (e.cmd && e.cmd->kind == CommandKind::policy &&
      find_builtin_chain(*t, e.cmd->chain) == nullptr &&
      (!noflush_ || new_chains_.count(e.cmd->chain))) {
    set(e.cmd->chain, e.cmd->arg, e.cmd->loc);
    return true;
  }
  if (e.cmd && e.cmd->kind == CommandKind::delete_chain)
    e.cmd->chain.empty() ? policies_.clear()
                         : (void)policies_.erase(e.cmd->chain);
  if (e.cmd && e.cmd->kind == CommandKind::rename_chain) {
    auto it = policies_.find(e.cmd->chain);
    if (it != policies_.end()) {
      auto v = it->second;
      policies_.erase(it);
      policies_[e.cmd->arg] = v;
    }
  }
  return false;
}

void EbPolicies::set(const std::string &chain, const std::string &policy,
                     const Location &loc) {
  // A chain of this block has no policy rule in the kernel yet; an
  // existing chain's would have to be replaced.
  if (noflush_ && policy != "RETURN" && !new_chains_.count(chain))
    fail(loc, "user chain policies with --noflush are not supported yet",
         ExitCode::parameter);
  if (policy == "RETURN")
    policies_.erase(chain);
  else
    policies_[chain] = {policy, loc};
}

std::vector<std::pair<std::string, Rule>> EbPolicies::rules() const {
  std::vector<std::pair<std::string, Rule>> out;
  for (const auto &[chain, pl] : policies_) {
    Rule r;
    r.loc = pl.second;
    r.verdict = pl.first == "ACCEPT" ? Verdict::accept : Verdict::drop;
    r.eb.policy_rule = true;
    out.emplace_back(chain, std::move(r));
  }
  return out;
}

void EbPolicies::strip(Block &block, const std::string &table) {
  const BuiltinTable *t = find_builtin_table(table, Family::bridge);
  auto &es = block.entries;
  es.erase(std::remove_if(es.begin(), es.end(),
                          [&](const Block::Entry &e) {
                            return e.cmd &&
                                   e.cmd->kind == CommandKind::policy &&
                                   !find_builtin_chain(*t, e.cmd->chain);
                          }),
           es.end());
  for (auto &e : es)
    if (e.decl && !e.decl->builtin)
      e.decl->policy = "-";
}
// The verdict of ebtables-nft's policy rule when it ends chain `c`.
std::optional<uint32_t> OpPlanner::policy_of(const Chain &c) const {
  if (c.rules.empty())
    return std::nullopt;
  if (c.rules.back().handle == 0) {
    // One this block put back (-F, -P): -X after it deletes it too.
    auto it = block_policy_rules_.find(c.rules.back().id);
    if (it == block_policy_rules_.end())
      return std::nullopt;
    return it->second;
  }
  auto it = kernel_policy_rules_.find(c.rules.back().handle);
  if (it == kernel_policy_rules_.end())
    return std::nullopt;
  return it->second;
}

// ebtables-nft deletes a user chain's policy rule with the chain (the
// kernel refuses to delete a chain that holds rules).
void OpPlanner::drop_policy_rule(const std::string &chain, Chain &c,
                                 const Location &loc, std::vector<Op> &out) {
  if (family_ != Family::bridge || c.base || !policy_of(c))
    return;
  Op del = chain_op(OpKind::rule_delete, chain, loc, *table_);
  del.ref = c.rules.back();
  c.rules.pop_back();
  out.push_back(std::move(del));
}

// After -F of a bridge user chain with --noflush: its policy rule again.
void OpPlanner::keep_policy(const std::string &chain, const Location &loc,
                            std::optional<uint32_t> verdict,
                            std::vector<Op> &out) {
  if (!verdict)
    return;
  Op op{OpKind::rule_append, loc, {}, {}};
  op.chain.name = chain;
  op.rule.loc = loc;
  op.rule.verdict = *verdict == NF_ACCEPT ? Verdict::accept : Verdict::drop;
  op.rule.eb.policy_rule = true;
  op.id = ++next_id_;
  block_policy_rules_[op.id] = *verdict;
  out.push_back(std::move(op));
  record(Event::append, chain, out.back().id);
}

// ebtables-nft keeps a user chain's ACCEPT or DROP policy as the chain's
// last rule (marked in its user data): rules appended with --noflush go in
// before it. Reads the table when the chain is a user chain of a bridge
// table; false when the rules are simply appended.
bool OpPlanner::append_before_policy(Command &cmd, std::vector<Op> &out) {
  if (family_ != Family::bridge || find_builtin_chain(*table_, cmd.chain))
    return false;
  Chain &c = model_chain(cmd);
  if (!policy_of(c))
    return false;
  const RuleRef policy = c.rules.back();
  for (auto &r : cmd.rules) {
    Op op{OpKind::rule_insert_before, cmd.loc, {}, std::move(r)};
    op.chain.name = cmd.chain;
    op.id = ++next_id_;
    op.ref = policy;
    c.rules.insert(c.rules.end() - 1, RuleRef{0, op.id});
    out.push_back(std::move(op));
  }
  return true;
}

// -P of a bridge user chain with --noflush: the policy is the chain's
// last rule, so the old one goes and the new one (unless RETURN) is
// appended.
void OpPlanner::plan_user_policy(const Command &cmd, std::vector<Op> &out) {
  Chain &c = model_chain(cmd);
  drop_policy_rule(cmd.chain, c, cmd.loc, out);
  if (cmd.arg != "RETURN")
    keep_policy(cmd.chain, cmd.loc, cmd.arg == "ACCEPT" ? NF_ACCEPT : NF_DROP,
                out);
}

} // namespace fastrestore
