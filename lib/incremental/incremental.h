// The --incremental engine (incremental_block.h), one class in three
// files: the interface the writer calls, as the block is read and at its
// end (incremental_block.cpp); the record's lines, known lines taken
// unparsed and each line hashed (block_lines.cpp); and COMMIT, the delta or
// the block's own batch sent and the record kept (block_commit.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/delta.h"
#include "check/table_state.h"
#include "incremental/incremental_block.h"
#include "journal_keeper.h"
#include "sys/hash_index.h"
#include "table_delta.h"

namespace fastrestore::nft {

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

  void begin(const std::string &table, const Location &loc, bool on) override;
  bool takes(std::string_view line, int lineno, uint64_t given) override;
  bool declared_unparsed(std::string_view chain) const override;
  void note_entry(int line, const Block::Entry &entry) override;
  void note_op(const Op &op) override;
  bool parse_whole_first(bool planned_from_kernel) override;
  const std::vector<StateSet> *recorded_sets() const override;
  void record_sets(std::vector<StateSet> sets) override;
  bool record_current(const std::string &table) const override;
  std::optional<KernelChain>
  recorded_chain(const std::string &name,
                 std::vector<uint64_t> &keys) const override;
  std::optional<uint64_t>
  recorded_rule(const std::string &name,
                std::pair<uint64_t, uint64_t> keys) const override;
  BlockOutcome commit(uint32_t id_base) override;
  void block_ended() override;

private:
  // COMMIT (block_commit.cpp): the delta from what the kernel holds, or the
  // block's own batch; sent, and the record kept.
  std::optional<DesiredTable> wanted(const TableState &kernel,
                                     bool journal = false);
  BlockOutcome commit_incremental(uint32_t id_base);
  std::optional<BlockOutcome> commit_chains();
  void verbose_report(const Delta *delta,
                      const std::optional<DesiredTable> &want,
                      const std::optional<TableState> &kernel);
  bool read_for_commands(std::optional<TableState> &kernel,
                         std::optional<DesiredTable> &want,
                         std::optional<TableState> &partly);
  void send_commands(uint32_t generation, DesiredTable *after);
  void send_commands_beside(uint32_t generation, const TableState &partly);
  void send_replacement(uint32_t generation, std::optional<DesiredTable> &want);
  void keep_journal(uint32_t generation, bool committed, DesiredTable *want,
                    const std::vector<uint64_t> *kept,
                    const std::vector<Allocation> &made,
                    JournalKeeper::Ahead *ahead = nullptr);
  static std::vector<std::pair<size_t, bool>> sizes(const DesiredTable &want);
  static std::vector<uint64_t> rekey(DesiredTable &want, RuleKey how);
  static void rekey(DesiredTable &want, const std::vector<uint64_t> &keys);
  static bool has_messages(const Delta &delta, const DesiredTable &want);

  // The record's lines (block_lines.cpp): the record loaded at the block's
  // start, the lines it knows taken unparsed, each line hashed, and what
  // the block's lines make recorded.
  void begin_journal(bool on);
  void load_record(uint32_t generation);
  void ensure_loaded();
  // Chain `name` of the deferred record as read this block (read now when
  // it was not); null when the record is not current. take_chain moves it
  // out.
  const ChainRecord *deferred_chain(const std::string &name) const;
  std::optional<ChainRecord> take_chain(const std::string &name);
  bool changes_nothing() const;
  bool take_declaration(std::string_view line, int lineno);
  static bool counters_text(std::string_view s);
  static LineKind line_kind(std::string_view l);
  uint64_t remember_line(int lineno, std::string_view line, uint64_t given,
                         LineKind kind);
  uint64_t fingerprint();
  bool take_unparsed(DesiredTable &want, const TableState &journal);
  static bool block_line(std::string_view l);
  static bool says_something(std::string_view l);
  static uint64_t fold_block(uint64_t block, uint64_t line);
  static bool counters_in(const DesiredTable &want);
  void note_lines(DesiredTable &want);
  void note_emptied(const Op &op);

  bool records_lines() const;
  uint32_t journal_chain(const TableState &journal,
                         std::string_view name) const;
  uint64_t block_seed() const;
  void mark_made_again(DesiredTable &want) const;

  // The block read again, every line parsed (incremental_block.cpp).
  BlockOutcome read_again(std::optional<TableState> *journal = nullptr);

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
  // --noflush: the record not loaded yet (ensure_loaded), at
  // loaded_generation_; a chain for the planner is read from it alone.
  bool deferred_ = false;
  // The deferred record was found current when a chain was read from it
  // (recorded_chain): changes_nothing need not ask again.
  mutable bool deferred_current_ = false;
  // The deferred record's chains read this block, each once: the
  // planner's reads (recorded_chain), taken by commit_chains.
  mutable std::map<std::string, ChainRecord> record_chains_;
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

} // namespace fastrestore::nft
