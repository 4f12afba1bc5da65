// --incremental for the nf_tables writer (incremental_block.h): the
// journal's record of a block's table, the block's lines taken unparsed
// or the whole block hashed, and at COMMIT the delta from what the kernel
// holds, sent, and recorded.
#include "incremental/incremental_block.h"

#include <linux/netfilter/nf_tables.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

#include "check/delta.h"
#include "diag/stats.h"
#include "fastrestore/process_heap.h"
#include "fastrestore/tables.h"
#include "journal_keeper.h"
#include "nft/nft_backend.h"
#include "parse/kernel_resolved.h"
#include "sys/hash64.h"
#include "sys/hash_index.h"
#include "sys/name_lookups.h"
#include "xtables/parse_fingerprint.h"

namespace fastrestore::nft {
namespace {

// A block's line, as its hash (note_lines) sees it: one that says what
// the block does (hashed into it), another that says something (the block
// is then not recorded whole), a blank line or a comment; or not seen yet.
enum class LineKind : uint8_t { unseen, block, other, silent };

// A block's line as seen: its hash64 and its kind.
struct SeenLine {
  uint64_t hash = 0;
  LineKind kind = LineKind::unseen;
};

class Incremental : public IncrementalBlock {

public:
  Incremental(const RestoreConfig &cfg, Transport *transport,
              const BlockSource &text, std::unique_ptr<Batch> &batch,
              const bool &needs_model, std::function<KernelView &()> view)
      : cfg_(cfg), transport_(transport), text_(text), batch_(batch),
        needs_model_(needs_model), view_(std::move(view)) {
    journal_ = JournalKeeper::open(&journal_off_);
  }

  void begin(const std::string &table, const Location &loc, bool on) override {
    table_ = table;
    loc_ = loc;
    begin_journal(on);
  }

  bool takes(std::string_view line, int lineno, uint64_t given) override {
    // Each line's hash and kind, kept for the record (note_lines). The
    // whole block may be the one recorded: its hash is made as the lines
    // go by (the record's lines taken unparsed all the same, so that
    // another block needs no second reading).
    uint64_t hash = 0;
    if (records_lines()) {
      const LineKind kind = line_kind(line);
      hash = remember_line(lineno, line, given, kind);
      if (speculating_ && kind == LineKind::block)
        speculation_.hash = fold_block(speculation_.hash, hash);
      else if (speculating_ && kind == LineKind::other)
        speculation_.broken = true; // not hashed, and parsed
    }
    if (known_lines_.empty() || needs_model_)
      return false;
    if (!line.empty() && line.front() == ':')
      return take_declaration(line, lineno);
    if (line.size() < 4 || line.compare(0, 3, "-A ") != 0)
      return false;
    const HashIndex::Entry *known = known_lines_.find(hash);
    if (known == nullptr)
      return false;
    // --noflush: a rule appended to a chain the block has not emptied is
    // added to what the kernel holds, and needs its message: parsed. (The
    // line is the recorded one, so its chain is the record's chain.)
    if (cfg_.noflush && !emptied_[known->a])
      return false;
    unparsed_.push_back({lineno, known->a, known->b});
    ++phase_stats().rules;
    ++phase_stats().unparsed;
    return true;
  }

  bool declared_unparsed(std::string_view chain) const override {
    if (declared_.empty() || !journal_state_)
      return false;
    const uint32_t c = journal_chain(*journal_state_, chain);
    return c != kNone && declared_[c];
  }

  void note_entry(int line, const Block::Entry &entry) override {
    if (journal_ == nullptr)
      return;
    // A line whose parsing looked a name up (name_lookups.h) is parsed
    // every time; one the kernel settles (kernel_resolved.h) is also
    // never kept.
    const uint64_t lookups = name_lookups();
    if (lookups != seen_lookups_) {
      seen_lookups_ = lookups;
      looked_up_.insert(line);
    }
    if (entry.cmd)
      for (const Rule &r : entry.cmd->rules)
        if (kernel_resolved(r)) {
          looked_up_.insert(line);
          made_again_.insert(line);
        }
  }

  void note_op(const Op &op) override {
    if (!known_lines_.empty() && cfg_.noflush)
      note_emptied(op);
  }

  bool parse_whole_first(bool planned_from_kernel) override {
    if (unparsed_.empty() || needs_model_ || !planned_from_kernel)
      return false;
    read_again();
    return true;
  }

  const std::vector<StateSet> *recorded_sets() const override {
    return journal_state_ ? &journal_state_->sets : nullptr;
  }

  void record_sets(std::vector<StateSet> sets) override {
    sets_ = std::move(sets);
  }

  BlockOutcome commit(uint32_t id_base) override {
    return commit_incremental(id_base);
  }

  void block_ended() override {
    if (!parse_all_)
      return;
    parse_all_ = false;
    carried_.reset();
    phase_stats().rules = rules_first_read_;
  }

private:
  // The table the block would leave, from its batch: a replacement's own
  // chains and rules, or --noflush's commands applied to `kernel` (with
  // `journal`, the kernel's side from the journal, with the rule lines
  // taken unparsed too).
  std::optional<DesiredTable> wanted(const TableState &kernel,
                                     bool journal = false) {
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
          known.push_back(
              {u.line, c.name, c.rules[u.rule].key, false, u.chain});
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
  BlockOutcome commit_incremental(uint32_t id_base) {
    PhaseStats &stats = phase_stats();
    stats.incremental = cfg_.noflush ? "commands" : "replacement";
    stats.kept = stats.added = stats.removed = 0;
    stats.state_source = nullptr;
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
        KernelTable kt = view_().table();
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
    if (kernel && want && (cfg_.noflush || !want->state.chains.empty())) {
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
            journal_->prepare(batch_family(), table_, *want,
                              &delta->kept_handles, made, kernel->next_handle,
                              ahead);
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

  // -v: the way the block went (--stats' words), and with a delta each
  // chain it changed: rules kept, added and removed.
  void verbose_report(const Delta *delta,
                      const std::optional<DesiredTable> &want,
                      const std::optional<TableState> &kernel) {
    if (!cfg_.verbose)
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
  bool read_for_commands(std::optional<TableState> &kernel,
                         std::optional<DesiredTable> &want,
                         std::optional<TableState> &partly) {
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
      KernelTable kt = view_().table();
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
  void send_commands(uint32_t generation, DesiredTable *after) {
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
  void send_commands_beside(uint32_t generation, const TableState &partly) {
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
  void send_replacement(uint32_t generation,
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
  void keep_journal(uint32_t generation, bool committed, DesiredTable *want,
                    const std::vector<uint64_t> *kept,
                    const std::vector<Allocation> &made,
                    JournalKeeper::Ahead *ahead = nullptr) {
    if (want != nullptr && (ahead == nullptr || !ahead->settled)) {
      note_lines(*want);
      want->state.sets = sets_;
    }
    std::string why;
    if (!journal_->record(*transport_, batch_family(), table_, generation,
                          committed, want, kept, made, &why, ahead))
      phase_stats().journal_note = "not kept: " + why;
  }

  static std::vector<std::pair<size_t, bool>> sizes(const DesiredTable &want) {
    std::vector<std::pair<size_t, bool>> out;
    for (const auto &c : want.state.chains)
      out.emplace_back(c.rules.size(), c.base);
    return out;
  }

  // Gives `want`'s rules keys of kind `how`; returns the keys they had.
  static std::vector<uint64_t> rekey(DesiredTable &want, RuleKey how) {
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
  static void rekey(DesiredTable &want, const std::vector<uint64_t> &keys) {
    size_t i = 0;
    for (auto &c : want.state.chains)
      for (auto &r : c.rules)
        r.key = keys[i++];
  }

  // --incremental with the journal: its record of the table, read at the
  // block's start for the generation the block is sent with, and the
  // block's rule lines that it knows by their text (parsed under the same
  // fingerprint, no host name looked up), which the driver then hands over
  // unparsed (takes).
  void begin_journal(bool on) {
    speculating_ = false;
    if (!parse_all_) {
      new_block_ = false; // a block read for the first time
      seen_.clear();
    }
    journal_state_.reset();
    known_lines_ = HashIndex();
    unparsed_.clear();
    emptied_.clear();
    next_declared_ = 0;
    journal_chains_ = HashIndex();
    declared_.clear();
    looked_up_.clear();
    made_again_.clear();
    want_fingerprint_current_ = true;
    if (!on || journal_ == nullptr)
      return;
    seen_lookups_ = name_lookups();
    const uint32_t generation = view_().generation();
    journal_why_.clear();
    if (carried_ && carried_generation_ == generation)
      journal_state_ = std::move(carried_);
    else
      journal_state_ =
          journal_->load(batch_family(), table_, generation, &journal_why_);
    carried_.reset();
    loaded_generation_ = generation;
    // (--optimize parses every line: its sink takes none unparsed.)
    if (!journal_state_ || cfg_.family == Family::bridge || cfg_.optimize)
      return;
    if (journal_state_->fingerprint != fingerprint()) {
      want_fingerprint_current_ = false;
      return;
    }
    // -v prints every rule: every line is parsed.
    if (parse_all_ || cfg_.verbose)
      return;
    if (journal_state_->block != 0) {
      speculating_ = true;
      speculation_ = Speculation{block_seed(), false};
    }
    const auto &chains = journal_state_->chains;
    known_lines_ = HashIndex(journal_state_->rule_count());
    for (uint32_t c = 0; c < chains.size(); ++c)
      for (uint32_t r = 0; r < chains[c].rules.size(); ++r)
        known_lines_.put(chains[c].rules[r].line, c, r);
    journal_chains_ = HashIndex(chains.size());
    for (uint32_t c = 0; c < chains.size(); ++c)
      journal_chains_.put(hash64(chains[c].name), c);
    declared_.assign(chains.size(), false);
    if (cfg_.noflush)
      emptied_.assign(chains.size(), false);
  }

  // `:chain - [p:b]` (or `:chain -`) of a user chain the record holds,
  // taken unparsed (declared_unparsed tells): --noflush flushes the chain,
  // which exists; a replacement makes it (desired_table). A replacement's
  // second declaration of a chain (a flush) is parsed.
  bool take_declaration(std::string_view line, int lineno) {
    const size_t end = line.find(' ');
    if (end == std::string_view::npos || end < 2)
      return false;
    const std::string_view name = line.substr(1, end - 1);
    std::string_view rest = line.substr(end);
    if (rest.compare(0, 2, " -") != 0)
      return false;
    rest.remove_prefix(2);
    if (!rest.empty() && !counters_text(rest))
      return false;
    // (Declarations come in the record's order of chains, as a rule: the
    // chain after the one declared last is tried before the lookup.)
    const auto &chains = journal_state_->chains;
    const uint32_t c =
        next_declared_ < chains.size() && chains[next_declared_].name == name
            ? next_declared_
            : journal_chain(*journal_state_, name);
    if (c == kNone || chains[c].base)
      return false;
    if (!cfg_.noflush && declared_[c])
      return false;
    declared_[c] = true;
    next_declared_ = c + 1;
    unparsed_.push_back({lineno, c, kDeclared});
    if (cfg_.noflush)
      emptied_[c] = true;
    ++phase_stats().unparsed;
    return true;
  }

  // " [P:B]", P and B digits.
  static bool counters_text(std::string_view s) {
    if (s.size() < 6 || s.compare(0, 2, " [") != 0 || s.back() != ']')
      return false;
    s = s.substr(2, s.size() - 3);
    const size_t colon = s.find(':');
    auto digits = [](std::string_view d) {
      return !d.empty() &&
             d.find_first_not_of("0123456789") == std::string_view::npos;
    };
    return colon != std::string_view::npos && digits(s.substr(0, colon)) &&
           digits(s.substr(colon + 1));
  }

  // What a line of the block is to its hash (LineKind).
  static LineKind line_kind(std::string_view l) {
    return block_line(l)       ? LineKind::block
           : says_something(l) ? LineKind::other
                               : LineKind::silent;
  }

  // Whether the block's lines are recorded (note_lines): with a journal,
  // but not in bridge tables or with --optimize.
  bool records_lines() const {
    return journal_ != nullptr && cfg_.family != Family::bridge &&
           !cfg_.optimize;
  }

  // hash64 of the block's line `lineno` (`given`, when not 0), kept with
  // its kind in seen_ for note_lines.
  uint64_t remember_line(int lineno, std::string_view line, uint64_t given,
                         LineKind kind) {
    const uint64_t h = given != 0 ? given : hash64(line);
    if (lineno >= text_.first()) {
      const size_t i = static_cast<size_t>(lineno - text_.first());
      if (seen_.size() <= i)
        seen_.resize(i + 1);
      seen_[i] = {h, kind};
    }
    return h;
  }

  // The chain of the journal's record `journal` named `name` (kNone:
  // none), by journal_chains_.
  uint32_t journal_chain(const TableState &journal,
                         std::string_view name) const {
    const HashIndex::Entry *e =
        journal_chains_.find_name(name, [&](const HashIndex::Entry &x) {
          return std::string_view(journal.chains[x.a].name);
        });
    return e != nullptr ? e->a : kNone;
  }

  uint64_t fingerprint() {
    if (!fingerprint_)
      fingerprint_ = parse_fingerprint(cfg_.family, cfg_.counters);
    return *fingerprint_;
  }

  // The lines taken unparsed, each as its journal rule's key, into `want`
  // (the rules parsed) in line order. False when a line's chain is not in
  // the block: the block is then parsed whole. (A kept line that jumps to
  // a chain the block no longer declares keeps the kernel from deleting
  // that chain: the batch is refused, and the block parsed whole.)
  bool take_unparsed(DesiredTable &want, const TableState &journal) {
    // Each journal chain's place in `want` (SIZE_MAX: none).
    std::vector<size_t> want_of(journal.chains.size(), SIZE_MAX);
    for (size_t c = 0; c < want.state.chains.size(); ++c) {
      const uint32_t j = journal_chain(journal, want.state.chains[c].name);
      if (j != kNone)
        want_of[j] = c;
    }
    // The rule lines taken unparsed, by chain of `want` in line order:
    // chain c's are taken[from[c]] to taken[from[c + 1]].
    std::vector<size_t> from(want.state.chains.size() + 1, 0);
    for (const Unparsed &u : unparsed_) {
      if (u.rule == kDeclared)
        continue; // made by desired_table
      if (want_of[u.chain] == SIZE_MAX)
        return false;
      ++from[want_of[u.chain] + 1];
    }
    for (size_t c = 1; c < from.size(); ++c)
      from[c] += from[c - 1];
    std::vector<const Unparsed *> taken(from.back());
    {
      std::vector<size_t> next(from.begin(), from.end() - 1);
      for (const Unparsed &u : unparsed_)
        if (u.rule != kDeclared)
          taken[next[want_of[u.chain]]++] = &u;
    }
    for (size_t c = 0; c + 1 < from.size(); ++c) {
      const auto extra =
          std::make_pair(taken.begin() + from[c], taken.begin() + from[c + 1]);
      if (extra.first == extra.second)
        continue;
      auto &rules = want.state.chains[c].rules;
      auto &sources = want.rule_sources[c];
      if (rules.empty()) {
        // (The common case: no rule of the chain parsed.)
        const size_t n = static_cast<size_t>(extra.second - extra.first);
        rules.resize(n);
        sources.resize(n);
        for (size_t i = 0; i < n; ++i) {
          const Unparsed *u = extra.first[i];
          rules[i].key = journal.chains[u->chain].rules[u->rule].key;
          sources[i].line = u->line;
        }
        continue;
      }
      std::vector<StateRule> r2;
      std::vector<RuleSource> s2;
      size_t p = 0;
      auto take_parsed = [&] {
        r2.push_back(rules[p]);
        s2.push_back(sources[p]);
        ++p;
      };
      for (auto u_at = extra.first; u_at != extra.second; ++u_at) {
        const Unparsed *u = *u_at;
        while (p < rules.size() && sources[p].line < u->line)
          take_parsed();
        StateRule r;
        r.key = journal.chains[u->chain].rules[u->rule].key;
        r2.push_back(r);
        s2.push_back({{}, SIZE_MAX, u->line});
      }
      while (p < rules.size())
        take_parsed();
      rules = std::move(r2);
      sources = std::move(s2);
    }
    want.allocations.clear(); // the replacement batch lacks these rules
    return true;
  }

  // Whether every rule the delta sends has a message (was parsed).
  static bool has_messages(const Delta &delta, const DesiredTable &want) {
    for (const DeltaOp &op : delta.ops)
      if ((op.kind == DeltaKind::rule_append ||
           op.kind == DeltaKind::rule_insert_before ||
           op.kind == DeltaKind::rule_replace) &&
          want.rule_sources[op.chain][op.rule].message.empty())
        return false;
    return true;
  }

  // The block to be read again, every line parsed (the writer's COMMIT
  // answers read_again; block_ended ends that reading). `journal`: the
  // journal's record of the table, taken from journal_state_ for that
  // reading's commit (kept, decoded, while the generation is the one it
  // was loaded for).
  BlockOutcome read_again(std::optional<TableState> *journal = nullptr) {
    carried_ = std::move(journal != nullptr ? *journal : journal_state_);
    carried_generation_ = loaded_generation_;
    phase_stats().unparsed -= unparsed_.size();
    // The block's rules are those its first reading counted.
    rules_first_read_ = phase_stats().rules;
    batch_.reset();
    parse_all_ = true;
    return BlockOutcome::read_again;
  }

  // The lines of a block that say what it does: declarations, commands
  // and rules (comments, blank lines and the table and COMMIT lines
  // aside).
  static bool block_line(std::string_view l) {
    return !l.empty() && (l[0] == '-' || l[0] == ':' || l[0] == '[');
  }

  // A line other than a blank one or a comment.
  static bool says_something(std::string_view l) {
    return l.find_first_not_of(" \t") != std::string_view::npos &&
           l.front() != '#';
  }

  // The block's hash continued over a line's hash (hash64 of the line).
  static uint64_t fold_block(uint64_t block, uint64_t line) {
    return mix64(block ^ line) + 0x9e3779b97f4a7c15ULL;
  }

  // Whether a rule or chain of `want` is given counters (-c).
  static bool counters_in(const DesiredTable &want) {
    for (const StateChain &c : want.state.chains) {
      if (c.counters)
        return true;
      for (const StateRule &r : c.rules)
        if (r.counters)
          return true;
    }
    return false;
  }

  uint64_t block_seed() const {
    return hash64_seed ^ (cfg_.noflush ? 0x6e6f666c757368ull : 0);
  }

  // Each rule's line hash for the journal (0 for a line that looked a
  // host name up or gave counters, and in bridge tables, whose lines are
  // always parsed).
  void note_lines(DesiredTable &want) {
    want.state.fingerprint = cfg_.family == Family::bridge ? 0 : fingerprint();
    // --optimize: a rule may stand for a run of lines; no line, nor the
    // block, is recorded as the table's (a load without it must parse
    // them: note_lines leaves every hash 0).
    if (cfg_.family == Family::bridge || cfg_.optimize)
      return;
    const int first = text_.first();
    const int last = first + text_.count() - 1; // the COMMIT line
    // Every line's hash and kind: made while the block was read
    // (takes saw each line between the table's and COMMIT), or
    // else now, from the block's text read again.
    const size_t count = static_cast<size_t>(text_.count());
    seen_.resize(count);
    auto unseen = [](const SeenLine &s) { return s.kind == LineKind::unseen; };
    if (count > 2 && std::any_of(seen_.begin() + 1, seen_.end() - 1, unseen))
      text_.each(first, last, [&](std::string_view l, int n) {
        if (n <= first || n >= last)
          return;
        SeenLine &s = seen_[static_cast<size_t>(n - first)];
        if (unseen(s))
          s = {hash64(l), line_kind(l)};
      });
    // The block's hash, as takes makes it, when loading the block
    // again would leave the table as it is: no counters given, no host
    // name looked up, no line saying something that is not hashed.
    uint64_t block = block_seed();
    bool whole = want.repeatable && looked_up_.empty() && !counters_in(want);
    for (size_t i = 1; i + 1 < count; ++i) {
      if (seen_[i].kind == LineKind::block)
        block = fold_block(block, seen_[i].hash);
      else if (seen_[i].kind == LineKind::other)
        whole = false;
    }
    want.state.block = whole ? block : 0;
    // The line of each rule, as an index into seen_; a line that made
    // several rules (-s a,b) is parsed every time: its hash stands for
    // one rule.
    auto slot = [&](int n) {
      return n >= first && n - first < static_cast<int>(seen_.size())
                 ? static_cast<size_t>(n - first)
                 : SIZE_MAX;
    };
    std::vector<uint8_t> rules_of(seen_.size(), 0);
    for (const auto &sources : want.rule_sources)
      for (const RuleSource &s : sources)
        if (const size_t i = slot(s.line); i != SIZE_MAX && rules_of[i] < 2)
          ++rules_of[i];
    for (size_t c = 0; c < want.state.chains.size(); ++c)
      for (size_t d = 0; d < want.state.chains[c].rules.size(); ++d) {
        const int n = want.rule_sources[c][d].line;
        const size_t i = slot(n);
        // A rule given counters (-c) is parsed every time: its line sets
        // them, where a line taken unparsed keeps the kernel's.
        const bool known = i != SIZE_MAX && rules_of[i] == 1 &&
                           !looked_up_.count(n) &&
                           !want.state.chains[c].rules[d].counters;
        want.state.chains[c].rules[d].line = known ? seen_[i].hash : 0;
      }
  }

  // The desired rules of lines the kernel settles: the delta keeps no
  // kernel rule for them.
  void mark_made_again(DesiredTable &want) const {
    if (made_again_.empty())
      return;
    for (size_t c = 0; c < want.state.chains.size(); ++c)
      for (size_t d = 0; d < want.state.chains[c].rules.size(); ++d)
        if (made_again_.count(want.rule_sources[c][d].line))
          want.state.chains[c].rules[d].made_again = true;
  }

  // --noflush: the record's chains the block has emptied so far
  // (declared, flushed or made; the lines it knows are all of its chains).
  void note_emptied(const Op &op) {
    bool emptied = false;
    switch (op.kind) {
    case OpKind::chain_restore:
    case OpKind::chain_flush:
    case OpKind::chain_new:
      emptied = true;
      break;
    case OpKind::chain_delete:
    case OpKind::chain_rename:
      break;
    default:
      return;
    }
    const uint32_t c = journal_chain(*journal_state_, op.chain.name);
    if (c != kNone)
      emptied_[c] = emptied;
  }

  uint32_t batch_family() const { return nfproto_of(cfg_.family); }

  const RestoreConfig &cfg_;
  Transport *transport_;
  const BlockSource &text_;
  std::unique_ptr<Batch> &batch_;      // the writer's
  const bool &needs_model_;            // the writer's
  std::function<KernelView &()> view_; // the block's reads
  std::string table_;
  Location loc_;
  std::unique_ptr<JournalKeeper> journal_; // --incremental
  std::string journal_off_;                // why there is no journal_
  std::string journal_why_; // why the block has no journal_state_
  std::optional<TableState> journal_state_;
  uint32_t loaded_generation_ = 0; // the generation journal_state_ is of
  // read_again: the record, kept for the block's reading again.
  std::optional<TableState> carried_;
  uint32_t carried_generation_ = 0;
  std::optional<uint64_t> fingerprint_;
  bool want_fingerprint_current_ = true; // the record's is this process's
  // The line hashes the record knows, each with its chain and rule (empty
  // when no line may be taken unparsed).
  HashIndex known_lines_;
  struct Unparsed {
    int line;
    uint32_t chain, rule; // in journal_state_
  };
  std::vector<Unparsed> unparsed_; // lines taken unparsed, in order
  // The block's lines as seen (by line, from its first), while it was
  // read, completed by note_lines.
  std::vector<SeenLine> seen_;
  // record_sets: recorded with the table (the --optimize sink gives them
  // for each block, again when a retry reads the block again).
  std::vector<StateSet> sets_;
  static constexpr uint32_t kDeclared = UINT32_MAX; // Unparsed::rule of a
                                                    // declaration
  static constexpr uint32_t kNone = UINT32_MAX; // journal_chain: no such chain
  HashIndex journal_chains_;      // the record's chains by name hash
  std::vector<bool> declared_;    // journal chains declared unparsed
  uint32_t next_declared_ = 0;    // take_declaration's guess
  std::vector<bool> emptied_;     // note_emptied (--noflush)
  bool parse_all_ = false;        // read_again: no line taken unparsed
  uint64_t rules_first_read_ = 0; // read_again: the block's rule count
  // The journal's record names the block that made the table (its hash):
  // the block's lines are hashed as they are read (those the record knows
  // still taken unparsed) until COMMIT shows whether it is that block.
  bool speculating_ = false;
  bool new_block_ = false; // the block is not the one recorded
  struct Speculation {
    uint64_t hash;
    bool broken; // a line that says something went unhashed
  } speculation_{0, false};
  uint64_t seen_lookups_ = 0;
  std::set<int> looked_up_;  // lines whose parsing looked a name up
  std::set<int> made_again_; // lines of rules the kernel settles
};

} // namespace

std::unique_ptr<IncrementalBlock>
make_incremental_block(const RestoreConfig &cfg, Transport *transport,
                       const BlockSource &text, std::unique_ptr<Batch> &batch,
                       const bool &needs_model,
                       std::function<KernelView &()> view) {
  return std::make_unique<Incremental>(cfg, transport, text, batch, needs_model,
                                       std::move(view));
}

} // namespace fastrestore::nft
