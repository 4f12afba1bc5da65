// A backend's restore writer, the one interface through which the driver
// hands a backend its blocks: the nf_tables writer (one transaction per
// COMMIT, or groups of blocks with --coalesce and --all-or-nothing,
// nft_writer/nft_writer.h) and the legacy writer (one table replacement
// per COMMIT, legacy/legacy.h) both implement it.
#pragma once

#include <stdexcept>
#include <string_view>
#include <vector>

#include "fastrestore/restore_options.h"
#include "parse/block_source.h"
#include "parse/restore_parser.h"

namespace fastrestore {

struct StateSet; // check/table_state.h

// What a writer's COMMIT came to.
enum class BlockOutcome {
  done, // sent (or held, to be sent with other blocks)
  // Nothing sent: the block's lines are to be read again into the writer
  // and its COMMIT asked again (the ruleset changed since the block read
  // it, so it is planned again from what the kernel holds now; or
  // --incremental needs every line of it parsed).
  read_again,
};

// A BlockSink fed each block as it is read. A writer that holds finished
// blocks to send later says when they must go. The driver runs a block's
// COMMIT (end_block) until it is done, reading the block again between
// (BlockCommitter, lib/driver): nothing calls back into the writer from
// inside its COMMIT.
class RestoreWriter : public BlockSink {
public:
  // The block's COMMIT. Throws Error for a block refused.
  virtual BlockOutcome end_block(const Location &loc) = 0;
  // For a writer fed directly: a COMMIT that must be done at once.
  void commit(const Location &loc) final;

  // Whether the writer holds finished blocks (--coalesce,
  // --all-or-nothing): the driver then reads the input on its own thread,
  // line by line as it arrives, so that it sees the pauses.
  virtual bool holds_blocks() const { return false; }
  // How many milliseconds the driver may wait for the next line before it
  // calls send_held(); -1 when no held block waits for a pause.
  virtual int pause_ms() const { return -1; }
  // Sends the blocks held so far: at a pause, and at the end of the input
  // (with --all-or-nothing, every block in one transaction). Throws Error
  // for the first block the kernel refuses.
  virtual void send_held() {}
  // The input failed after the blocks held so far: they go in as they
  // would have one by one (--coalesce); with --all-or-nothing none does.
  // Throws Error when one of them is refused.
  virtual void input_failed() {}

  // --incremental: the filter of the lines the state journal knows, which
  // the driver consults before the parser (null: none).
  virtual LineFilter *line_filter() { return nullptr; }

  // --incremental with --optimize (optimize_sink.h), for the block begun
  // last: the sets the state journal's current record of its table says
  // its rules match (nullptr: no such record), and the sets its rules
  // will match, recorded with the table after its COMMIT.
  virtual const std::vector<StateSet> *recorded_sets() const { return nullptr; }
  virtual void record_sets(std::vector<StateSet> && /*sets*/) {}
};

inline void RestoreWriter::commit(const Location &loc) {
  if (end_block(loc) != BlockOutcome::done)
    throw std::logic_error("a block to read again, fed directly: its "
                           "COMMIT goes through a BlockCommitter");
}

} // namespace fastrestore
