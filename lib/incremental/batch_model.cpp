#include "batch_model.h"

#include <linux/netfilter/nf_tables.h>

#include <algorithm>

#include "batch_messages.h"
#include "nft/nft_dumper.h"
#include "sys/hash64.h"

namespace fastrestore::nft {

BatchModel::BatchModel(const Batch &batch, const TableState &kernel,
                       const std::vector<UnparsedLine> &known)
    : batch_(batch), replacement_(false), known_(known),
      kernel_chains_(kernel.chains.size()) {
  by_name_ = HashIndex(kernel.chains.size() + 64);
  for (size_t k = 0; k < kernel.chains.size(); ++k) {
    const StateChain &kc = kernel.chains[k];
    Chain &c = chains_.emplace_back();
    // The chain without its rules, which are copied when a message
    // needs them (a chain the batch flushes never copies them).
    static_cast<StateChainHead &>(c.state) = kc;
    c.state.counters = false; // desired side: no counters given
    c.pending = &kc.rules;
    by_name_.put(hash64(c.state.name), static_cast<uint32_t>(k));
  }
}

namespace {
const std::vector<UnparsedLine> kNoLines;
} // namespace

BatchModel::BatchModel(const Batch &replacement,
                       const std::vector<std::string_view> &declared)
    : batch_(replacement), replacement_(true), known_(kNoLines) {
  by_name_ = HashIndex(declared.size() + 64);
  for (std::string_view name : declared) {
    doubled_ = doubled_ || find(name) != nullptr;
    add_chain(name).unmade = true;
  }
}

bool BatchModel::apply(std::string_view m, size_t index) {
  const uint16_t type = nft_type(m);
  // A replacement starts with NEWTABLE and DELTABLE.
  if (replacement_ && seen_++ < 2)
    return type == (seen_ == 1 ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE);
  switch (type) {
  case NFT_MSG_NEWTABLE:
    return true;
  case NFT_MSG_NEWCHAIN:
    return new_chain(m, index);
  case NFT_MSG_DELCHAIN:
    return !replacement_ && delete_chain(m);
  case NFT_MSG_NEWRULE:
    return new_rule(m, index);
  case NFT_MSG_DELRULE:
    return !replacement_ && delete_rule(m);
  default:
    return false;
  }
}

bool BatchModel::take_line(size_t k) {
  const UnparsedLine &u = known_[k];
  // (The kernel's chains come first, in the kernel's order.)
  Chain *c = u.kernel_chain < kernel_chains_ && chains_[u.kernel_chain].alive
                 ? &chains_[u.kernel_chain]
                 : find(u.chain);
  if (c == nullptr)
    return false;
  if (u.declares) {
    flush(*c);
    return true;
  }
  repeatable_ = repeatable_ && c->flushed; // else: added twice
  copy_kernel_rules(*c);
  c->rules.push_back(Rule::of(Rule::From::known, k));
  return true;
}

std::optional<DesiredTable> BatchModel::result() {
  if (doubled_ || (replacement_ && seen_ < 2))
    return std::nullopt; // not a replacement
  DesiredTable out;
  out.state.chains.reserve(chains_.size());
  out.chain_messages.reserve(chains_.size());
  out.chain_index.reserve(chains_.size());
  out.rule_sources.reserve(chains_.size());
  for (Chain &c : chains_) {
    if (!c.alive)
      continue;
    out.chain_messages.push_back(c.message);
    out.chain_index.push_back(c.index);
    auto &sources = out.rule_sources.emplace_back();
    StateChain &sc = out.state.chains.emplace_back(std::move(c.state));
    if (c.pending != nullptr) { // only the kernel's rules
      sc.rules.reserve(c.pending->size());
      for (const StateRule &kr : *c.pending)
        sc.rules.push_back(kernel_rule(kr));
      sources.resize(sc.rules.size());
      continue;
    }
    sc.rules.reserve(c.rules.size());
    sources.reserve(c.rules.size());
    for (const Rule &r : c.rules) {
      switch (r.from) {
      case Rule::From::kernel:
        sc.rules.push_back(kernel_rule(*r.kernel));
        sources.emplace_back();
        break;
      case Rule::From::known:
        sc.rules.emplace_back().key = known_[r.ref].key;
        sources.push_back({{}, SIZE_MAX, known_[r.ref].line});
        break;
      case Rule::From::batch: {
        const Made &b = made_[r.ref];
        StateRule made = batch_rule(batch_, b.message, b.index);
        if (b.allocation != SIZE_MAX) {
          Allocation &a = allocations_[b.allocation];
          a.chain = out.state.chains.size() - 1;
          a.rule = sc.rules.size();
        } else {
          made.handle = b.replaces;
        }
        sc.rules.push_back(made);
        sources.push_back({b.message, b.index, batch_.location(b.index).line});
        break;
      }
      }
    }
  }
  out.allocations = std::move(allocations_);
  out.commands_only = commands_only_;
  // (A replacement makes its table again, whatever it holds.)
  out.repeatable = replacement_ || repeatable_;
  return out;
}

// A kernel rule on the desired side: no counters given, no line.
StateRule BatchModel::kernel_rule(const StateRule &kr) {
  StateRule r = kr;
  r.counters = false;
  r.line = 0;
  return r;
}

void BatchModel::copy_kernel_rules(Chain &c) {
  if (c.pending == nullptr)
    return;
  c.rules.reserve(c.pending->size());
  for (const StateRule &kr : *c.pending)
    c.rules.push_back(Rule::of(kr));
  c.pending = nullptr;
}

void BatchModel::flush(Chain &c) {
  c.pending = nullptr;
  c.rules.clear();
  c.flushed = true;
}

BatchModel::Chain &BatchModel::add_chain(std::string_view name) {
  Chain &c = chains_.emplace_back();
  c.state.name = name;
  by_name_.put(hash64(name), static_cast<uint32_t>(chains_.size() - 1));
  return c;
}

// The chain of that name now (one deleted and made again: the new one).
BatchModel::Chain *BatchModel::find(std::string_view name) {
  const HashIndex::Entry *e =
      by_name_.find(hash64(name), [&](const HashIndex::Entry &x) {
        return chains_[x.a].alive && chains_[x.a].state.name == name;
      });
  return e != nullptr ? &chains_[e->a] : nullptr;
}

bool BatchModel::new_chain(std::string_view m, size_t index) {
  if (has_attr(m, NFTA_CHAIN_HANDLE))
    return false; // a rename
  std::string table;
  const KernelChain kc = parse_chain(header(m), &table);
  Chain *c = find(kc.name);
  const bool exclusive = (header(m)->nlmsg_flags & NLM_F_EXCL) != 0;
  if (c == nullptr) {
    allocations_.push_back({index, SIZE_MAX, SIZE_MAX});
    c = &add_chain(kc.name);
  } else if (c->unmade || exclusive) {
    return false; // made after all; -N of a chain that exists
  }
  if (exclusive)
    repeatable_ = false; // -N: refused the second time
  const StateChain made = state_chain(kc);
  if (made.base) {
    c->state.base = true;
    c->state.hook = made.hook;
    c->state.prio = made.prio;
    c->state.type = made.type;
  }
  if (made.has_policy) {
    c->state.has_policy = true;
    c->state.policy = made.policy;
  }
  if (has_attr(m, NFTA_CHAIN_COUNTERS)) {
    c->state.counters = true;
    c->state.packets = kc.packets;
    c->state.bytes = kc.bytes;
  }
  c->message = m;
  c->index = index;
  return true;
}

bool BatchModel::delete_chain(std::string_view m) {
  std::string table;
  const KernelChain kc = parse_chain(header(m), &table);
  Chain *c = find(kc.name);
  if (c == nullptr || !c->rules.empty() ||
      (c->pending != nullptr && !c->pending->empty()))
    return false;
  repeatable_ = repeatable_ && c->flushed; // else: gone the second time
  c->alive = false; // (by_name_ finds living chains only)
  return true;
}

bool BatchModel::new_rule(std::string_view m, size_t index) {
  const RulePlace p = rule_place(m);
  Chain *c = find(p.chain);
  if (p.at == Placing::other || c == nullptr)
    return false;
  // A replacement's rules are appended, without transaction ids (one
  // with them is a --noflush batch).
  if (replacement_ && (p.at != Placing::append || p.id != 0))
    return false;
  // (A rule written again by -Z, without a transaction id, is not
  // followed: its message is the kernel's dump, keyed otherwise.)
  if (p.at == Placing::replace && p.id == 0)
    return false;
  copy_kernel_rules(*c);
  const bool plain = p.at == Placing::append || p.at == Placing::head;
  repeatable_ = repeatable_ && c->flushed && plain; // else: added twice
  auto at = p.at == Placing::head ? c->rules.begin() : c->rules.end();
  if (!plain) {
    at = locate(*c, p.handle, p.position_id);
    if (at == c->rules.end())
      return false;
    if (p.at == Placing::after)
      ++at;
    commands_only_ = true;
  }
  const Rule r = Rule::of(Rule::From::batch, made_.size());
  Made made{m, index, SIZE_MAX, p.id, 0};
  if (p.at == Placing::replace) {
    made.replaces = p.handle; // (which it keeps)
    *at = r;
  } else {
    made.allocation = allocations_.size();
    allocations_.push_back({index, SIZE_MAX, SIZE_MAX});
    c->rules.insert(at, r);
  }
  made_.push_back(made);
  return true;
}

bool BatchModel::delete_rule(std::string_view m) {
  std::string_view name;
  uint64_t handle = 0;
  uint32_t id = 0;
  rule_target(m, name, handle, id);
  Chain *c = find(name);
  if (c == nullptr)
    return false;
  if (handle == 0 && id == 0) { // the chain flushed
    flush(*c);
    return true;
  }
  repeatable_ = false;
  copy_kernel_rules(*c);
  auto it = locate(*c, id != 0 ? 0 : handle, id);
  if (it == c->rules.end())
    return false;
  if (id != 0)
    commands_only_ = true;
  c->rules.erase(it);
  return true;
}

// The rule of `c` with kernel handle `handle` (a kernel rule, or the
// batch's rule in its place), or the batch's rule with transaction id
// `id` when not 0; the chain's end when there is none.
std::vector<BatchModel::Rule>::iterator
BatchModel::locate(Chain &c, uint64_t handle, uint32_t id) {
  return std::find_if(c.rules.begin(), c.rules.end(), [&](const Rule &r) {
    if (r.from == Rule::From::kernel)
      return id == 0 && r.kernel->handle == handle;
    if (r.from != Rule::From::batch)
      return false;
    const Made &b = made_[r.ref];
    return id != 0 ? b.id == id : b.replaces != 0 && b.replaces == handle;
  });
}

} // namespace fastrestore::nft
