// --stats: a sink in front of the block writer that times each block and
// prints its per-phase costs after its COMMIT (to stderr).
#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>

#include "diag/stats.h"
#include "parse/restore_parser.h"

namespace fastrestore {

class StatsSink : public BlockSink {
public:
  StatsSink(BlockSink &inner, std::ostream &out) : inner_(inner), out_(out) {
    phase_stats().timing = true;
  }
  ~StatsSink() override { phase_stats().timing = false; }

  void begin(const std::string &table, const Location &loc) override;
  void declare(ChainDecl &&decl) override;
  void command(Command &&cmd) override;
  void append_basic(const BasicAppend &a) override;
  void commit(const Location &loc) override;

private:
  BlockSink &inner_;
  std::ostream &out_;
  std::string table_;
  Location loc_;
  PhaseStats before_;
  double writer_s_ = 0; // time inside the writer (batch and kernel)
  std::chrono::steady_clock::time_point start_;
};

// The process's peak resident set size, in KiB (getrusage).
long peak_rss_kb();

} // namespace fastrestore
