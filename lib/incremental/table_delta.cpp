#include "table_delta.h"

#include <arpa/inet.h>
#include <endian.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <cstring>
#include <deque>
#include <unordered_map>

#include "fastrestore/process_heap.h"
#include "nft/nft_attrs.h"
#include "nft/nft_backend.h"
#include "nft/nft_dumper.h"
#include "nft/rule_identity.h"
#include "sys/hash64.h"
#include "sys/hash_index.h"

namespace fastrestore::nft {
namespace {

uint64_t message_key(const nlmsghdr *m) {
  uint64_t h = hash64_seed;
  each_top(m, [&](const nlattr *a) {
    switch (attr_type(a)) {
    case NFTA_RULE_EXPRESSIONS:
      each_nested(a, [&](const nlattr *e) {
        if (expr_name(e) != "counter")
          h = hash64(
              std::string_view(reinterpret_cast<const char *>(e), e->nla_len),
              h);
      });
      break;
    case NFTA_RULE_USERDATA:
    case NFTA_RULE_COMPAT:
      h = hash64(
          std::string_view(reinterpret_cast<const char *>(a), a->nla_len), h);
      break;
    default: // table, chain, handle, position, id: where, not what
      break;
    }
  });
  return h;
}

// A rule bound to a set (ebtables' among): the set is the rule's own,
// under a name each load picks anew.
bool uses_set(const std::string &identity) {
  return identity.rfind("lookup ", 0) == 0 ||
         identity.find("\nlookup ") != std::string::npos;
}

// A chain's name, kind and policy (no rules, no counters), between a
// kernel chain and a chain of a TableState, which name them alike.
template <class To, class From> To chain_head(const From &f) {
  To t;
  t.name = f.name;
  t.base = f.base;
  t.hook = f.hook;
  t.prio = f.prio;
  t.type = f.type;
  t.has_policy = f.has_policy;
  t.policy = f.policy;
  return t;
}

StateChain state_chain(const KernelChain &kc) {
  return chain_head<StateChain>(kc);
}

} // namespace

KernelChain kernel_chain(const StateChainHead &h) {
  return chain_head<KernelChain>(h);
}

namespace {

const nlmsghdr *header(std::string_view m) {
  return reinterpret_cast<const nlmsghdr *>(m.data());
}

uint16_t nft_type(std::string_view m) {
  return static_cast<uint16_t>(header(m)->nlmsg_type & 0xff);
}

bool has_attr(std::string_view m, uint16_t type) {
  bool found = false;
  each_top(header(m), [&](const nlattr *a) { found |= attr_type(a) == type; });
  return found;
}

// A rule of a batch as the desired side has it: keyed by message, with
// its counters as given (-c).
StateRule batch_rule(const Batch &batch, std::string_view m, size_t index) {
  StateRule r;
  r.key = message_key(header(m));
  r.counters = batch.counters_given(index);
  if (r.counters)
    rule_identity(m, &r.packets, &r.bytes);
  return r;
}

// Where a NEWRULE puts its rule: at its chain's end, at its head (no
// NLM_F_APPEND), or elsewhere (by position or handle). A transaction id
// only names the rule; NLM_F_ECHO (JournalKeeper::ask_echo) only asks for
// its handle.
enum class Placing { append, head, other };

Placing rule_placing(std::string_view m, std::string_view &chain) {
  const uint16_t flags = header(m)->nlmsg_flags;
  if ((flags & ~(NLM_F_APPEND | NLM_F_ECHO)) != (NLM_F_REQUEST | NLM_F_CREATE))
    return Placing::other;
  bool plain = true;
  each_top(header(m), [&](const nlattr *a) {
    switch (attr_type(a)) {
    case NFTA_RULE_CHAIN:
      chain = attr_text(a);
      break;
    case NFTA_RULE_POSITION:
    case NFTA_RULE_POSITION_ID:
    case NFTA_RULE_HANDLE:
      plain = false;
      break;
    }
  });
  if (!plain)
    return Placing::other;
  return (flags & NLM_F_APPEND) != 0 ? Placing::append : Placing::head;
}

// A DELRULE's chain, handle and transaction id (0: none).
void rule_target(std::string_view m, std::string_view &chain, uint64_t &handle,
                 bool &by_id) {
  each_top(header(m), [&](const nlattr *a) {
    switch (attr_type(a)) {
    case NFTA_RULE_CHAIN:
      chain = attr_text(a);
      break;
    case NFTA_RULE_HANDLE:
      handle = attr_be64(a);
      break;
    case NFTA_RULE_ID:
      by_id = true;
      break;
    }
  });
}

// A --noflush batch applied to a table, one message after another.
class NoflushSim {
public:
  NoflushSim(const Batch &batch, const TableState &kernel,
             const std::vector<UnparsedLine> &known)
      : batch_(batch), known_(known), kernel_chains_(kernel.chains.size()) {
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

  bool apply(std::string_view m, size_t index) {
    switch (nft_type(m)) {
    case NFT_MSG_NEWTABLE:
      return true;
    case NFT_MSG_NEWCHAIN:
      return new_chain(m, index);
    case NFT_MSG_DELCHAIN:
      return delete_chain(m);
    case NFT_MSG_NEWRULE:
      return new_rule(m, index);
    case NFT_MSG_DELRULE:
      return delete_rule(m);
    default:
      return false;
    }
  }

  // Line known[k], taken unparsed: its recorded rule appended, or the
  // chain it declares flushed.
  bool take_line(size_t k) {
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

  DesiredTable result() {
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
          Allocation &a = allocations_[b.allocation];
          a.chain = out.state.chains.size() - 1;
          a.rule = sc.rules.size();
          sc.rules.push_back(batch_rule(batch_, b.message, a.message));
          sources.push_back(
              {b.message, a.message, batch_.location(a.message).line});
          break;
        }
        }
      }
    }
    out.allocations = std::move(allocations_);
    out.repeatable = repeatable_;
    return out;
  }

private:
  // A rule of a chain as a reference to where it comes from (16 bytes:
  // kube-proxy's tables hold 100,000 of them, which the simulation would
  // otherwise copy): the kernel's rule, line known_[ref] or made_[ref].
  struct Rule {
    enum class From : uint8_t { kernel, known, batch };
    From from;
    union {
      const StateRule *kernel;
      size_t ref;
    };
    static Rule of(From from, size_t ref) {
      Rule r;
      r.from = from;
      r.ref = ref;
      return r;
    }
    static Rule of(const StateRule &kernel) {
      Rule r;
      r.from = From::kernel;
      r.kernel = &kernel;
      return r;
    }
  };
  // A rule message of the batch and its allocation (in allocations_,
  // which holds the message's index).
  struct Made {
    std::string_view message;
    size_t allocation;
  };
  struct Chain {
    StateChain state; // without its rules
    std::string_view message;
    size_t index = SIZE_MAX;
    bool alive = true;
    bool flushed = false; // by the batch, before what it adds
    std::vector<Rule> rules;
    // The kernel's rules, while not yet copied into `rules`.
    const std::vector<StateRule> *pending = nullptr;
  };

  // A kernel rule on the desired side: no counters given, no line.
  static StateRule kernel_rule(const StateRule &kr) {
    StateRule r = kr;
    r.counters = false;
    r.line = 0;
    return r;
  }

  static void copy_kernel_rules(Chain &c) {
    if (c.pending == nullptr)
      return;
    c.rules.reserve(c.pending->size());
    for (const StateRule &kr : *c.pending)
      c.rules.push_back(Rule::of(kr));
    c.pending = nullptr;
  }

  static void flush(Chain &c) {
    c.pending = nullptr;
    c.rules.clear();
    c.flushed = true;
  }

  // The chain of that name now (one deleted and made again: the new one).
  Chain *find(std::string_view name) {
    const HashIndex::Entry *e =
        by_name_.find(hash64(name), [&](const HashIndex::Entry &x) {
          return chains_[x.a].alive && chains_[x.a].state.name == name;
        });
    return e != nullptr ? &chains_[e->a] : nullptr;
  }

  bool new_chain(std::string_view m, size_t index) {
    if (has_attr(m, NFTA_CHAIN_HANDLE))
      return false; // a rename
    std::string table;
    const KernelChain kc = parse_chain(header(m), &table);
    Chain *c = find(kc.name);
    if (c == nullptr) {
      allocations_.push_back({index, SIZE_MAX, SIZE_MAX});
      c = &chains_.emplace_back();
      c->state.name = kc.name;
      by_name_.put(hash64(kc.name), static_cast<uint32_t>(chains_.size() - 1));
    } else if ((header(m)->nlmsg_flags & NLM_F_EXCL) != 0) {
      return false;
    }
    if ((header(m)->nlmsg_flags & NLM_F_EXCL) != 0)
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

  bool delete_chain(std::string_view m) {
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

  bool new_rule(std::string_view m, size_t index) {
    std::string_view name;
    const Placing at = rule_placing(m, name);
    Chain *c = find(name);
    if (at == Placing::other || c == nullptr)
      return false;
    repeatable_ = repeatable_ && c->flushed; // else: added twice
    copy_kernel_rules(*c);
    const Rule r = Rule::of(Rule::From::batch, made_.size());
    made_.push_back({m, allocations_.size()});
    allocations_.push_back({index, SIZE_MAX, SIZE_MAX});
    if (at == Placing::append)
      c->rules.push_back(r);
    else
      c->rules.insert(c->rules.begin(), r);
    return true;
  }

  bool delete_rule(std::string_view m) {
    std::string_view name;
    uint64_t handle = 0;
    bool by_id = false;
    rule_target(m, name, handle, by_id);
    Chain *c = find(name);
    if (by_id || c == nullptr)
      return false;
    if (handle == 0) { // the chain flushed
      flush(*c);
      return true;
    }
    repeatable_ = false;
    copy_kernel_rules(*c);
    for (auto it = c->rules.begin(); it != c->rules.end(); ++it)
      if (it->from == Rule::From::kernel && it->kernel->handle == handle) {
        c->rules.erase(it);
        return true;
      }
    return false;
  }

  const Batch &batch_;
  const std::vector<UnparsedLine> &known_;
  std::vector<Made> made_;
  // The batch's messages that make chains and rules, in order (the rule
  // each made, if it stays, is filled in by result()).
  std::vector<Allocation> allocations_;
  bool repeatable_ = true;
  size_t kernel_chains_; // chains_ [0, kernel_chains_): the kernel's
  std::deque<Chain> chains_;
  HashIndex by_name_; // chains_ by their names' hash64
};

} // namespace

uint64_t rule_key(std::string_view message, RuleKey how) {
  if (how == RuleKey::message)
    return message_key(header(message));
  return hash64(rule_identity(message));
}

std::optional<DesiredTable>
desired_table(const Batch &replacement,
              const std::vector<std::string_view> &declared) {
  DesiredTable out;
  bool simple = true;
  size_t seen = 0;
  size_t chain = SIZE_MAX; // the chain of the last rule
  // The chains by name (SIZE_MAX: none).
  HashIndex chains(declared.size() + replacement.messages());
  auto chain_of = [&](std::string_view name) -> size_t {
    const HashIndex::Entry *e =
        chains.find_name(name, [&](const HashIndex::Entry &x) {
          return std::string_view(out.state.chains[x.a].name);
        });
    return e != nullptr ? e->a : SIZE_MAX;
  };
  auto add_chain = [&](std::string_view name) {
    const size_t c = out.state.chains.size();
    out.state.chains.emplace_back().name = name;
    chains.put(hash64(name), static_cast<uint32_t>(c));
    out.chain_messages.emplace_back();
    out.chain_index.push_back(SIZE_MAX);
    out.rule_sources.emplace_back();
    return c;
  };
  // (Room for the chains declared unparsed, the most of them as a rule:
  // kube-proxy's 41,000, moved at each growth otherwise.)
  const size_t expected = declared.size() + 16;
  out.state.chains.reserve(expected);
  out.chain_messages.reserve(expected);
  out.chain_index.reserve(expected);
  out.rule_sources.reserve(expected);
  for (std::string_view name : declared) {
    if (chain_of(name) != SIZE_MAX)
      return std::nullopt;
    add_chain(name);
  }
  const size_t unmade = declared.size(); // chains [0, unmade)
  replacement.each_message([&](std::string_view m, size_t index) {
    if (!simple)
      return;
    const uint16_t type = nft_type(m);
    // NEWTABLE, DELTABLE: the replacement's start.
    if (seen++ < 2) {
      simple = type == (seen == 1 ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE);
      return;
    }
    if (type == NFT_MSG_NEWTABLE)
      return;
    if (type == NFT_MSG_NEWCHAIN) {
      std::string table;
      KernelChain kc = parse_chain(header(m), &table);
      size_t c = chain_of(kc.name);
      if (c != SIZE_MAX && c < unmade) {
        simple = false; // made or changed after all
        return;
      }
      if (c == SIZE_MAX) {
        c = add_chain(kc.name);
        out.allocations.push_back({index, c, SIZE_MAX});
      }
      StateChain &sc = out.state.chains[c];
      const StateChain made = state_chain(kc);
      sc.base = made.base;
      sc.hook = made.hook;
      sc.prio = made.prio;
      sc.type = made.type;
      if (made.has_policy) {
        sc.has_policy = true;
        sc.policy = made.policy;
      }
      if (has_attr(m, NFTA_CHAIN_COUNTERS)) {
        sc.counters = true;
        sc.packets = kc.packets;
        sc.bytes = kc.bytes;
      }
      out.chain_messages[c] = m;
      out.chain_index[c] = index;
      return;
    }
    std::string_view name;
    // Plain appends only (a transaction id: a --noflush batch).
    if (type != NFT_MSG_NEWRULE || rule_placing(m, name) != Placing::append ||
        has_attr(m, NFTA_RULE_ID)) {
      simple = false;
      return;
    }
    if (chain == SIZE_MAX || out.state.chains[chain].name != name) {
      chain = chain_of(name);
      if (chain == SIZE_MAX) {
        simple = false; // a rule in a chain the batch does not make
        return;
      }
    }
    const StateRule r = batch_rule(replacement, m, index);
    out.allocations.push_back(
        {index, chain, out.state.chains[chain].rules.size()});
    out.state.chains[chain].rules.push_back(r);
    out.rule_sources[chain].push_back(
        {m, index, replacement.location(index).line});
  });
  if (!simple || seen < 2)
    return std::nullopt;
  return out;
}

std::optional<DesiredTable>
noflush_table(const Batch &batch, const TableState &kernel,
              const std::vector<UnparsedLine> &known) {
  NoflushSim sim(batch, kernel, known);
  bool simple = true;
  size_t k = 0; // the next known append
  batch.each_message([&](std::string_view m, size_t index) {
    if (!simple)
      return;
    if (k < known.size()) {
      const int line = batch.location(index).line;
      while (simple && k < known.size() && known[k].line < line)
        simple = sim.take_line(k++);
    }
    simple = simple && sim.apply(m, index);
  });
  while (simple && k < known.size())
    simple = sim.take_line(k++);
  if (!simple)
    return std::nullopt;
  DesiredTable out = sim.result();
  leave_to_exit(sim); // its chains' rule lists (process_heap.h)
  return out;
}

std::vector<size_t> rule_messages(const Batch &batch) {
  std::vector<size_t> out;
  batch.each_message([&](std::string_view m, size_t i) {
    if (nft_type(m) == NFT_MSG_NEWRULE)
      out.push_back(i);
  });
  return out;
}

std::vector<Allocation> rule_allocations(const std::vector<size_t> &rules,
                                         const std::vector<Allocation> &made) {
  std::vector<bool> rule(rules.empty() ? 0 : rules.back() + 1, false);
  for (size_t i : rules)
    rule[i] = true;
  std::vector<Allocation> out;
  for (const Allocation &a : made)
    if (a.message < rule.size() && rule[a.message])
      out.push_back(a);
  return out;
}

std::unordered_map<std::string, NoflushChain>
noflush_chains(const Batch &batch) {
  std::unordered_map<std::string, NoflushChain> out;
  batch.each_message([&](std::string_view m, size_t) {
    std::string_view chain;
    uint64_t handle = 0;
    bool by_id = false;
    switch (nft_type(m)) {
    case NFT_MSG_NEWRULE:
      rule_placing(m, chain);
      ++out[std::string(chain)].rules;
      break;
    case NFT_MSG_DELRULE:
      rule_target(m, chain, handle, by_id);
      if (handle == 0 && !by_id)
        out[std::string(chain)].emptied = true;
      break;
    case NFT_MSG_DELCHAIN: {
      std::string table;
      out[parse_chain(header(m), &table).name].emptied = true;
      break;
    }
    default:
      break;
    }
  });
  return out;
}

std::optional<TableState> kernel_side(const KernelTable &table) {
  TableState out;
  for (const KernelChain &kc : table.chains) {
    StateChain &sc = out.chains.emplace_back(state_chain(kc));
    sc.counters = true;
    sc.packets = kc.packets;
    sc.bytes = kc.bytes;
    for (size_t i = 0; i < kc.messages.size(); ++i) {
      StateRule &r = sc.rules.emplace_back();
      const std::string id =
          rule_identity(kc.messages[i], &r.packets, &r.bytes);
      if (uses_set(id))
        return std::nullopt;
      r.key = hash64(id);
      r.handle = kc.rules[i];
      r.counters = true;
    }
  }
  return out;
}

std::vector<Allocation> write_delta(Batch &out, const Delta &delta,
                                    const DesiredTable &want,
                                    const Batch &replacement,
                                    const TableState &kernel,
                                    const std::string &table, Family family,
                                    const Location &table_loc) {
  out.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, table_loc);
  bool ready = true;
  std::vector<Allocation> made;
  for (const DeltaOp &op : delta.ops) {
    switch (op.kind) {
    case DeltaKind::chain_flush:
      out.add_flush(table, kernel.chains[op.chain].name, table_loc);
      break;
    case DeltaKind::rule_delete:
      out.add_rule_delete(table, want.state.chains[op.chain].name, op.handle, 0,
                          table_loc);
      break;
    case DeltaKind::chain_delete: {
      Op del{OpKind::chain_delete, table_loc, {}, {}};
      del.chain.name = kernel.chains[op.chain].name;
      emit_op(out, del, table, family, table_loc, ready);
      break;
    }
    case DeltaKind::chain_create:
    case DeltaKind::chain_update: {
      // A base chain's policy as desired: ACCEPT when declared without
      // one, as made; the one declared when the chain's last message
      // (-Z's, which zeroes counters) does not say it.
      const StateChain &c = want.state.chains[op.chain];
      const std::string_view message = want.chain_messages[op.chain];
      out.add_copy(message, NLM_F_CREATE,
                   replacement.location(want.chain_index[op.chain]), "chain",
                   c.name, [&](nlmsghdr *nlh) {
                     if (c.base && !has_attr(message, NFTA_CHAIN_POLICY))
                       mnl_attr_put_u32(
                           nlh, NFTA_CHAIN_POLICY,
                           htonl(c.has_policy ? c.policy : NF_ACCEPT));
                   });
      if (op.kind == DeltaKind::chain_create)
        made.push_back({out.messages() - 1, op.chain, SIZE_MAX});
      break;
    }
    case DeltaKind::rule_append:
    case DeltaKind::rule_insert_before:
    case DeltaKind::rule_replace: {
      const uint16_t flags =
          op.kind == DeltaKind::rule_append    ? NLM_F_CREATE | NLM_F_APPEND
          : op.kind == DeltaKind::rule_replace ? NLM_F_CREATE | NLM_F_REPLACE
                                               : NLM_F_CREATE;
      const RuleSource &source = want.rule_sources[op.chain][op.rule];
      out.add_copy(
          source.message, flags, replacement.location(source.index),
          "rule in chain", want.state.chains[op.chain].name,
          [&](nlmsghdr *nlh) {
            if (op.kind == DeltaKind::rule_insert_before)
              mnl_attr_put_u64(nlh, NFTA_RULE_POSITION, htobe64(op.handle));
            else if (op.kind == DeltaKind::rule_replace)
              mnl_attr_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(op.handle));
          });
      if (op.kind != DeltaKind::rule_replace)
        made.push_back({out.messages() - 1, op.chain, op.rule});
      break;
    }
    }
  }
  return made;
}

} // namespace fastrestore::nft
