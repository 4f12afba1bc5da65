// Entry-by-entry planning (see OpPlanner in plan.h).
#include <linux/netfilter.h>

#include <algorithm>

#include "fastrestore/plan.h"

namespace fastrestore {
namespace {

[[noreturn]] void fail(const Location &loc, std::string msg, ExitCode code) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(msg);
  d.code = code;
  throw Error(std::move(d));
}

[[noreturn]] void line_failed(const Location &loc, const std::string &reason) {
  fail(loc, reason, ExitCode::format);
}

[[noreturn]] void needs_kernel_rules(const Command &cmd, const char *what) {
  fail(cmd.loc,
       std::string(what) +
           " with --noflush needs the kernel's current rules, which "
           "fastrestore does not read yet",
       ExitCode::parameter);
}

uint32_t policy_value(const std::string &p) {
  return p == "DROP" ? NF_DROP : NF_ACCEPT;
}

Op chain_op(OpKind kind, const std::string &name, const Location &loc,
            const BuiltinTable &t) {
  Op op{kind, loc, {}, {}};
  op.chain.loc = loc;
  op.chain.name = name;
  op.chain.builtin = find_builtin_chain(t, name);
  return op;
}

} // namespace

OpPlanner::OpPlanner(const std::string &table, bool noflush, bool counters)
    : table_(find_builtin_table(table)), noflush_(noflush),
      counters_(counters) {
  if (table_ == nullptr)
    fail({}, "table name '" + table + "' invalid", ExitCode::parameter);
}

void OpPlanner::ensure_base(const Command &cmd, std::vector<Op> &out) {
  if (find_builtin_chain(*table_, cmd.chain) && known_.insert(cmd.chain).second)
    out.push_back(chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_));
}

void OpPlanner::add_rules(const Command &cmd, std::vector<Op> &out) {
  const bool append = cmd.kind == CommandKind::append;
  size_t first = out.size();
  for (const auto &r : cmd.rules) {
    Op op{append ? OpKind::rule_append : OpKind::rule_insert, cmd.loc, {}, r};
    op.chain.name = cmd.chain;
    out.push_back(std::move(op));
    if ((r.verdict == Verdict::jump || r.verdict == Verdict::go) &&
        !find_builtin_chain(*table_, r.jump_chain))
      jumps_.emplace_back(r.jump_chain, r.loc);
  }
  // -I inserts each at the head: reverse so they end in input order.
  if (!append)
    std::reverse(out.begin() + first, out.end());
}

bool OpPlanner::add(const Block::Entry &e, std::vector<Op> &out) {
  if (e.decl) {
    const ChainDecl &d = *e.decl;
    if (d.builtin) {
      Op op = chain_op(OpKind::chain_update, d.name, d.loc, *table_);
      if (d.policy != "-")
        op.chain.policy = policy_value(d.policy);
      if (counters_) {
        op.chain.counters = true;
        op.chain.packets = d.packets;
        op.chain.bytes = d.bytes;
      }
      known_.insert(d.name);
      out.push_back(std::move(op));
    } else if (noflush_) {
      // Created if missing, flushed if present.
      out.push_back(chain_op(OpKind::chain_restore, d.name, d.loc, *table_));
      known_.insert(d.name);
    } else if (known_.insert(d.name).second) {
      out.push_back(chain_op(OpKind::chain_create, d.name, d.loc, *table_));
    } else {
      // Declaring a chain again flushes it.
      out.push_back(chain_op(OpKind::chain_flush, d.name, d.loc, *table_));
    }
    return true;
  }
  const Command &cmd = *e.cmd;
  if (noflush_) {
    plan_noflush(cmd, out);
    return true;
  }
  return plan_replace(cmd, out);
}

bool OpPlanner::plan_replace(const Command &cmd, std::vector<Op> &out) {
  switch (cmd.kind) {
  case CommandKind::append:
  case CommandKind::insert:
    if (cmd.kind == CommandKind::insert && cmd.rulenum != 1)
      return false;
    ensure_base(cmd, out);
    if (!known_.count(cmd.chain))
      line_failed(cmd.loc, "No chain/target/match by that name.");
    add_rules(cmd, out);
    return true;
  case CommandKind::new_chain:
    if (known_.count(cmd.chain) || find_builtin_chain(*table_, cmd.chain))
      line_failed(cmd.loc, "Chain already exists.");
    known_.insert(cmd.chain);
    out.push_back(chain_op(OpKind::chain_create, cmd.chain, cmd.loc, *table_));
    return true;
  case CommandKind::policy: {
    if (!find_builtin_chain(*table_, cmd.chain))
      line_failed(cmd.loc, "Bad built-in chain name.");
    if (cmd.arg != "ACCEPT" && cmd.arg != "DROP")
      line_failed(cmd.loc, "Bad policy name.");
    Op op = chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_);
    op.chain.policy = policy_value(cmd.arg);
    known_.insert(cmd.chain);
    out.push_back(std::move(op));
    return true;
  }
  case CommandKind::flush:
    if (cmd.chain.empty())
      return false;
    if (!known_.count(cmd.chain))
      line_failed(cmd.loc, "No chain/target/match by that name.");
    out.push_back(chain_op(OpKind::chain_flush, cmd.chain, cmd.loc, *table_));
    return true;
  case CommandKind::none:
    return true;
  default:
    return false; // -D, -R, -C, -I N, -E, -Z, -X: the whole-block model
  }
}

void OpPlanner::plan_noflush(const Command &cmd, std::vector<Op> &out) {
  switch (cmd.kind) {
  case CommandKind::append:
  case CommandKind::insert:
    if (cmd.kind == CommandKind::insert && cmd.rulenum != 1)
      needs_kernel_rules(cmd, "-I with a rule number");
    ensure_base(cmd, out);
    add_rules(cmd, out);
    break;
  case CommandKind::new_chain:
    if (find_builtin_chain(*table_, cmd.chain))
      line_failed(cmd.loc, "Chain already exists.");
    known_.insert(cmd.chain);
    out.push_back(chain_op(OpKind::chain_new, cmd.chain, cmd.loc, *table_));
    break;
  case CommandKind::flush:
  case CommandKind::delete_chain: {
    bool flush = cmd.kind == CommandKind::flush;
    if (cmd.chain.empty())
      needs_kernel_rules(cmd,
                         flush ? "-F without a chain" : "-X without a chain");
    if (!flush && find_builtin_chain(*table_, cmd.chain))
      line_failed(cmd.loc, "Cannot delete built-in chain.");
    out.push_back(chain_op(flush ? OpKind::chain_flush : OpKind::chain_delete,
                           cmd.chain, cmd.loc, *table_));
    break;
  }
  case CommandKind::policy: {
    if (!find_builtin_chain(*table_, cmd.chain))
      line_failed(cmd.loc, "Bad built-in chain name.");
    if (cmd.arg != "ACCEPT" && cmd.arg != "DROP")
      line_failed(cmd.loc, "Bad policy name.");
    Op op = chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_);
    op.chain.policy = policy_value(cmd.arg);
    known_.insert(cmd.chain);
    out.push_back(std::move(op));
    break;
  }
  case CommandKind::remove:
  case CommandKind::remove_num:
    needs_kernel_rules(cmd, "-D");
  case CommandKind::replace:
    needs_kernel_rules(cmd, "-R");
  case CommandKind::check:
    needs_kernel_rules(cmd, "-C");
  case CommandKind::zero:
    needs_kernel_rules(cmd, "-Z");
  case CommandKind::rename_chain:
    needs_kernel_rules(cmd, "-E");
  case CommandKind::none:
    break;
  }
}

void OpPlanner::finish() const {
  // With --noflush a jump may name a chain the kernel already has; the
  // kernel checks those.
  if (noflush_)
    return;
  for (const auto &[chain, loc] : jumps_)
    if (!known_.count(chain))
      fail(loc, "Chain '" + chain + "' does not exist", ExitCode::parameter);
}

Plan plan_noflush(const Block &block, const BuiltinTable &, bool counters) {
  Plan plan;
  plan.table = block.table;
  plan.loc = block.loc;
  OpPlanner planner(block.table, true, counters);
  for (const auto &e : block.entries)
    planner.add(e, plan.ops);
  planner.finish();
  return plan;
}

} // namespace fastrestore
