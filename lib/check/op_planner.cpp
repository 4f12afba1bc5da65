// Entry-by-entry planning (see OpPlanner in plan.h): declarations, the
// replace path, and the checks both paths make. The --noflush commands
// and the reading of the kernel's table into the planner's model
// (table_model.h) are in noflush_planner.cpp, the bridge user chains'
// policy rules in bridge_policy.cpp.
#include <linux/netfilter.h>

#include "check/plan.h"
#include "check_errors.h"

namespace fastrestore {

using check::chain_exists;
using check::chain_op;
using check::declared_policy;
using check::fail;
using check::jumps;
using check::no_such_chain;
using check::no_such_jump;

OpPlanner::OpPlanner(const std::string &table, bool noflush, bool counters,
                     KernelAccess kernel, Family family, uint32_t id_base)
    : table_(find_builtin_table(table, family)), family_(family),
      noflush_(noflush), counters_(counters), kernel_(std::move(kernel)),
      next_id_(id_base) {
  if (table_ == nullptr)
    fail({}, "table name '" + table + "' invalid", ExitCode::parameter);
}

bool OpPlanner::known(const std::string &name) const {
  return known_.count(name) != 0 ||
         (declared_unparsed_ && declared_unparsed_(name));
}

bool OpPlanner::make_known(const std::string &name) {
  return !(declared_unparsed_ && declared_unparsed_(name)) &&
         known_.insert(name).second;
}

void OpPlanner::ensure_base(const Command &cmd, std::vector<Op> &out) {
  if (!find_builtin_chain(*table_, cmd.chain) || !make_known(cmd.chain))
    return;
  // With --noflush a base chain the kernel already has is left alone:
  // sending it again registers its hook again, about 15 ms in the kernel
  // for every block.
  if (noflush_ && (chain_read(cmd.chain) ? model_.has(cmd.chain)
                                         : kernel_.chain_exists &&
                                               kernel_.chain_exists(cmd.chain)))
    return;
  out.push_back(chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_));
  if (noflush_)
    record(Event::create, cmd.chain);
}

void OpPlanner::add_rules(Command &cmd, std::vector<Op> &out) {
  const bool append = cmd.kind == CommandKind::append;
  size_t first = out.size();
  for (auto &r : cmd.rules) {
    Op op{append ? OpKind::rule_append : OpKind::rule_insert,
          cmd.loc,
          {},
          std::move(r)};
    op.chain.name = cmd.chain;
    if (noflush_)
      op.id = ++next_id_;
    out.push_back(std::move(op));
  }
  // -I puts each rule at the head in turn, so several addresses end up in
  // reverse order, as with iptables.
  if (noflush_)
    for (size_t i = first; i < out.size(); ++i)
      record(append ? Event::append : Event::insert_head, cmd.chain, out[i].id);
}

bool OpPlanner::chain_exists_now(const std::string &chain) {
  if (chain_read(chain))
    return model_.has(chain);
  if (renamed_.count(chain) != 0)
    return true;
  // The block's own creations and deletions so far, newest first; then
  // the kernel (one GETCHAIN).
  for (auto it = log_.rbegin(); it != log_.rend(); ++it) {
    if (it->chain != chain)
      continue;
    if (it->ev == Event::create)
      return true;
    if (it->ev == Event::remove)
      return false;
  }
  return kernel_.chain_exists && kernel_.chain_exists(chain);
}

bool OpPlanner::add(Block::Entry &&e, std::vector<Op> &out) {
  if (e.decl) {
    const ChainDecl &d = *e.decl;
    if (d.builtin) {
      Op op = chain_op(OpKind::chain_update, d.name, d.loc, *table_);
      if (d.policy != "-")
        op.chain.policy = declared_policy(d);
      if (counters_) {
        op.chain.counters = true;
        op.chain.packets = d.packets;
        op.chain.bytes = d.bytes;
      }
      make_known(d.name);
      if (noflush_) {
        record(Event::create, d.name);
        if (op.chain.policy)
          record(Event::policy, d.name, *op.chain.policy);
      }
      out.push_back(std::move(op));
    } else if (noflush_) {
      // Created if missing, flushed if present.
      out.push_back(chain_op(OpKind::chain_restore, d.name, d.loc, *table_));
      make_known(d.name);
      record(Event::create, d.name);
      record(Event::flush, d.name);
    } else if (make_known(d.name)) {
      out.push_back(chain_op(OpKind::chain_create, d.name, d.loc, *table_));
    } else {
      // Declaring a chain again flushes it.
      out.push_back(chain_op(OpKind::chain_flush, d.name, d.loc, *table_));
    }
    return true;
  }
  Command &cmd = *e.cmd;
  if (noflush_) {
    plan_noflush(cmd, out);
    return true;
  }
  return plan_replace(cmd, out);
}

bool OpPlanner::plan_replace(Command &cmd, std::vector<Op> &out) {
  switch (cmd.kind) {
  case CommandKind::append:
  case CommandKind::insert:
    if (cmd.kind == CommandKind::insert && cmd.rulenum != 1)
      return false;
    check_jumps(cmd);
    ensure_base(cmd, out);
    if (!known(cmd.chain))
      no_such_chain(cmd.loc);
    add_rules(cmd, out);
    return true;
  case CommandKind::new_chain:
    if (known(cmd.chain) || find_builtin_chain(*table_, cmd.chain))
      chain_exists(cmd.loc);
    make_known(cmd.chain);
    out.push_back(chain_op(OpKind::chain_create, cmd.chain, cmd.loc, *table_));
    return true;
  case CommandKind::policy:
    plan_policy(cmd, out);
    return true;
  case CommandKind::flush:
    if (cmd.chain.empty())
      return false;
    ensure_base(cmd, out); // -F of a base chain creates it, as in iptables
    if (!known(cmd.chain))
      no_such_chain(cmd.loc);
    out.push_back(chain_op(OpKind::chain_flush, cmd.chain, cmd.loc, *table_));
    return true;
  case CommandKind::none:
    return true;
  default:
    return false; // -D, -R, -C, -I N, -E, -Z, -X: the whole-block model
  }
}

void OpPlanner::plan_policy(const Command &cmd, std::vector<Op> &out) {
  Op op = chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_);
  op.chain.policy = check::checked_policy(*table_, cmd);
  if (make_known(cmd.chain) && noflush_)
    record(Event::create, cmd.chain);
  if (noflush_)
    record(Event::policy, cmd.chain, *op.chain.policy);
  out.push_back(std::move(op));
}

void OpPlanner::require_chain(const Command &cmd) {
  // --noflush into a user chain the block has not made: the kernel's, or
  // refused as iptables-nft refuses it (not left to the kernel).
  if (find_builtin_chain(*table_, cmd.chain) || known(cmd.chain) ||
      kernel_chains_.count(cmd.chain))
    return;
  if (kernel_.chain_exists && !chain_exists_now(cmd.chain))
    no_such_chain(cmd.loc);
  kernel_chains_.insert(cmd.chain);
}

void OpPlanner::check_jumps(const Command &cmd) {
  // iptables-nft checks a rule's jump before the chain it goes into, in
  // the order of the block's commands: the chain must have been made by
  // then. With --noflush it may be the kernel's: asked once per chain.
  for (const auto &r : cmd.rules) {
    if (!jumps(r) || find_builtin_chain(*table_, r.jump_chain) ||
        known(r.jump_chain) || kernel_chains_.count(r.jump_chain))
      continue;
    if (noflush_ && (!kernel_.chain_exists || chain_exists_now(r.jump_chain))) {
      kernel_chains_.insert(r.jump_chain);
      continue;
    }
    no_such_jump(r);
  }
}

Plan plan_noflush(const Block &block, bool counters, KernelAccess kernel,
                  uint32_t id_base) {
  Plan plan;
  plan.table = block.table;
  plan.loc = block.loc;
  OpPlanner planner(block.table, true, counters, std::move(kernel),
                    block.family, id_base);
  HeldRefusals refused;
  for (auto e : block.entries) // a copy: the entry's rules move into ops
    refused.run([&] { planner.add(std::move(e), plan.ops); }, false);
  refused.throw_first();
  return plan;
}

} // namespace fastrestore
