// --noflush: one operation per declaration and command, applied to the
// table as the kernel holds it.
#include <linux/netfilter.h>

#include <algorithm>
#include <set>

#include "fastrestore/plan.h"

namespace fastrestore {
namespace {

[[noreturn]] void unsupported(const Command &cmd, const char *what) {
  Diagnostic d;
  d.loc = cmd.loc;
  d.message = std::string(what) +
              " with --noflush needs the kernel's current rules, which "
              "fastrestore does not read yet";
  d.code = ExitCode::parameter;
  throw Error(std::move(d));
}

[[noreturn]] void line_failed(const Location &loc, const std::string &reason) {
  Diagnostic d;
  d.loc = loc;
  d.message = reason;
  d.code = ExitCode::format;
  throw Error(std::move(d));
}

} // namespace

Plan plan_noflush(const Block &block, const BuiltinTable &t, bool counters) {
  Plan plan;
  plan.table = block.table;
  plan.loc = block.loc;
  std::set<std::string> base_seen;

  auto base_chain = [&](const std::string &name, const Location &loc) {
    Op op{OpKind::chain_update, loc, {}, {}};
    op.chain.loc = loc;
    op.chain.name = name;
    op.chain.builtin = find_builtin_chain(t, name);
    return op;
  };
  auto ensure_base = [&](const Command &cmd) {
    if (find_builtin_chain(t, cmd.chain) && base_seen.insert(cmd.chain).second)
      plan.ops.push_back(base_chain(cmd.chain, cmd.loc));
  };

  for (const auto &e : block.entries) {
    if (e.decl) {
      const ChainDecl &d = *e.decl;
      if (d.builtin) {
        Op op = base_chain(d.name, d.loc);
        if (d.policy != "-")
          op.chain.policy = d.policy == "DROP" ? NF_DROP : NF_ACCEPT;
        if (counters) {
          op.chain.counters = true;
          op.chain.packets = d.packets;
          op.chain.bytes = d.bytes;
        }
        base_seen.insert(d.name);
        plan.ops.push_back(std::move(op));
      } else {
        Op op{OpKind::chain_restore, d.loc, {}, {}};
        op.chain.name = d.name;
        plan.ops.push_back(std::move(op));
      }
      continue;
    }
    const Command &cmd = *e.cmd;
    switch (cmd.kind) {
    case CommandKind::append:
    case CommandKind::insert:
      if (cmd.kind == CommandKind::insert && cmd.rulenum != 1)
        unsupported(cmd, "-I with a rule number");
      ensure_base(cmd);
      for (const auto &r : cmd.rules) {
        Op op{cmd.kind == CommandKind::append ? OpKind::rule_append
                                              : OpKind::rule_insert,
              cmd.loc,
              {},
              r};
        op.chain.name = cmd.chain;
        plan.ops.push_back(std::move(op));
      }
      // -I 1 with several addresses inserts them in input order.
      if (cmd.kind == CommandKind::insert && cmd.rules.size() > 1)
        std::reverse(plan.ops.end() - cmd.rules.size(), plan.ops.end());
      break;
    case CommandKind::new_chain: {
      if (find_builtin_chain(t, cmd.chain))
        line_failed(cmd.loc, "Chain already exists.");
      Op op{OpKind::chain_new, cmd.loc, {}, {}};
      op.chain.name = cmd.chain;
      plan.ops.push_back(std::move(op));
      break;
    }
    case CommandKind::flush:
    case CommandKind::delete_chain: {
      if (cmd.chain.empty())
        unsupported(cmd, cmd.kind == CommandKind::flush ? "-F without a chain"
                                                        : "-X without a chain");
      if (cmd.kind == CommandKind::delete_chain &&
          find_builtin_chain(t, cmd.chain))
        line_failed(cmd.loc, "Cannot delete built-in chain.");
      Op op{cmd.kind == CommandKind::flush ? OpKind::chain_flush
                                           : OpKind::chain_delete,
            cmd.loc,
            {},
            {}};
      op.chain.name = cmd.chain;
      plan.ops.push_back(std::move(op));
      break;
    }
    case CommandKind::policy: {
      if (!find_builtin_chain(t, cmd.chain))
        line_failed(cmd.loc, "Bad built-in chain name.");
      if (cmd.arg != "ACCEPT" && cmd.arg != "DROP")
        line_failed(cmd.loc, "Bad policy name.");
      Op op = base_chain(cmd.chain, cmd.loc);
      op.chain.policy = cmd.arg == "DROP" ? NF_DROP : NF_ACCEPT;
      base_seen.insert(cmd.chain);
      plan.ops.push_back(std::move(op));
      break;
    }
    case CommandKind::remove:
    case CommandKind::remove_num:
      unsupported(cmd, "-D");
    case CommandKind::replace:
      unsupported(cmd, "-R");
    case CommandKind::check:
      unsupported(cmd, "-C");
    case CommandKind::zero:
      unsupported(cmd, "-Z");
    case CommandKind::rename_chain:
      unsupported(cmd, "-E");
    case CommandKind::none:
      break;
    }
  }
  return plan;
}

} // namespace fastrestore
