// OpPlanner's --noflush commands (see plan.h): commands by position or by
// rule specification, -F/-X without a chain, -Z, -E, against the model
// of the kernel's table (table_model.h): a chain is read when a command
// first needs it (the whole table when a command needs every chain), with
// the block's earlier changes to it replayed.
#include <linux/netfilter.h>

#include <algorithm>

#include "check/plan.h"
#include "check_errors.h"

namespace fastrestore {

using check::chain_exists;
using check::chain_not_empty;
using check::chain_op;
using check::check_rename_target;
using check::fail;
using check::index_too_big;
using check::name_taken;
using check::needs_kernel_rules;
using check::no_such_chain;
using check::no_such_rule;

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
      chain_exists(cmd.loc);
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
      TableModel &m = whole(cmd);
      for (const auto &name : m.names()) {
        Chain *c = m.find(name);
        if (c == nullptr)
          continue;
        if (!flush && c->base && (!c->rules.empty() || !c->accept()))
          continue;
        if (!flush)
          drop_policy_rule(name, *c, cmd.loc, out);
        Op op = chain_op(flush ? OpKind::chain_flush : OpKind::chain_delete,
                         name, cmd.loc, *table_);
        op.chain_handle = c->handle;
        out.push_back(std::move(op));
        const auto policy = flush && family_ == Family::bridge && !c->base
                                ? policy_of(*c)
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
    // A base chain must be there. iptables-nft keeps one whose policy is
    // not ACCEPT ("Directory not empty."); one that holds rules it sends,
    // and the kernel refuses to delete it (CHAIN_DEL busy, status 4).
    if (!flush && find_builtin_chain(*table_, cmd.chain) &&
        !model_chain(cmd).accept())
      chain_not_empty(cmd.loc);
    if (!flush && chain_read(cmd.chain))
      if (const Chain *c = model_.find(cmd.chain))
        op.chain_handle = c->handle;
    if (auto r = renamed_.find(cmd.chain); !flush && r != renamed_.end())
      op.chain_handle = r->second.handle;
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
    if (family_ == Family::bridge && !find_builtin_chain(*table_, cmd.chain))
      plan_user_policy(cmd, out);
    else
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

void OpPlanner::plan_positional(const Command &cmd, std::vector<Op> &out) {
  if (cmd.kind == CommandKind::rename_chain && !whole_ && kernel_.chain_head &&
      !chain_read(cmd.chain) && !chain_read(cmd.arg) && !logged(cmd.chain) &&
      !logged(cmd.arg)) {
    rename_unread(cmd, out);
    return;
  }
  if (cmd.kind == CommandKind::rename_chain) {
    TableModel &m = whole(cmd); // the new name must be free
    // iptables-nft looks for the new name first.
    if (m.has(cmd.arg) || find_builtin_chain(*table_, cmd.arg))
      name_taken(cmd.loc);
    const Chain *c = m.find(cmd.chain);
    if (c == nullptr || c->base)
      no_such_chain(cmd.loc);
    check_rename_target(cmd);
    if (c->handle == 0)
      fail(cmd.loc,
           "cannot rename chain '" + cmd.chain +
               "' in the block that created it with --noflush",
           ExitCode::parameter);
    Op op = chain_op(OpKind::chain_rename, cmd.chain, cmd.loc, *table_);
    op.chain_handle = c->handle;
    op.new_name = cmd.arg;
    out.push_back(std::move(op));
    m.rename(cmd.chain, cmd.arg);
    known_.erase(cmd.chain);
    known_.insert(cmd.arg);
    return;
  }
  Chain &c = model_chain(cmd, false);
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
      index_too_big(cmd.loc, "insertion");
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
      index_too_big(cmd.loc, "deletion");
    Op op = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
    op.ref = c.rules[n - 1];
    c.rules.erase(c.rules.begin() + (n - 1));
    out.push_back(std::move(op));
    break;
  }
  case CommandKind::replace: {
    if (n > len)
      index_too_big(cmd.loc, "replacement");
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

const std::string &OpPlanner::identity(const RuleRef &ref) {
  auto key = std::make_pair(ref.handle, ref.id);
  auto it = identities_.find(key);
  if (it != identities_.end())
    return it->second;
  std::string id;
  if (ref.handle) {
    auto m = kernel_msgs_.find(ref.handle);
    if (m != kernel_msgs_.end() && kernel_.identify_message)
      id = kernel_.identify_message(m->second);
  } else if (kernel_.identify_batch_rule) {
    id = kernel_.identify_batch_rule(ref.id);
  }
  return identities_.emplace(key, std::move(id)).first->second;
}

// -D and -C by rule specification: the first rule of the chain with the
// same identity (never ebtables-nft's policy rule: its user data marks it).
void OpPlanner::plan_by_spec(const Command &cmd, std::vector<Op> &out) {
  if (!kernel_.identify_rule || !kernel_.identify_message ||
      !kernel_.identify_batch_rule)
    needs_kernel_rules(cmd, cmd.kind == CommandKind::check
                                ? "-C"
                                : "-D with a rule specification");
  // The rule is looked for by the keys of the journal's record first
  // (found: -C answers, -D deletes it; else the chain's messages are read).
  const bool check = cmd.kind == CommandKind::check;
  if (check && checked_by_key(cmd))
    return;
  // A chain that is not there holds no such rule, as iptables-nft says.
  Chain *found = find_chain(cmd, false);
  if (found == nullptr)
    no_such_rule(cmd.loc);
  Chain &c = *found;
  for (const auto &r : cmd.rules) {
    auto it = c.rules.end();
    if (recorded_.count(cmd.chain) != 0) {
      it = found_by_key(cmd.chain, c, r, !check);
      if (it != c.rules.end() && check)
        continue;
      if (it == c.rules.end())
        read_messages(cmd);
    }
    if (it == c.rules.end()) {
      const std::string want = kernel_.identify_rule(r);
      it =
          std::find_if(c.rules.begin(), c.rules.end(), [&](const RuleRef &ref) {
            return identity(ref) == want;
          });
    }
    if (it == c.rules.end())
      no_such_rule(cmd.loc);
    if (cmd.kind == CommandKind::remove) {
      Op op = chain_op(OpKind::rule_delete, cmd.chain, cmd.loc, *table_);
      op.ref = *it;
      out.push_back(std::move(op));
      c.rules.erase(it);
    }
  }
}

// -C of rules each found by key in the journal's record of a chain the
// block has not read or changed (nothing else of the chain decoded).
bool OpPlanner::checked_by_key(const Command &cmd) {
  if (!kernel_.recorded_rule || !kernel_.record_keys || cmd.rules.empty() ||
      chain_read(cmd.chain) || logged(cmd.chain) ||
      renamed_.count(cmd.chain) != 0)
    return false;
  return std::all_of(cmd.rules.begin(), cmd.rules.end(), [&](const Rule &r) {
    return kernel_.recorded_rule(cmd.chain, kernel_.record_keys(r)).has_value();
  });
}

// -Z: base chain counters, and every rule the kernel holds written again
// with its counters at zero (as iptables-nft does).
void OpPlanner::plan_zero(const Command &cmd, std::vector<Op> &out) {
  std::vector<std::string> names;
  if (cmd.chain.empty()) {
    names = whole(cmd).names();
  } else {
    model_chain(cmd);
    names.push_back(cmd.chain);
  }
  for (const auto &name : names) {
    const Chain *c = model_.find(name);
    if (c == nullptr)
      continue;
    if (c->base) {
      Op op = chain_op(OpKind::chain_update, name, cmd.loc, *table_);
      op.chain.counters = true;
      out.push_back(std::move(op));
    }
    for (const auto &ref : c->rules) {
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
  if (whole_) {
    apply(ev, chain, id); // (a chain made goes last, as the kernel lists it)
    return;
  }
  const bool read = read_.count(chain) != 0;
  if (read)
    apply(ev, chain, id);
  log_.push_back(Logged{ev, chain, id, read});
}

void OpPlanner::apply(Event ev, const std::string &chain, uint32_t id) {
  Chain *c = model_.find(chain);
  switch (ev) {
  case Event::create:
    if (c == nullptr) {
      Chain made;
      made.name = chain;
      made.builtin = find_builtin_chain(*table_, chain);
      made.base = made.builtin != nullptr;
      model_.add(std::move(made));
    }
    break;
  case Event::remove:
    model_.remove(chain);
    break;
  case Event::flush:
    if (c != nullptr)
      c->rules.clear();
    break;
  case Event::policy:
    if (c != nullptr)
      c->policy = id;
    break;
  case Event::append:
  case Event::insert_head:
    if (c == nullptr)
      break; // the kernel will refuse the rule
    if (ev == Event::append)
      c->rules.push_back(RuleRef{0, id});
    else
      c->rules.insert(c->rules.begin(), RuleRef{0, id});
    break;
  }
}

OpPlanner::Chain OpPlanner::from_kernel(const KernelChain &kc) {
  Chain c;
  c.name = kc.name;
  c.builtin = find_builtin_chain(*table_, kc.name);
  c.base = kc.base;
  c.policy = kc.accept() ? NF_ACCEPT : NF_DROP;
  c.handle = kc.handle;
  c.rules.reserve(kc.rules.size());
  for (size_t i = 0; i < kc.rules.size(); ++i) {
    c.rules.push_back(RuleRef{kc.rules[i], 0});
    if (i < kc.messages.size())
      kernel_msgs_.emplace(kc.rules[i], kc.messages[i]);
  }
  if (kc.eb_policy && !kc.rules.empty())
    kernel_policy_rules_.emplace(kc.rules.back(), *kc.eb_policy);
  return c;
}

// -E of a chain the block has not read or changed, as the whole table's
// model would plan it (the same checks in the same order), from two
// lookups by name: the new name's, the chain's (its handle).
void OpPlanner::rename_unread(const Command &cmd, std::vector<Op> &out) {
  // iptables-nft looks for the new name first.
  if (find_builtin_chain(*table_, cmd.arg) || chain_exists_now(cmd.arg))
    name_taken(cmd.loc);
  auto r = renamed_.find(cmd.chain);
  const std::string kernel_name =
      r != renamed_.end() ? r->second.from : cmd.chain;
  const std::optional<KernelChain> kc = kernel_.chain_head(kernel_name);
  if (!kc || kc->base)
    no_such_chain(cmd.loc);
  check_rename_target(cmd);
  Op op = chain_op(OpKind::chain_rename, cmd.chain, cmd.loc, *table_);
  op.chain_handle = kc->handle;
  op.new_name = cmd.arg;
  out.push_back(std::move(op));
  if (r != renamed_.end())
    renamed_.erase(r);
  renamed_[cmd.arg] = Renamed{kernel_name, kc->handle};
  read_.insert(kernel_name);
  known_.erase(cmd.chain);
  known_.insert(cmd.arg);
}

// The chain `cmd` names, renamed by the block before it was read: read by
// the name the kernel knows it by.
void OpPlanner::read_renamed(const Command &cmd) {
  if (!kernel_.read_chains) {
    whole(cmd);
    return;
  }
  const std::string from = renamed_.at(cmd.chain).from;
  renamed_.erase(cmd.chain);
  KernelTable kt = kernel_.read_chains({from});
  KernelChain *kc = kt.find(from);
  if (kc != nullptr)
    kc->name = cmd.chain;
  load_chain(cmd.chain, kc);
}

bool OpPlanner::logged(const std::string &name) const {
  return std::any_of(log_.begin(), log_.end(),
                     [&](const Logged &l) { return l.chain == name; });
}

// Chain `name` as the kernel has it (`kc`; null: it has none), with the
// block's changes to it so far.
void OpPlanner::load_chain(const std::string &name, const KernelChain *kc) {
  if (kc != nullptr && !model_.has(name))
    model_.add(from_kernel(*kc));
  for (auto &l : log_)
    if (!l.applied && l.chain == name) {
      apply(l.ev, name, l.id);
      l.applied = true;
    }
  read_.insert(name);
}

TableModel &OpPlanner::whole(const Command &cmd) {
  if (whole_)
    return model_;
  if (!kernel_.read)
    needs_kernel_rules(cmd, "this command");
  const KernelTable &kt = kernel_.read();
  // The chains read one by one keep their state; the others are read
  // from this dump. The order is the kernel's, then the block's creations
  // (last) and removals replayed.
  std::vector<std::string> order;
  std::set<std::string> present;
  std::map<std::string, std::string> new_name; // renamed_, the other way
  for (const auto &[to, from] : renamed_)
    new_name.emplace(from.from, to);
  renamed_.clear();
  for (const auto &kc : kt.chains) {
    if (auto n = new_name.find(kc.name); n != new_name.end()) {
      KernelChain named = kc;
      named.name = n->second;
      order.push_back(named.name);
      present.insert(named.name);
      if (!model_.has(named.name))
        model_.add(from_kernel(named));
      continue;
    }
    order.push_back(kc.name);
    present.insert(kc.name);
    if (read_.count(kc.name) == 0) {
      if (!model_.has(kc.name))
        model_.add(from_kernel(kc));
    } else if (recorded_.count(kc.name) != 0) {
      // Read from the record: its handle and messages now known.
      Chain *c = model_.find(kc.name);
      if (c != nullptr && c->recorded) {
        c->handle = kc.handle;
        c->recorded = false;
      }
      for (size_t i = 0; i < kc.rules.size() && i < kc.messages.size(); ++i)
        kernel_msgs_.emplace(kc.rules[i], kc.messages[i]);
    }
  }
  recorded_.clear();
  for (const auto &l : log_) {
    if (l.ev == Event::create && present.insert(l.chain).second)
      order.push_back(l.chain);
    if (l.ev == Event::remove && present.erase(l.chain) != 0)
      order.erase(std::find(order.begin(), order.end(), l.chain));
    if (!l.applied)
      apply(l.ev, l.chain, l.id);
  }
  log_.clear();
  read_.clear();
  whole_ = true;
  model_.arrange(order);
  return model_;
}

OpPlanner::Chain &OpPlanner::model_chain(const Command &cmd, bool messages) {
  Chain *c = find_chain(cmd, messages);
  if (c == nullptr)
    no_such_chain(cmd.loc);
  return *c;
}

OpPlanner::Chain *OpPlanner::find_chain(const Command &cmd, bool messages) {
  if (chain_read(cmd.chain)) {
    if (messages && recorded_.count(cmd.chain) != 0)
      read_messages(cmd);
  } else if (renamed_.count(cmd.chain) != 0) {
    read_renamed(cmd);
  } else if (!messages && load_recorded(cmd.chain)) {
    // (Planned from the journal's record.)
  } else {
    if (!kernel_.read)
      needs_kernel_rules(cmd, "this command");
    if (kernel_.read_chains) {
      // One chain: a GETCHAIN and a rule dump of that chain alone.
      const KernelTable kt = kernel_.read_chains({cmd.chain});
      load_chain(cmd.chain, kt.find(cmd.chain));
    } else {
      whole(cmd);
    }
  }
  return model_.find(cmd.chain);
}

// Chain `name` from the journal's record (recorded_chain), when it has
// it: the rules' handles and keys, no messages.
bool OpPlanner::load_recorded(const std::string &name) {
  if (!kernel_.recorded_chain)
    return false;
  std::vector<uint64_t> keys;
  std::optional<KernelChain> kc = kernel_.recorded_chain(name, keys);
  if (!kc)
    return false;
  RecordedRules &recorded = recorded_keys_[name];
  recorded.handles = kc->rules;
  recorded.keys = std::move(keys);
  load_chain(name, &*kc);
  if (Chain *c = model_.find(name))
    c->recorded = true;
  recorded_.insert(name);
  return true;
}

// The messages of the rules of `cmd`'s chain, read from the record at
// first: the chain read from the kernel after all (the same handles: the
// batch goes with the generation the record is of).
void OpPlanner::read_messages(const Command &cmd) {
  recorded_.erase(cmd.chain);
  if (!kernel_.read_chains) {
    whole(cmd);
    return;
  }
  const KernelTable kt = kernel_.read_chains({cmd.chain});
  for (const auto &kc : kt.chains) {
    if (kc.name != cmd.chain)
      continue;
    for (size_t i = 0; i < kc.rules.size() && i < kc.messages.size(); ++i)
      kernel_msgs_.emplace(kc.rules[i], kc.messages[i]);
    Chain *c = model_.find(cmd.chain);
    if (c != nullptr && c->recorded) {
      c->handle = kc.handle;
      c->recorded = false;
    }
  }
}

// The first rule of chain `name` (`c`) whose recorded key is one a rule
// like `rule` has (the same rule, told without its messages), or
// c.rules.end(). With `first` (-D: the first same rule is the one
// deleted), also end() when the block put rules of its own in the chain:
// their keys are not recorded, and the first same rule may be one of
// them.
std::vector<RuleRef>::iterator OpPlanner::found_by_key(const std::string &name,
                                                       Chain &c,
                                                       const Rule &rule,
                                                       bool first) {
  auto recorded = recorded_keys_.find(name);
  if (!kernel_.record_keys || recorded == recorded_keys_.end() ||
      (first &&
       std::any_of(c.rules.begin(), c.rules.end(),
                   [](const RuleRef &ref) { return ref.handle == 0; })))
    return c.rules.end();
  const auto [by_message, by_identity] = kernel_.record_keys(rule);
  const RecordedRules &r = recorded->second;
  for (size_t i = 0; i < r.keys.size() && i < r.handles.size(); ++i) {
    if (r.keys[i] != by_message && r.keys[i] != by_identity)
      continue;
    // (Still in the chain: not deleted by the block before.)
    for (auto it = c.rules.begin(); it != c.rules.end(); ++it)
      if (it->handle == r.handles[i])
        return it;
  }
  return c.rules.end();
}

} // namespace fastrestore
