// --incremental for the nf_tables writer (block_writer.cpp), one block at
// a time: at the block's start the state journal's record of its table
// (journal.h), while it is read the lines that need no parsing (the whole
// block, hashed, when the record names it; else each rule line the record
// knows by its text), and at COMMIT the block as the changes from what the
// kernel holds (delta.h), from the journal or read from the kernel, or the
// block's own batch where that is cheaper or the only way; then the
// journal's record of what the kernel holds after it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "check/plan.h"
#include "nft/nft_batch.h"
#include "nft/nft_kernel_view.h"
#include "nft/nft_transport.h"
#include "parse/restore_parser.h"
#include "parse/restore_writer.h"

namespace fastrestore::nft {

class IncrementalBlock : public LineFilter {
public:
  virtual ~IncrementalBlock() = default;

  // A block of `table` starts at `loc`; `on`: this block is --incremental
  // (else the block's journal state is only cleared).
  virtual void begin(const std::string &table, const Location &loc,
                     bool on) = 0;
  // (LineFilter::takes: each line of the block before it is parsed, the
  // ones the journal knows taken.)
  // Whether the block so far declared user chain `chain` on a line taken
  // unparsed.
  virtual bool declared_unparsed(std::string_view chain) const = 0;
  // An entry of the block, at input line `line`, goes to the planner.
  virtual void note_entry(int line, const Block::Entry &entry) = 0;
  // An operation the planner made of it.
  virtual void note_op(const Op &op) = 0;
  // At COMMIT, before anything else: with lines taken unparsed, a block
  // whose commands were planned from the kernel's rules or refused
  // (`planned_from_kernel`) is to be read again, every line parsed; true
  // when it is (the writer's COMMIT then answers read_again).
  virtual bool parse_whole_first(bool planned_from_kernel) = 0;
  // The sets the journal's record of the table names (nullptr: no record
  // current), and those to record with it after the commit
  // (RestoreWriter::recorded_sets, record_sets).
  virtual const std::vector<StateSet> *recorded_sets() const = 0;
  virtual void record_sets(std::vector<StateSet> sets) = 0;
  // Whether the journal holds a record of `table` current now.
  virtual bool record_current(const std::string &table) const = 0;
  // A --noflush block's chain `name` as the journal's record of the table,
  // current at the block's generation, has it (KernelAccess::
  // recorded_chain): its rules' handles, and their keys into `keys`.
  virtual std::optional<KernelChain>
  recorded_chain(const std::string &name,
                 std::vector<uint64_t> &keys) const = 0;
  // The handle of the first rule of that chain whose recorded key is
  // either of `keys` (KernelAccess::recorded_rule), the chain's part of the
  // record scanned, not decoded; nullopt when there is none.
  virtual std::optional<uint64_t>
  recorded_rule(const std::string &name,
                std::pair<uint64_t, uint64_t> keys) const = 0;
  // The block's COMMIT: its batch (the writer's, finished) sent as it is
  // or as a delta, and recorded; or nothing sent and read_again, when the
  // delta needs lines taken unparsed (the block is read again, every line
  // parsed, the journal's record carried to that reading). Throws
  // GenerationChanged when another commit came first (nothing changed).
  virtual BlockOutcome commit(uint32_t id_base) = 0;
  // The writer's COMMIT is done (or failed): a reading again ends.
  virtual void block_ended() = 0;
};

// The keys a journal's record holds for a rule like `rule`: by its
// message's bytes (a rule fastrestore sent), by its identity (a rule read
// from the kernel) (KernelAccess::record_keys).
std::pair<uint64_t, uint64_t> record_keys(const Rule &rule, Family family);

// `batch` and `needs_model` are the writer's current batch, and whether it
// plans the block as a whole; `view` gives the block's reads of the
// kernel (kernel_view.h), the ruleset generation the block is sent with
// among them. `transport` sends.
std::unique_ptr<IncrementalBlock>
make_incremental_block(const RestoreConfig &cfg, Transport *transport,
                       const BlockSource &text, std::unique_ptr<Batch> &batch,
                       const bool &needs_model,
                       std::function<KernelView &()> view);

} // namespace fastrestore::nft
