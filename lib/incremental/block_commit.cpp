// --incremental at COMMIT (incremental.h): the delta from what the kernel
// holds, from the journal or by reading the table, or the block's own
// batch where that is cheaper or the only way; sent with the generation
// the journal or the read was of, and the journal's record kept.

#include <algorithm>
#include <cstdio>
#include <thread>
#include <utility>

#include <linux/netfilter/nf_tables.h>

#include "batch_messages.h"
#include "diag/stats.h"
#include "fastrestore/process_heap.h"
#include "fastrestore/tables.h"
#include "incremental.h"
#include "nft/nft_backend.h"

namespace fastrestore::nft {

// The table the block would leave, from its batch: a replacement's own
// chains and rules, or --noflush's commands applied to `kernel` (with
// `journal`, the kernel's side from the journal, with the rule lines
// taken unparsed too).
std::optional<DesiredTable> Incremental::wanted(const TableState &kernel,
                                                bool journal) {
  if (!cfg_.noflush) {
    // The chains declared by lines taken unparsed, which the batch lacks.
    std::vector<std::string_view> declared;
    if (journal && !needs_model_)
      for (const Unparsed &u : unparsed_)
        if (u.rule == kDeclared)
          declared.push_back(kernel.chains[u.chain].name);
    return desired_table(*batch_, declared);
  }
  std::vector<UnparsedLine> known;
  if (journal && !needs_model_) {
    known.reserve(unparsed_.size());
    for (const Unparsed &u : unparsed_) {
      const StateChain &c = kernel.chains[u.chain];
      if (u.rule == kDeclared)
        known.push_back({u.line, c.name, 0, true, u.chain});
      else
        known.push_back({u.line, c.name, c.rules[u.rule].key, false, u.chain});
    }
  }
  return noflush_table(*batch_, kernel, known);
}

// The block as the changes from what the kernel's table holds (delta.h),
// made from its batch, or the batch itself (a replacement, or --noflush's
// commands): the changes when the kernel's side is known, from the
// journal or by reading the table where that costs less than the batch,
// and the delta keeps the table's meaning (the table exists, a
// replacement would not leave it empty, it holds no set; base chains of
// the same hooks). Either is sent with the generation the journal or
// the read was of, and the journal then records what the kernel holds.
BlockOutcome Incremental::commit_incremental(uint32_t id_base) {
  PhaseStats &stats = phase_stats();
  stats.incremental = cfg_.noflush ? "commands" : "replacement";
  stats.kept = stats.added = stats.removed = 0;
  stats.state_source = nullptr;
  if (deferred_) {
    // A block that changes nothing (-C that found its rules) leaves the
    // table, and so its current record, as they are: neither is read.
    if (changes_nothing()) {
      deferred_ = false;
      stats.incremental = "nothing";
      stats.state_source = "the journal";
      return BlockOutcome::done;
    }
    if (cfg_.journal_when_current)
      if (std::optional<BlockOutcome> done = commit_chains())
        return *done;
    ensure_loaded();
  }
  if (speculating_) {
    speculating_ = false;
    if (!speculation_.broken && speculation_.hash == journal_state_->block) {
      // The block the record was made by, which leaves the table as it
      // is: nothing to plan or send.
      stats.incremental = "nothing";
      stats.kept = journal_state_->rule_count();
      stats.state_source = "the journal";
      journal_state_.reset();
      return BlockOutcome::done;
    }
    new_block_ = true; // its own hash goes in the record
  }
  const uint32_t generation = view_().generation();
  std::optional<TableState> kernel;
  std::optional<DesiredTable> want;
  bool read = false; // the kernel's side read from the kernel
  if (journal_state_) {
    kernel = std::move(journal_state_);
    journal_state_.reset();
    stats.state_source = "the journal";
    want = wanted(*kernel, true);
    // Lines taken unparsed join the rules parsed (--noflush: in
    // wanted); when the delta needs more of them than their keys, the
    // block is parsed whole again.
    if (!unparsed_.empty() && !needs_model_ &&
        !(want && (cfg_.noflush || take_unparsed(*want, *kernel)))) {
      return read_again(&kernel);
    }
  } else {
    stats.journal_note = journal_ != nullptr ? journal_why_ : journal_off_;
  }
  // --noflush: the base chains read, to record the table the commands
  // make, not to plan.
  std::optional<TableState> partly;
  if (!kernel && cfg_.noflush) {
    read = read_for_commands(kernel, want, partly);
  } else if (!kernel) {
    want = desired_table(*batch_);
    if (want && !want->state.chains.empty() && reading_pays(sizes(*want))) {
      const KernelTable &kt = view_().table();
      // A table holding sets or other objects (made with nft) loses
      // them in a replacement: replaced.
      if (kt.exists && kt.use == kt.chains.size())
        kernel = kernel_side(kt);
      read = kernel.has_value();
      if (read)
        stats.state_source = "reading the table";
    }
  }
  std::optional<Delta> delta;
  // The block done, these are left to the process's exit (process_heap.h).
  const LeftToExit left(kernel, want, delta);
  if (kernel && want && !want->commands_only &&
      (cfg_.noflush || !want->state.chains.empty())) {
    // A table read is compared by identity (rule_identity), the
    // journal's by message; the journal keeps message keys.
    std::vector<uint64_t> message_keys;
    if (read)
      message_keys = rekey(*want, RuleKey::identity);
    mark_made_again(*want);
    delta = plan_delta(want->state, *kernel, cfg_.counters);
    if (read)
      rekey(*want, message_keys);
  }
  const bool partial = !unparsed_.empty() && !needs_model_;
  if (delta && !has_messages(*delta, *want)) {
    if (partial) {
      return read_again(&kernel);
    }
    delta.reset(); // --noflush: a kernel rule the delta cannot keep
  }
  if (partial && !delta) {
    return read_again(&kernel);
  }
  if (!delta) {
    if (!cfg_.noflush)
      send_replacement(generation, want);
    else if (partly)
      send_commands_beside(generation, *partly);
    else
      send_commands(generation, want ? &*want : nullptr);
    verbose_report(nullptr, want, kernel);
    return BlockOutcome::done;
  }
  for (const auto &c : delta->chains) {
    stats.kept += c.kept;
    stats.added += c.added;
    stats.removed += c.removed;
  }
  stats.incremental = delta->ops.empty() ? "nothing" : "changes";
  std::vector<Allocation> made;
  const bool send = !delta->ops.empty();
  // (A batch that makes nothing leaves the kernel's next handle.)
  want->state.next_handle = kernel->next_handle;
  JournalKeeper::Ahead ahead;
  bool prepared = false;
  if (send) {
    Batch changes(cfg_.family, id_base);
    made = write_delta(changes, *delta, *want, *batch_, *kernel, table_,
                       cfg_.family, loc_);
    if (journal_ != nullptr)
      JournalKeeper::ask_echo(changes, made);
    changes.finish();
    // The record made while the kernel takes the batch, its handles
    // foretold (journal_keeper.h).
    struct Beside {
      std::thread thread;
      void join() {
        if (thread.joinable())
          thread.join();
      }
      ~Beside() { join(); }
    } beside;
    if (journal_ != nullptr && kernel->next_handle != 0) {
      fingerprint(); // (made here: note_lines asks for it)
      prepared = true;
      beside.thread = std::thread([&] {
        try {
          note_lines(*want);
          want->state.sets = sets_;
          journal_->prepare(batch_family(), table_, *want, &delta->kept_handles,
                            made, kernel->next_handle, ahead);
        } catch (...) {
          ahead.ready = false; // (made after the commit instead)
        }
      });
    }
    try {
      commit_batch(changes, *transport_, &generation);
      beside.join();
    } catch (const Error &) {
      beside.join();
      if (prepared)
        want.reset(); // set as recorded: made again from the batch
      // Refused (nothing changed): with lines taken unparsed, the error
      // is the one parsing every line finds (a kept line that jumps to
      // a chain the block no longer declares), as without the journal;
      // otherwise the block goes whole, and its errors, if any, are a
      // full restore's (the changes may fail on more, or other, lines).
      if (partial) {
        return read_again(&kernel);
      }
      if (cfg_.noflush)
        send_commands(generation, nullptr);
      else
        send_replacement(generation, want);
      verbose_report(nullptr, want, kernel);
      return BlockOutcome::done;
    }
  }
  // Read from the kernel, or changed: the journal learns the table.
  // (--optimize: a set's members changed, outside the ruleset.)
  const bool sets_changed = !kernel || kernel->sets != sets_;
  if (journal_ != nullptr && (send || read || !want_fingerprint_current_ ||
                              new_block_ || sets_changed))
    keep_journal(generation, send, &*want, &delta->kept_handles, made,
                 prepared ? &ahead : nullptr);
  verbose_report(&*delta, want, kernel);
  return BlockOutcome::done;
}

namespace {

// The line hashes of `was`'s rules that `now` still holds (same handle,
// same key). A chain's rules keep their order in the kernel, so `now`'s
// rules from the record are found walking `was` once.
void keep_lines(StateChain &now, const StateChain &was) {
  size_t from = 0; // in was.rules: where the next held rule is looked for
  for (StateRule &r : now.rules) {
    if (r.handle == 0)
      continue;
    size_t at = from;
    while (at < was.rules.size() && was.rules[at].handle != r.handle)
      ++at;
    if (at == was.rules.size())
      continue; // (not the record's)
    if (was.rules[at].key == r.key)
      r.line = was.rules[at].line;
    from = at + 1;
  }
}

} // namespace

// A command line's block on a current record (journal_when_current): the
// chains its batch names read from the record alone, the batch applied to
// them (noflush_table), the batch sent, and those chains written back into
// the record (JournalKeeper::edit; the other chains' bytes are copied as
// they are, and no whole record is decoded or encoded). The rules the
// record held keep their lines' hashes; the batch's have none (parsed the
// next time). nullopt when the batch does what the model does not follow:
// the whole record is loaded instead.
std::optional<BlockOutcome> Incremental::commit_chains() {
  const std::optional<std::vector<std::string>> names = batch_chains(*batch_);
  if (!names)
    return std::nullopt;
  // (Each chain as the planner read it, or read now; the head with any.)
  TableState part;
  std::optional<ChainRecord> head =
      take_chain(names->empty() ? "" : names->front());
  if (!head)
    return std::nullopt;
  part.fingerprint = head->fingerprint;
  part.next_handle = head->next_handle;
  if (head->chain)
    part.chains.push_back(std::move(*head->chain));
  for (size_t i = 1; i < names->size(); ++i) {
    std::optional<ChainRecord> one = take_chain((*names)[i]);
    if (!one)
      return std::nullopt;
    if (one->chain)
      part.chains.push_back(std::move(*one->chain));
  }
  std::optional<DesiredTable> want = noflush_table(*batch_, part);
  if (!want)
    return std::nullopt;
  want->state.next_handle = part.next_handle;
  // The rules the record held, unchanged (same handle, same key), keep
  // their lines' hashes, which the model clears.
  for (StateChain &c : want->state.chains)
    for (const StateChain &was : part.chains)
      if (was.name == c.name)
        keep_lines(c, was);
  std::vector<std::string> gone;
  for (const StateChain &c : part.chains)
    if (std::none_of(want->state.chains.begin(), want->state.chains.end(),
                     [&](const StateChain &w) { return w.name == c.name; }))
      gone.push_back(c.name);
  PhaseStats &stats = phase_stats();
  stats.incremental = "commands";
  stats.state_source = "the journal";
  deferred_ = false;
  const uint32_t generation = view_().generation();
  JournalKeeper::ask_echo(*batch_, want->allocations);
  try {
    commit_batch(*batch_, *transport_, &generation);
  } catch (const Error &) {
    // Refused (nothing changed): sent again as it is, for the errors a
    // command without the journal gets.
    send_commands(generation, nullptr);
    return BlockOutcome::done;
  }
  std::string why;
  if (!journal_->edit(*transport_, batch_family(), table_, generation, *want,
                      gone, want->allocations, &why))
    stats.journal_note = "not kept: " + why;
  return BlockOutcome::done;
}

// -v: the way the block went (--stats' words), and with a delta each
// chain it changed: rules kept, added and removed.
void Incremental::verbose_report(const Delta *delta,
                                 const std::optional<DesiredTable> &want,
                                 const std::optional<TableState> &kernel) {
  if (!cfg_.verbose || cfg_.command_line)
    return;
  const PhaseStats &stats = phase_stats();
  printf("Incremental `%s': %s", table_.c_str(), stats.incremental);
  if (stats.state_source != nullptr)
    printf(", kernel state from %s", stats.state_source);
  if (delta == nullptr) {
    printf("\n");
    fflush(stdout);
    return;
  }
  printf(": %llu rules kept, %llu added, %llu removed\n",
         static_cast<unsigned long long>(stats.kept),
         static_cast<unsigned long long>(stats.added),
         static_cast<unsigned long long>(stats.removed));
  size_t same = 0;
  for (const ChainDelta &c : delta->chains) {
    const std::string &name = c.deleted ? kernel->chains[c.chain].name
                                        : want->state.chains[c.chain].name;
    if (c.deleted)
      printf("  chain `%s' deleted: %zu removed\n", name.c_str(), c.removed);
    else if (c.created)
      printf("  chain `%s' made: %zu added\n", name.c_str(), c.added);
    else if (c.added != 0 || c.removed != 0)
      printf("  chain `%s': %zu kept, %zu added, %zu removed\n", name.c_str(),
             c.kept, c.added, c.removed);
    else
      ++same;
  }
  if (same != 0)
    printf("  %zu chain%s unchanged\n", same, same == 1 ? "" : "s");
  fflush(stdout);
}

// --noflush without a current journal: the kernel's table as far as it
// matters. The whole table is read, to send only the changes, where
// reading_pays (judged from the rules the block puts in each chain).
// Otherwise, with a journal to keep, the base chains the block does not
// empty are read with their rules (a few small requests, no chain dump:
// `partly`); the commands applied to them give the table they make,
// recorded when the kernel's count of the table's chains agrees
// (send_commands_beside). A missing table is known empty. True when the
// kernel's side is read whole (keyed by identity).
bool Incremental::read_for_commands(std::optional<TableState> &kernel,
                                    std::optional<DesiredTable> &want,
                                    std::optional<TableState> &partly) {
  if (cfg_.journal_when_current)
    return false; // (the record was not current: none is made)
  PhaseStats &stats = phase_stats();
  const auto named = noflush_chains(*batch_);
  std::vector<std::pair<size_t, bool>> sizes;
  size_t rules = 0;
  for (const auto &[name, c] : named) {
    sizes.emplace_back(c.rules, false);
    rules += c.rules;
  }
  auto missing = [&] {
    kernel.emplace();
    want = wanted(*kernel);
    stats.state_source = "the kernel (no such table)";
    return false;
  };
  if (!sizes.empty() && reading_pays(sizes)) {
    const KernelTable &kt = view_().table();
    if (!kt.exists)
      return missing();
    if (kt.use != kt.chains.size())
      return false;
    kernel = kernel_side(kt);
    if (kernel)
      want = wanted(*kernel);
    stats.state_source = "reading the table";
    return kernel.has_value();
  }
  if (journal_ == nullptr)
    return false; // nothing to record
  // The base chains the block does not empty, read; the chains it
  // empties need not be; a chain it does neither to fails the
  // simulation; whether the table holds any other is told by its count
  // of chains after the commit (send_commands_beside).
  std::vector<std::string> bases;
  for (const BuiltinChain *b :
       chains_in_hook_order(*find_builtin_table(table_, cfg_.family))) {
    auto it = named.find(b->name);
    if (it == named.end() || !it->second.emptied)
      bases.emplace_back(b->name);
  }
  const KernelTable some = view_().chains(bases);
  if (!some.exists)
    return missing();
  partly = kernel_side(some);
  return false;
}

// The block's --noflush commands sent as they are, with `generation`;
// the journal records the table they make when it is known (`after`,
// its kernel rules keyed as the journal keys them).
void Incremental::send_commands(uint32_t generation, DesiredTable *after) {
  phase_stats().incremental = "commands";
  const bool whole = after != nullptr && journal_ != nullptr;
  if (whole)
    JournalKeeper::ask_echo(*batch_, after->allocations);
  commit_batch(*batch_, *transport_, &generation);
  if (journal_ == nullptr)
    return;
  // (Its rules carry their handles: the kernel's; 0 for the batch's.)
  if (whole)
    keep_journal(generation, true, after, nullptr, after->allocations);
  else
    keep_journal(generation, true, nullptr, nullptr, {});
}

// As send_commands, with only the base chains the block leaves read
// (`partly`, read_for_commands). The table the commands make is
// simulated on a second thread while the kernel takes the batch (the
// simulation was a tenth of the instructions of a kube-proxy
// --noflush load). Which of the chains the block declares it makes is
// not known, so only its rules are numbered (rule_allocations): the
// simulation numbers every rule message of the batch, those it deletes
// again too, so the batch's first and last rule messages are the ones
// to echo (one message asked twice when it is the only one: its flag
// is set once), asked before it ends. The record is kept when the
// table's count of chains after the commit is the simulation's.
void Incremental::send_commands_beside(uint32_t generation,
                                       const TableState &partly) {
  phase_stats().incremental = "commands";
  const std::vector<size_t> rules = rule_messages(*batch_);
  if (!rules.empty())
    JournalKeeper::ask_echo(*batch_, {{rules.front(), SIZE_MAX, SIZE_MAX},
                                      {rules.back(), SIZE_MAX, SIZE_MAX}});
  std::optional<DesiredTable> after;
  std::thread beside([&] {
    try {
      after = wanted(partly);
    } catch (...) {
      after.reset(); // (not recorded)
    }
  });
  try {
    commit_batch(*batch_, *transport_, &generation);
  } catch (...) {
    beside.join();
    throw;
  }
  beside.join();
  const LeftToExit left(after);
  if (!after)
    return keep_journal(generation, true, nullptr, nullptr, {});
  phase_stats().state_source = "reading the chains the block leaves";
  if (view_().use_now() != after->state.chains.size()) {
    phase_stats().journal_note =
        "not kept: the table holds chains the block does not name";
    return keep_journal(generation, true, nullptr, nullptr, {});
  }
  keep_journal(generation, true, &*after, nullptr,
               rule_allocations(rules, after->allocations));
}

// The block's replacement batch sent whole, with `generation`; the
// journal records the table it makes.
void Incremental::send_replacement(uint32_t generation,
                                   std::optional<DesiredTable> &want) {
  if (journal_ != nullptr && !want)
    want = desired_table(*batch_);
  const bool whole = want && !want->state.chains.empty();
  if (journal_ != nullptr && whole)
    JournalKeeper::ask_echo(*batch_, want->allocations);
  commit_batch(*batch_, *transport_, &generation);
  if (journal_ != nullptr)
    keep_journal(generation, true, whole ? &*want : nullptr, nullptr,
                 whole ? want->allocations : std::vector<Allocation>{});
}

// `ahead`: the record prepared beside the commit, if it was.
void Incremental::keep_journal(uint32_t generation, bool committed,
                               DesiredTable *want,
                               const std::vector<uint64_t> *kept,
                               const std::vector<Allocation> &made,
                               JournalKeeper::Ahead *ahead) {
  if (want != nullptr && (ahead == nullptr || !ahead->settled)) {
    note_lines(*want);
    want->state.sets = sets_;
  }
  std::string why;
  if (!journal_->record(*transport_, batch_family(), table_, generation,
                        committed, want, kept, made, &why, ahead))
    phase_stats().journal_note = "not kept: " + why;
}

std::vector<std::pair<size_t, bool>>
Incremental::sizes(const DesiredTable &want) {
  std::vector<std::pair<size_t, bool>> out;
  for (const auto &c : want.state.chains)
    out.emplace_back(c.rules.size(), c.base);
  return out;
}

// Gives `want`'s rules keys of kind `how`; returns the keys they had.
std::vector<uint64_t> Incremental::rekey(DesiredTable &want, RuleKey how) {
  std::vector<uint64_t> old;
  for (size_t c = 0; c < want.state.chains.size(); ++c)
    for (size_t d = 0; d < want.state.chains[c].rules.size(); ++d) {
      old.push_back(want.state.chains[c].rules[d].key);
      // The kernel's own rules (--noflush) keep the key they have.
      if (const std::string_view m = want.rule_sources[c][d].message;
          !m.empty())
        want.state.chains[c].rules[d].key = rule_key(m, how);
    }
  return old;
}

// Gives `want`'s rules back the keys `keys` (rekey's).
void Incremental::rekey(DesiredTable &want, const std::vector<uint64_t> &keys) {
  size_t i = 0;
  for (auto &c : want.state.chains)
    for (auto &r : c.rules)
      r.key = keys[i++];
}

// Whether every rule the delta sends has a message (was parsed).
bool Incremental::has_messages(const Delta &delta, const DesiredTable &want) {
  for (const DeltaOp &op : delta.ops)
    if ((op.kind == DeltaKind::rule_append ||
         op.kind == DeltaKind::rule_insert_before ||
         op.kind == DeltaKind::rule_replace) &&
        want.rule_sources[op.chain][op.rule].message.empty())
      return false;
  return true;
}

// Whether the block's batch only names its table (no chain or rule made,
// changed or deleted), the record of that table being current: nothing
// to send. Not with -v or --stats, whose lines tell the table's rules.
bool Incremental::changes_nothing() const {
  if (cfg_.verbose || cfg_.stats || batch_ == nullptr)
    return false;
  bool only_table = true;
  batch_->each_message([&](std::string_view m, size_t) {
    only_table = only_table && nft_type(m) == NFT_MSG_NEWTABLE;
  });
  if (!only_table)
    return false;
  if (deferred_current_)
    return true;
  std::string why;
  return journal_
      ->load_chain(batch_family(), table_, "", loaded_generation_, &why)
      .has_value();
}

} // namespace fastrestore::nft
