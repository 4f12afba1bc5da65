// The incremental restore's delta (delta.h).
#include "check/delta.h"

#include <linux/netfilter.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "sys/hash64.h"
#include "sys/hash_index.h"
#include "sys/increasing_run.h"

namespace fastrestore {
namespace {

// The positions of `kernel` (indexes into it) that stay, and for each kept
// one the desired position it becomes: the longest chain of identical
// rules in the same order. Each desired rule is paired with the first
// unused kernel rule of its key (duplicates pair in order), then the
// longest increasing run of kernel positions is kept (patience sorting,
// n log n).
std::vector<std::pair<size_t, size_t>>
kept_rules(const std::vector<StateRule> &desired,
           const std::vector<StateRule> &kernel) {
  // Each key's unused kernel rules in order: the first in its entry's a
  // (kNone: all used), the last in b, each one's next in next_same.
  constexpr uint32_t kNone = UINT32_MAX;
  // (A key of 0, which HashIndex leaves out, goes in as ~0.)
  auto slot = [](uint64_t key) { return key != 0 ? key : ~key; };
  HashIndex where(kernel.size());
  auto entry = [&](uint64_t key) {
    return where.find(slot(key), [&](const HashIndex::Entry &e) {
      return kernel[e.b].key == key;
    });
  };
  std::vector<uint32_t> next_same(kernel.size(), kNone);
  for (uint32_t k = 0; k < kernel.size(); ++k) {
    if (HashIndex::Entry *e = entry(kernel[k].key)) {
      next_same[e->b] = k;
      e->b = k;
    } else {
      where.put(slot(kernel[k].key), k, k);
    }
  }
  std::vector<std::pair<size_t, size_t>> pairs; // (desired, kernel)
  pairs.reserve(desired.size());
  for (size_t d = 0; d < desired.size(); ++d) {
    if (desired[d].made_again)
      continue;
    HashIndex::Entry *e = entry(desired[d].key);
    if (e == nullptr || e->a == kNone)
      continue;
    pairs.emplace_back(d, e->a);
    e->a = next_same[e->a];
  }
  return longest_increasing_run(pairs);
}

// Whether the two chains' rules are the same, in the same order.
bool same_rules(const std::vector<StateRule> &desired,
                const std::vector<StateRule> &kernel) {
  return desired.size() == kernel.size() &&
         std::equal(desired.begin(), desired.end(), kernel.begin(),
                    [](const StateRule &a, const StateRule &b) {
                      return a.key == b.key && !a.made_again;
                    });
}

DeltaOp op(DeltaKind kind, size_t chain, size_t rule = 0, uint64_t handle = 0) {
  return DeltaOp{kind, chain, rule, handle};
}

} // namespace

std::optional<Delta> plan_delta(const TableState &desired,
                                const TableState &kernel, bool counters) {
  // The kernel's chains by name.
  HashIndex by_name(kernel.chains.size());
  for (size_t i = 0; i < kernel.chains.size(); ++i)
    by_name.put(hash64(kernel.chains[i].name), static_cast<uint32_t>(i));
  auto find_chain = [&](const std::string &name) -> const StateChain * {
    const HashIndex::Entry *e =
        by_name.find_name(name, [&](const HashIndex::Entry &x) {
          return std::string_view(kernel.chains[x.a].name);
        });
    return e != nullptr ? &kernel.chains[e->a] : nullptr;
  };

  Delta out;
  out.kept_handles.assign(desired.rule_count(), 0);
  size_t first = 0; // the chain's first rule in kept_handles
  std::vector<DeltaOp> flushes, removals, chain_removals, creations, updates,
      additions;
  std::vector<bool> wanted(kernel.chains.size(), false);
  for (size_t c = 0; c < desired.chains.size(); ++c) {
    const StateChain &want = desired.chains[c];
    uint64_t *const handles = out.kept_handles.data() + first;
    first += want.rules.size();
    ChainDelta counts;
    counts.chain = c;
    const StateChain *have = find_chain(want.name);
    if (have != nullptr) {
      if (have->base != want.base)
        return std::nullopt;
      if (have->base && (have->hook != want.hook || have->prio != want.prio ||
                         have->type != want.type))
        return std::nullopt;
      wanted[static_cast<size_t>(have - kernel.chains.data())] = true;
    }

    if (have == nullptr) {
      // A chain the kernel lacks: made, then filled.
      counts.created = true;
      creations.push_back(op(DeltaKind::chain_create, c));
      for (size_t d = 0; d < want.rules.size(); ++d)
        additions.push_back(op(DeltaKind::rule_append, c, d));
      counts.added = want.rules.size();
      out.chains.push_back(std::move(counts));
      continue;
    }

    // A base chain kept: its policy as desired (ACCEPT unless declared),
    // its counters as the line gives them with -c.
    if (want.base) {
      const uint32_t policy = want.has_policy ? want.policy : NF_ACCEPT;
      const bool policy_differs = !have->has_policy || have->policy != policy;
      const bool counters_differ =
          counters && want.counters &&
          (!have->counters || have->packets != want.packets ||
           have->bytes != want.bytes);
      if (policy_differs || counters_differ)
        updates.push_back(op(DeltaKind::chain_update, c));
    }

    const auto &krules = have->rules;
    if (same_rules(want.rules, krules)) {
      // (The common case of a reload: the chain stays as it was.)
      for (size_t d = 0; d < krules.size(); ++d) {
        const StateRule &r = want.rules[d], &k = krules[d];
        handles[d] = k.handle;
        if (counters && r.counters &&
            (!k.counters || k.packets != r.packets || k.bytes != r.bytes))
          additions.push_back(op(DeltaKind::rule_replace, c, d, k.handle));
      }
      counts.kept = krules.size();
      out.chains.push_back(std::move(counts));
      continue;
    }
    const auto kept = kept_rules(want.rules, krules);
    std::vector<bool> stays(krules.size(), false);
    std::vector<size_t> kernel_of(want.rules.size(), SIZE_MAX);
    for (const auto &[d, k] : kept) {
      stays[k] = true;
      kernel_of[d] = k;
      handles[d] = krules[k].handle;
    }
    // Between two kept rules (or a kept rule and an end), the kernel rules
    // that go and the desired rules that come pair up in order, each pair
    // one replacement in place (the kernel finds a rule by walking its
    // chain: a replacement walks once where a deletion and an insertion
    // walk twice).
    std::vector<size_t> replaced(want.rules.size(), SIZE_MAX);
    {
      size_t from_d = 0, from_k = 0;
      auto pair_gap = [&](size_t to_d, size_t to_k) {
        for (size_t d = from_d, k = from_k; d < to_d && k < to_k; ++d, ++k) {
          replaced[d] = k;
          stays[k] = true;
          handles[d] = krules[k].handle;
        }
      };
      for (const auto &[d, k] : kept) {
        pair_gap(d, k);
        from_d = d + 1;
        from_k = k + 1;
      }
      pair_gap(want.rules.size(), krules.size());
    }
    for (size_t k = 0; k < krules.size(); ++k)
      if (!stays[k]) {
        removals.push_back(op(DeltaKind::rule_delete, c, 0, krules[k].handle));
        ++counts.removed;
      }
    // New rules go before the next kept rule, or at the end; a kept rule
    // whose line sets other counters is replaced in place.
    std::vector<size_t> next_kept(want.rules.size() + 1, SIZE_MAX);
    for (size_t d = want.rules.size(); d-- > 0;)
      next_kept[d] = kernel_of[d] != SIZE_MAX ? d : next_kept[d + 1];
    for (size_t d = 0; d < want.rules.size(); ++d) {
      const StateRule &r = want.rules[d];
      if (kernel_of[d] != SIZE_MAX) {
        const StateRule &k = krules[kernel_of[d]];
        ++counts.kept;
        if (counters && r.counters &&
            (!k.counters || k.packets != r.packets || k.bytes != r.bytes))
          additions.push_back(op(DeltaKind::rule_replace, c, d, k.handle));
        continue;
      }
      ++counts.added;
      if (replaced[d] != SIZE_MAX) {
        additions.push_back(
            op(DeltaKind::rule_replace, c, d, krules[replaced[d]].handle));
        ++counts.removed;
        continue;
      }
      const size_t next = next_kept[d + 1];
      if (next != SIZE_MAX)
        additions.push_back(op(DeltaKind::rule_insert_before, c, d,
                               krules[kernel_of[next]].handle));
      else
        additions.push_back(op(DeltaKind::rule_append, c, d));
    }
    out.chains.push_back(std::move(counts));
  }

  // Kernel chains the replacement would not make: emptied first, deleted
  // last, when no rule of the batch jumps to them any more.
  for (size_t i = 0; i < kernel.chains.size(); ++i) {
    if (wanted[i])
      continue;
    const StateChain &k = kernel.chains[i];
    ChainDelta counts;
    counts.chain = i;
    counts.deleted = true;
    counts.removed = k.rules.size();
    if (!k.rules.empty())
      flushes.push_back(op(DeltaKind::chain_flush, i));
    chain_removals.push_back(op(DeltaKind::chain_delete, i));
    out.chains.push_back(std::move(counts));
  }

  for (auto *part :
       {&flushes, &removals, &creations, &updates, &additions, &chain_removals})
    for (auto &o : *part)
      out.ops.push_back(o);
  return out;
}

bool reading_pays(const std::vector<std::pair<size_t, bool>> &chains) {
  // In units of one rule sent whole (about 22 us here). Reading: 12 us a
  // rule (its identity on both sides, the block parsed again), 57 us a
  // chain (one dump), and the chain's quadratic term; a replacement: the
  // rules, and 15 ms for each base chain's hook. Reading must win clearly:
  // these are estimates, and a replacement is never slower than it was.
  double whole = 0, reading = 0;
  for (const auto &[size, base] : chains) {
    const double n = static_cast<double>(size);
    whole += n + (base ? 700 : 0);
    reading += 0.56 * n + n * n / 36000 + 2.6;
  }
  return reading <= 0.8 * whole;
}

} // namespace fastrestore
