// journal_changes.h: the delta of the incremental restore, planned against
// the journal's record and checked by the kernel, never committed.
#include "incremental/journal_changes.h"

#include <unordered_map>
#include <vector>

#include "check/delta.h"
#include "journal_keeper.h"
#include "nft/nft_backend.h"
#include "nft/nft_rule.h"
#include "table_delta.h"

namespace fastrestore::nft {
namespace {

// Which desired chains the delta changes the rules of (made, or a rule
// added or removed), and which kernel chains it removes.
struct Touched {
  std::vector<bool> desired, kernel;
};
Touched touched(const Delta &delta, size_t desired, size_t kernel) {
  Touched t{std::vector<bool>(desired), std::vector<bool>(kernel)};
  for (const DeltaOp &op : delta.ops)
    switch (op.kind) {
    case DeltaKind::chain_flush:
    case DeltaKind::chain_delete:
      t.kernel[op.chain] = true;
      break;
    case DeltaKind::chain_update:
      break; // policy or counters: the chain line shows it
    default:
      t.desired[op.chain] = true;
    }
  return t;
}

} // namespace

std::optional<JournalChanges>
journal_changes(const Batch &replacement, const std::string &table,
                Family family, Transport &transport, std::string *why) {
  std::unique_ptr<JournalKeeper> journal = JournalKeeper::open(why);
  if (journal == nullptr)
    return std::nullopt;
  const uint32_t nfproto = nfproto_of(family);
  const uint32_t generation = transport.generation();
  std::optional<TableState> kernel =
      journal->load(nfproto, table, generation, why);
  if (!kernel)
    return std::nullopt;
  // (The copy prints the rules that match them as the rules they stand
  // for.)
  if (!kernel->sets.empty()) {
    *why = "the table's rules match --optimize's sets";
    return std::nullopt;
  }
  std::optional<DesiredTable> want = desired_table(replacement);
  if (!want || want->state.chains.empty()) {
    *why = "the input's table is not only chains and appended rules";
    return std::nullopt;
  }
  std::optional<Delta> delta = plan_delta(want->state, *kernel, false);
  if (!delta) {
    *why = "the load would replace the table";
    return std::nullopt;
  }
  if (!delta->ops.empty()) {
    Batch changes(family);
    write_delta(changes, *delta, *want, replacement, *kernel, table, family,
                replacement.location(0));
    changes.finish();
    try {
      try {
        check_batch(changes, transport, &generation);
      } catch (const Error &) {
        // What the kernel says of the replacement itself is what a
        // restore says (the changes may fail on more, or on other, lines).
        check_batch(replacement, transport, &generation);
        *why = "the kernel refuses the changes, not the replacement";
        return std::nullopt;
      }
    } catch (const GenerationChanged &) {
      *why = "the ruleset changed while it was compared";
      return std::nullopt;
    }
  }

  JournalChanges out;
  out.after.name = out.before.name = table;
  out.after.exists = out.before.exists = true;
  out.changes = !delta->ops.empty();
  std::unordered_map<std::string_view, size_t> desired_at;
  for (size_t c = 0; c < want->state.chains.size(); ++c) {
    const StateChain &d = want->state.chains[c];
    desired_at.emplace(d.name, c);
    KernelChain &k = out.after.chains.emplace_back(kernel_chain(d));
    for (const RuleSource &s : want->rule_sources[c])
      k.messages.emplace_back(s.message);
  }
  if (!out.changes)
    return out;
  const Touched t =
      touched(*delta, want->state.chains.size(), kernel->chains.size());
  std::vector<std::string> read;
  for (size_t c = 0; c < kernel->chains.size(); ++c) {
    const StateChain &s = kernel->chains[c];
    KernelChain &k = out.before.chains.emplace_back(kernel_chain(s));
    const auto d = desired_at.find(s.name);
    if (!t.kernel[c] && d != desired_at.end() && !t.desired[d->second]) {
      k.messages = out.after.chains[d->second].messages; // the same rules
      continue;
    }
    out.changed.push_back(s.name);
    if (!s.rules.empty())
      read.push_back(s.name);
  }
  if (!read.empty()) {
    KernelTable now = transport.read_chains(nfproto, table, read);
    std::unordered_map<std::string_view, KernelChain *> by_name;
    for (KernelChain &c : now.chains)
      by_name.emplace(c.name, &c);
    for (size_t c = 0; c < kernel->chains.size(); ++c) {
      const StateChain &s = kernel->chains[c];
      const auto it = by_name.find(s.name);
      if (it == by_name.end())
        continue;
      // The kernel's rules must be the journal's.
      bool same = it->second->rules.size() == s.rules.size();
      for (size_t r = 0; same && r < s.rules.size(); ++r)
        same = it->second->rules[r] == s.rules[r].handle;
      if (!same) {
        *why = "the kernel's chain `" + s.name + "' is not as recorded";
        return std::nullopt;
      }
      out.before.chains[c].messages = std::move(it->second->messages);
    }
    if (by_name.size() != read.size() || transport.generation() != generation) {
      *why = "the ruleset changed while it was compared";
      return std::nullopt;
    }
  }
  return out;
}

} // namespace fastrestore::nft
