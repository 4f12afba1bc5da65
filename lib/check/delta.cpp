// The incremental restore's delta (delta.h).
#include "fastrestore/delta.h"

#include <linux/netfilter.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "fastrestore/tables.h"

namespace fastrestore {
namespace {

// The positions of `kernel` (indexes into it) that stay, and for each kept
// one the desired position it becomes: the longest chain of identical
// rules in the same order. Each desired rule is paired with the first
// unused kernel rule of its identity (duplicates pair in order), then the
// longest increasing run of kernel positions is kept (patience sorting,
// n log n).
std::vector<std::pair<size_t, size_t>>
kept_rules(const std::vector<std::string> &desired,
           const std::vector<KernelRules::Entry> &kernel) {
  std::unordered_map<std::string_view, std::vector<size_t>> where;
  for (size_t k = kernel.size(); k-- > 0;)
    where[kernel[k].identity].push_back(k); // popped from the back: in order
  std::vector<std::pair<size_t, size_t>> pairs; // (desired, kernel)
  for (size_t d = 0; d < desired.size(); ++d) {
    auto it = where.find(desired[d]);
    if (it == where.end() || it->second.empty())
      continue;
    pairs.emplace_back(d, it->second.back());
    it->second.pop_back();
  }
  // Longest increasing subsequence of the kernel positions.
  std::vector<size_t> tails; // index into pairs of each run's last element
  std::vector<size_t> prev(pairs.size(), SIZE_MAX);
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto pos = std::lower_bound(
        tails.begin(), tails.end(), pairs[i].second,
        [&](size_t t, size_t k) { return pairs[t].second < k; });
    if (pos != tails.begin())
      prev[i] = *(pos - 1);
    if (pos == tails.end())
      tails.push_back(i);
    else
      *pos = i;
  }
  std::vector<std::pair<size_t, size_t>> kept;
  for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX;
       i = prev[i])
    kept.push_back(pairs[i]);
  std::reverse(kept.begin(), kept.end());
  return kept;
}

Op chain_op(OpKind kind, const PlannedChain &c, const Location &loc) {
  Op op{kind, loc, {}, {}};
  op.chain.loc = loc;
  op.chain.name = c.name;
  op.chain.builtin = c.builtin;
  return op;
}

Op kernel_chain_op(OpKind kind, const KernelChain &k, const Location &loc) {
  Op op{kind, loc, {}, {}};
  op.chain.loc = loc;
  op.chain.name = k.name;
  op.chain_handle = k.handle;
  return op;
}

} // namespace

std::optional<Delta>
plan_delta(const Plan &desired,
           const std::vector<std::vector<std::string>> &identities,
           const KernelRules &kernel, bool counters) {
  const KernelTable &kt = *kernel.table;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < kt.chains.size(); ++i)
    by_name.emplace(kt.chains[i].name, i);

  Delta out;
  std::vector<Op> removals, chain_removals, creations, updates, additions;
  std::vector<bool> wanted(kt.chains.size(), false);
  for (size_t c = 0; c < desired.chains.size(); ++c) {
    const PlannedChain &want = desired.chains[c];
    const Location &loc = want.loc;
    ChainDelta counts;
    counts.chain = want.name;
    auto found = by_name.find(want.name);
    const KernelChain *have =
        found == by_name.end() ? nullptr : &kt.chains[found->second];
    if (have != nullptr) {
      if (have->base != (want.builtin != nullptr))
        return std::nullopt;
      if (have->base && (have->hook != want.builtin->hook ||
                         have->prio != want.builtin->prio ||
                         have->type != want.builtin->type))
        return std::nullopt;
      wanted[found->second] = true;
    }

    if (have == nullptr) {
      // A chain the kernel lacks: made, then filled.
      counts.created = true;
      if (want.builtin != nullptr) {
        Op op = chain_op(OpKind::chain_update, want, loc);
        op.chain = want;
        op.chain.rules.clear();
        creations.push_back(std::move(op));
      } else {
        creations.push_back(chain_op(OpKind::chain_create, want, loc));
      }
      for (const Rule &r : want.rules) {
        Op op{OpKind::rule_append, r.loc, {}, r};
        op.chain.name = want.name;
        additions.push_back(std::move(op));
      }
      counts.added = want.rules.size();
      out.chains.push_back(std::move(counts));
      continue;
    }

    // A base chain kept: its policy as planned (ACCEPT unless declared),
    // its counters as the line gives them with -c.
    if (want.builtin != nullptr) {
      const uint32_t policy = want.policy.value_or(NF_ACCEPT);
      const bool policy_differs = !have->has_policy || have->policy != policy;
      const bool counters_differ =
          counters && want.counters &&
          (have->packets != want.packets || have->bytes != want.bytes);
      if (policy_differs || counters_differ) {
        Op op = chain_op(OpKind::chain_update, want, loc);
        op.chain.policy = policy;
        op.chain.counters = counters_differ;
        op.chain.packets = want.packets;
        op.chain.bytes = want.bytes;
        updates.push_back(std::move(op));
      }
    }

    const auto &krules = kernel.rules[found->second];
    const auto kept = kept_rules(identities[c], krules);
    std::vector<bool> stays(krules.size(), false);
    std::vector<size_t> kernel_of(want.rules.size(), SIZE_MAX);
    for (const auto &[d, k] : kept) {
      stays[k] = true;
      kernel_of[d] = k;
    }
    for (size_t k = 0; k < krules.size(); ++k)
      if (!stays[k]) {
        Op op{OpKind::rule_delete, loc, {}, {}};
        op.chain.name = want.name;
        op.ref.handle = have->rules[k];
        removals.push_back(std::move(op));
        ++counts.removed;
      }
    // New rules go before the next kept rule, or at the end; a kept rule
    // whose line sets other counters is replaced in place.
    std::vector<size_t> next_kept(want.rules.size() + 1, SIZE_MAX);
    for (size_t d = want.rules.size(); d-- > 0;)
      next_kept[d] = kernel_of[d] != SIZE_MAX ? d : next_kept[d + 1];
    for (size_t d = 0; d < want.rules.size(); ++d) {
      const Rule &r = want.rules[d];
      if (kernel_of[d] != SIZE_MAX) {
        const auto &k = krules[kernel_of[d]];
        ++counts.kept;
        if (counters && r.counters_set &&
            (k.packets != r.packets || k.bytes != r.bytes)) {
          Op op{OpKind::rule_replace, r.loc, {}, r};
          op.chain.name = want.name;
          op.ref.handle = have->rules[kernel_of[d]];
          additions.push_back(std::move(op));
        }
        continue;
      }
      const size_t next = next_kept[d + 1];
      Op op{next != SIZE_MAX ? OpKind::rule_insert_before : OpKind::rule_append,
            r.loc,
            {},
            r};
      op.chain.name = want.name;
      if (next != SIZE_MAX)
        op.ref.handle = have->rules[kernel_of[next]];
      additions.push_back(std::move(op));
      ++counts.added;
    }
    out.chains.push_back(std::move(counts));
  }

  // Kernel chains the replacement would not make: emptied, then deleted
  // once no rule of the batch jumps to them any more.
  for (size_t i = 0; i < kt.chains.size(); ++i) {
    if (wanted[i])
      continue;
    const KernelChain &k = kt.chains[i];
    ChainDelta counts;
    counts.chain = k.name;
    counts.deleted = true;
    counts.removed = k.rules.size();
    if (!k.rules.empty())
      removals.insert(removals.begin(),
                      kernel_chain_op(OpKind::chain_flush, k, desired.loc));
    chain_removals.push_back(
        kernel_chain_op(OpKind::chain_delete, k, desired.loc));
    out.chains.push_back(std::move(counts));
  }

  for (auto *part :
       {&removals, &chain_removals, &creations, &updates, &additions})
    for (auto &op : *part)
      out.ops.push_back(std::move(op));
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

bool reading_pays(const Plan &desired) {
  std::vector<std::pair<size_t, bool>> chains;
  for (const auto &c : desired.chains)
    chains.emplace_back(c.rules.size(), c.builtin != nullptr);
  return reading_pays(chains);
}

} // namespace fastrestore
