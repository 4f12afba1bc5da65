// Entry-by-entry planning (see OpPlanner in plan.h).
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

#include <algorithm>
#include <cstring>

#include "check_errors.h"
#include "fastrestore/plan.h"

namespace fastrestore {
namespace {

using check::check_rename_target;
using check::declared_policy;
using check::fail;
using check::line_failed;
using check::policy_value;

[[noreturn]] void needs_kernel_rules(const Command &cmd, const char *what) {
  fail(cmd.loc,
       std::string(what) +
           " with --noflush needs the contents of the kernel's rules, which "
           "fastrestore does not read yet",
       ExitCode::parameter);
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

OpPlanner::OpPlanner(const std::string &table, bool noflush, bool counters,
                     KernelAccess kernel, Family family, uint32_t id_base)
    : table_(find_builtin_table(table, family)), family_(family),
      noflush_(noflush), counters_(counters), kernel_(std::move(kernel)),
      next_id_(id_base) {
  if (table_ == nullptr)
    fail({}, "table name '" + table + "' invalid", ExitCode::parameter);
}

void OpPlanner::ensure_base(const Command &cmd, std::vector<Op> &out) {
  if (!find_builtin_chain(*table_, cmd.chain) ||
      !known_.insert(cmd.chain).second)
    return;
  // With --noflush a base chain the kernel already has is left alone:
  // sending it again registers its hook again, about 15 ms in the kernel
  // for every block.
  if (noflush_ &&
      (model_ ? model_->count(cmd.chain) > 0
              : kernel_.chain_exists && kernel_.chain_exists(cmd.chain)))
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

// The verdict of ebtables-nft's policy rule when it ends chain `c` (a rule
// marked in its user data: type 1, length 4, value 1).
bool OpPlanner::chain_exists_now(const std::string &chain) {
  if (model_)
    return model_->count(chain) > 0;
  // The block's own creations and deletions so far, newest first; then
  // the kernel (one GETCHAIN).
  for (auto it = log_.rbegin(); it != log_.rend(); ++it) {
    const auto &[ev, name, id] = *it;
    if (name != chain)
      continue;
    if (ev == Event::create)
      return true;
    if (ev == Event::remove)
      return false;
  }
  return kernel_.chain_exists && kernel_.chain_exists(chain);
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

std::optional<uint32_t> OpPlanner::policy_of(const Chain &c) const {
  if (c.rules.empty() || c.rules.back().handle == 0)
    return std::nullopt;
  auto msg = kernel_msgs_.find(c.rules.back().handle);
  static const char kPolicy[] = {10, 0, NFTA_RULE_USERDATA, 0, 1, 4, 1, 0,
                                 0,  0};
  if (msg == kernel_msgs_.end() ||
      msg->second.find(std::string(kPolicy, sizeof(kPolicy))) ==
          std::string::npos)
    return std::nullopt;
  std::optional<uint32_t> verdict;
  nftnl_rule *r = nftnl_rule_alloc();
  if (r != nullptr &&
      nftnl_rule_nlmsg_parse(
          reinterpret_cast<const nlmsghdr *>(msg->second.data()), r) == 0)
    nftnl_expr_foreach(
        r,
        [](nftnl_expr *e, void *data) {
          if (std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME),
                          "immediate") == 0 &&
              nftnl_expr_is_set(e, NFTNL_EXPR_IMM_VERDICT))
            *static_cast<std::optional<uint32_t> *>(data) =
                nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT);
          return 0;
        },
        &verdict);
  nftnl_rule_free(r);
  return verdict;
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
      known_.insert(d.name);
      if (noflush_) {
        record(Event::create, d.name);
        if (op.chain.policy)
          record(Event::policy, d.name, *op.chain.policy);
      }
      out.push_back(std::move(op));
    } else if (noflush_) {
      // Created if missing, flushed if present.
      out.push_back(chain_op(OpKind::chain_restore, d.name, d.loc, *table_));
      known_.insert(d.name);
      record(Event::create, d.name);
      record(Event::flush, d.name);
    } else if (known_.insert(d.name).second) {
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
  case CommandKind::policy:
    plan_policy(cmd, out);
    return true;
  case CommandKind::flush:
    if (cmd.chain.empty())
      return false;
    ensure_base(cmd, out); // -F of a base chain creates it, as in iptables
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

void OpPlanner::plan_noflush(Command &cmd, std::vector<Op> &out) {
  switch (cmd.kind) {
  case CommandKind::append:
    check_jumps(cmd);
    ensure_base(cmd, out);
    require_chain(cmd);
    if (!append_before_policy(cmd, out))
      add_rules(cmd, out);
    break;
  case CommandKind::insert:
    check_jumps(cmd);
    ensure_base(cmd, out);
    if (cmd.rulenum == 1) {
      require_chain(cmd);
      add_rules(cmd, out);
    } else
      plan_positional(cmd, out);
    break;
  case CommandKind::remove_num:
  case CommandKind::replace:
  case CommandKind::rename_chain:
    if (cmd.kind == CommandKind::rename_chain)
      kernel_chains_.clear(); // a jump target may be gone
    else
      check_jumps(cmd);
    plan_positional(cmd, out);
    break;
  case CommandKind::new_chain:
    // iptables-nft and ebtables-nft look the chain up before they add it.
    if (find_builtin_chain(*table_, cmd.chain) || chain_exists_now(cmd.chain))
      line_failed(cmd.loc, "Chain already exists.");
    known_.insert(cmd.chain);
    out.push_back(chain_op(OpKind::chain_new, cmd.chain, cmd.loc, *table_));
    record(Event::create, cmd.chain);
    break;
  case CommandKind::flush:
  case CommandKind::delete_chain: {
    const bool flush = cmd.kind == CommandKind::flush;
    if (!flush)
      kernel_chains_.clear(); // a jump target may be gone
    if (cmd.chain.empty()) {
      // Every chain (-F), or every user chain and every idle base chain
      // (-X), as iptables-nft does.
      auto &m = model(cmd);
      for (const auto &name : std::vector<std::string>(model_order_)) {
        auto it = m.find(name);
        if (it == m.end())
          continue;
        const Chain &c = it->second;
        if (!flush && c.base && (!c.rules.empty() || !c.accept))
          continue;
        if (!flush)
          drop_policy_rule(name, it->second, cmd.loc, out);
        Op op = chain_op(flush ? OpKind::chain_flush : OpKind::chain_delete,
                         name, cmd.loc, *table_);
        op.chain_handle = c.handle;
        out.push_back(std::move(op));
        const auto policy = flush && family_ == Family::bridge && !c.base
                                ? policy_of(c)
                                : std::nullopt;
        record(flush ? Event::flush : Event::remove, name);
        keep_policy(name, cmd.loc, policy, out);
      }
      break;
    }
    if (flush)
      ensure_base(cmd, out);
    require_chain(cmd);
    if (!flush)
      kernel_chains_.erase(cmd.chain);
    Op op = chain_op(flush ? OpKind::chain_flush : OpKind::chain_delete,
                     cmd.chain, cmd.loc, *table_);
    if (!flush && find_builtin_chain(*table_, cmd.chain)) {
      // An empty base chain may go; one with rules may not.
      const Chain &c = model_chain(cmd);
      if (!c.rules.empty())
        line_failed(cmd.loc, "Directory not empty.");
    }
    if (!flush && model_) {
      auto it = model_->find(cmd.chain);
      if (it != model_->end())
        op.chain_handle = it->second.handle;
    }
    std::optional<uint32_t> policy;
    if (flush && family_ == Family::bridge &&
        !find_builtin_chain(*table_, cmd.chain))
      policy = policy_of(model_chain(cmd));
    if (!flush && family_ == Family::bridge &&
        !find_builtin_chain(*table_, cmd.chain))
      drop_policy_rule(cmd.chain, model_chain(cmd), cmd.loc, out);
    out.push_back(std::move(op));
    record(flush ? Event::flush : Event::remove, cmd.chain);
    keep_policy(cmd.chain, cmd.loc, policy, out);
    break;
  }
  case CommandKind::policy:
    if (family_ == Family::bridge && !find_builtin_chain(*table_, cmd.chain)) {
      // A user chain's policy is its last rule: the old one goes, the new
      // one (unless RETURN) is appended.
      Chain &c = model_chain(cmd);
      if (policy_of(c)) {
        Op del = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
        del.ref = c.rules.back();
        c.rules.pop_back();
        out.push_back(std::move(del));
      }
      if (cmd.arg != "RETURN")
        keep_policy(cmd.chain, cmd.loc,
                    cmd.arg == "ACCEPT" ? NF_ACCEPT : NF_DROP, out);
      break;
    }
    plan_policy(cmd, out);
    break;
  case CommandKind::remove:
  case CommandKind::check:
    check_jumps(cmd);
    plan_by_spec(cmd, out);
    break;
  case CommandKind::zero:
    check::refuse_zero_rule(cmd);
    plan_zero(cmd, out);
    break;
  case CommandKind::none:
    break;
  }
}

void OpPlanner::plan_policy(const Command &cmd, std::vector<Op> &out) {
  Op op = chain_op(OpKind::chain_update, cmd.chain, cmd.loc, *table_);
  op.chain.policy = check::checked_policy(*table_, cmd);
  if (known_.insert(cmd.chain).second && noflush_)
    record(Event::create, cmd.chain);
  if (noflush_)
    record(Event::policy, cmd.chain, *op.chain.policy);
  out.push_back(std::move(op));
}

void OpPlanner::plan_positional(const Command &cmd, std::vector<Op> &out) {
  auto &m = model(cmd);
  if (cmd.kind == CommandKind::rename_chain) {
    auto it = m.find(cmd.chain);
    if (it == m.end() || it->second.base)
      line_failed(cmd.loc, "No chain/target/match by that name.");
    if (m.count(cmd.arg) || find_builtin_chain(*table_, cmd.arg))
      line_failed(cmd.loc, "File exists.");
    check_rename_target(cmd);
    if (it->second.handle == 0)
      fail(cmd.loc,
           "cannot rename chain '" + cmd.chain +
               "' in the block that created it with --noflush",
           ExitCode::parameter);
    Op op = chain_op(OpKind::chain_rename, cmd.chain, cmd.loc, *table_);
    op.chain_handle = it->second.handle;
    op.new_name = cmd.arg;
    out.push_back(std::move(op));
    Chain moved = std::move(it->second);
    m.erase(it);
    m.emplace(cmd.arg, std::move(moved));
    for (auto &n : model_order_)
      if (n == cmd.chain)
        n = cmd.arg;
    known_.erase(cmd.chain);
    known_.insert(cmd.arg);
    return;
  }
  Chain &c = model_chain(cmd);
  // A bridge user chain's policy rule is not one of its rules to count.
  const bool policy = family_ == Family::bridge &&
                      !find_builtin_chain(*table_, cmd.chain) &&
                      policy_of(c).has_value();
  const size_t n = cmd.rulenum, len = c.rules.size() - (policy ? 1 : 0);
  auto new_rule = [&](OpKind kind, const Rule &r) {
    Op op{kind, cmd.loc, {}, r};
    op.chain.name = cmd.chain;
    op.id = ++next_id_;
    return op;
  };
  switch (cmd.kind) {
  case CommandKind::insert:
    if (n > len + 1)
      line_failed(cmd.loc, "Index of insertion too big.");
    // Each rule goes to position n in turn (several addresses end up in
    // reverse order, as with iptables).
    for (const auto &r : cmd.rules) {
      const bool at_end = !policy && n == c.rules.size() + 1;
      Op op = new_rule(
          at_end ? OpKind::rule_append : OpKind::rule_insert_before, r);
      if (!at_end)
        op.ref = c.rules[n - 1];
      c.rules.insert(c.rules.begin() + (n - 1), RuleRef{0, op.id});
      out.push_back(std::move(op));
    }
    break;
  case CommandKind::remove_num: {
    if (n > len)
      line_failed(cmd.loc, "Index of deletion too big.");
    Op op = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
    op.ref = c.rules[n - 1];
    c.rules.erase(c.rules.begin() + (n - 1));
    out.push_back(std::move(op));
    break;
  }
  case CommandKind::replace: {
    if (n > len)
      line_failed(cmd.loc, "Index of replacement too big.");
    RuleRef old = c.rules[n - 1];
    Op op = new_rule(OpKind::rule_replace, cmd.rules.front());
    op.ref = old;
    if (old.handle == 0) {
      // A rule of this batch has no handle: delete it, insert in its place.
      Op del = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
      del.ref = old;
      out.push_back(std::move(del));
      op.kind = n < len ? OpKind::rule_insert_before : OpKind::rule_append;
      op.ref = n < len ? c.rules[n] : RuleRef{};
    }
    c.rules[n - 1] = RuleRef{0, op.id};
    out.push_back(std::move(op));
    break;
  }
  default:
    break;
  }
}

const std::string &OpPlanner::signature(const RuleRef &ref) {
  auto key = std::make_pair(ref.handle, ref.id);
  auto it = sigs_.find(key);
  if (it != sigs_.end())
    return it->second;
  std::string sig;
  if (ref.handle) {
    auto m = kernel_msgs_.find(ref.handle);
    if (m != kernel_msgs_.end() && kernel_.sign_message)
      sig = kernel_.sign_message(m->second);
  } else if (kernel_.sign_batch_rule) {
    sig = kernel_.sign_batch_rule(ref.id);
  }
  return sigs_.emplace(key, std::move(sig)).first->second;
}

// -D and -C by rule specification: the first rule of the chain with the
// same signature.
void OpPlanner::plan_by_spec(const Command &cmd, std::vector<Op> &out) {
  if (!kernel_.sign_rule || !kernel_.sign_message || !kernel_.sign_batch_rule)
    needs_kernel_rules(cmd, cmd.kind == CommandKind::check
                                ? "-C"
                                : "-D with a rule specification");
  Chain &c = model_chain(cmd);
  for (const auto &r : cmd.rules) {
    const std::string want = kernel_.sign_rule(r);
    auto it =
        std::find_if(c.rules.begin(), c.rules.end(), [&](const RuleRef &ref) {
          return signature(ref) == want;
        });
    if (it == c.rules.end())
      line_failed(cmd.loc,
                  "Bad rule (does a matching rule exist in that chain?).");
    if (cmd.kind == CommandKind::remove) {
      Op op = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
      op.ref = *it;
      out.push_back(std::move(op));
      c.rules.erase(it);
    }
  }
}

// -Z: base chain counters, and every rule the kernel holds written again
// with its counters at zero (as iptables-nft does).
void OpPlanner::plan_zero(const Command &cmd, std::vector<Op> &out) {
  auto &m = model(cmd);
  std::vector<std::string> names;
  if (cmd.chain.empty()) {
    names = model_order_;
  } else {
    model_chain(cmd);
    names.push_back(cmd.chain);
  }
  for (const auto &name : names) {
    auto it = m.find(name);
    if (it == m.end())
      continue;
    if (it->second.base) {
      Op op = chain_op(OpKind::chain_update, name, cmd.loc, *table_);
      op.chain.counters = true;
      out.push_back(std::move(op));
    }
    for (const auto &ref : it->second.rules) {
      auto msg = kernel_msgs_.find(ref.handle);
      if (ref.handle == 0 || msg == kernel_msgs_.end())
        continue;
      Op op = chain_op(OpKind::rule_zero, name, cmd.loc, *table_);
      op.ref = ref;
      op.message = msg->second;
      out.push_back(std::move(op));
    }
  }
}

void OpPlanner::record(Event ev, const std::string &chain, uint32_t id) {
  if (model_)
    apply(ev, chain, id);
  else
    log_.emplace_back(ev, chain, id);
}

void OpPlanner::apply(Event ev, const std::string &chain, uint32_t id) {
  auto &m = *model_;
  auto it = m.find(chain);
  switch (ev) {
  case Event::create:
    if (it == m.end()) {
      Chain c;
      c.base = find_builtin_chain(*table_, chain) != nullptr;
      m.emplace(chain, std::move(c));
      model_order_.push_back(chain);
    }
    break;
  case Event::remove:
    if (it != m.end()) {
      m.erase(it);
      model_order_.erase(
          std::find(model_order_.begin(), model_order_.end(), chain));
    }
    break;
  case Event::flush:
    if (it != m.end())
      it->second.rules.clear();
    break;
  case Event::policy:
    if (it != m.end())
      it->second.accept = id == NF_ACCEPT;
    break;
  case Event::append:
  case Event::insert_head:
    if (it == m.end())
      break; // the kernel will refuse the rule
    if (ev == Event::append)
      it->second.rules.push_back(RuleRef{0, id});
    else
      it->second.rules.insert(it->second.rules.begin(), RuleRef{0, id});
    break;
  }
}

std::map<std::string, OpPlanner::Chain> &OpPlanner::model(const Command &cmd) {
  if (model_)
    return *model_;
  if (!kernel_.read)
    needs_kernel_rules(cmd, "this command");
  KernelTable kt = kernel_.read();
  model_.emplace();
  for (const auto &kc : kt.chains) {
    Chain c;
    c.base = kc.base;
    c.accept = kc.accept;
    c.handle = kc.handle;
    for (size_t i = 0; i < kc.rules.size(); ++i) {
      c.rules.push_back(RuleRef{kc.rules[i], 0});
      if (i < kc.messages.size())
        kernel_msgs_.emplace(kc.rules[i], kc.messages[i]);
    }
    model_->emplace(kc.name, std::move(c));
    model_order_.push_back(kc.name);
  }
  for (const auto &[ev, chain, id] : log_)
    apply(ev, chain, id);
  log_.clear();
  return *model_;
}

OpPlanner::Chain &OpPlanner::model_chain(const Command &cmd) {
  auto &m = model(cmd);
  auto it = m.find(cmd.chain);
  if (it == m.end())
    line_failed(cmd.loc, "No chain/target/match by that name.");
  return it->second;
}

void OpPlanner::require_chain(const Command &cmd) {
  // --noflush into a user chain the block has not made: the kernel's, or
  // refused as iptables-nft refuses it (not left to the kernel).
  if (find_builtin_chain(*table_, cmd.chain) || known_.count(cmd.chain) ||
      kernel_chains_.count(cmd.chain))
    return;
  if (kernel_.chain_exists && !chain_exists_now(cmd.chain))
    line_failed(cmd.loc, "No chain/target/match by that name.");
  kernel_chains_.insert(cmd.chain);
}

void OpPlanner::check_jumps(const Command &cmd) {
  // iptables-nft checks a rule's jump before the chain it goes into, in
  // the order of the block's commands: the chain must have been made by
  // then. With --noflush it may be the kernel's: asked once per chain.
  for (const auto &r : cmd.rules) {
    if ((r.verdict != Verdict::jump && r.verdict != Verdict::go) ||
        find_builtin_chain(*table_, r.jump_chain) ||
        known_.count(r.jump_chain) || kernel_chains_.count(r.jump_chain))
      continue;
    if (noflush_ && (!kernel_.chain_exists || chain_exists_now(r.jump_chain))) {
      kernel_chains_.insert(r.jump_chain);
      continue;
    }
    fail(r.loc, "Chain '" + r.jump_chain + "' does not exist",
         ExitCode::parameter);
  }
}

Plan plan_noflush(const Block &block, bool counters, KernelAccess kernel,
                  uint32_t id_base) {
  Plan plan;
  plan.table = block.table;
  plan.loc = block.loc;
  OpPlanner planner(block.table, true, counters, std::move(kernel),
                    block.family, id_base);
  std::optional<Error> refused;
  for (auto e : block.entries) // a copy: the entry's rules move into ops
    check::hold_kernel_refusal(refused,
                               [&] { planner.add(std::move(e), plan.ops); });
  if (refused)
    throw *refused;
  return plan;
}

} // namespace fastrestore
