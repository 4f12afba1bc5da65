// --stats: a sink in front of the block writer that times each block and
// prints its per-phase costs after its COMMIT (to stderr): a line of
// prose, or with --stats=json one JSON object a line, also for a block
// that fails (status "failed", with the error).
#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "diag/stats.h"
#include "fastrestore/diagnostic.h"
#include "parse/restore_parser.h"

namespace fastrestore {

class StatsSink : public BlockSink {
public:
  // How the blocks end when they do not fail: sent at their COMMIT,
  // held to be sent with others (--coalesce, --all-or-nothing), or only
  // tested (--test).
  enum class Ending { sent, held, tested };
  StatsSink(BlockSink &inner, std::ostream &out, bool json, Ending ending)
      : inner_(inner), out_(out), json_(json), ending_(ending) {
    phase_stats().timing = true;
  }
  ~StatsSink() override { phase_stats().timing = false; }

  void begin(const std::string &table, const Location &loc) override;
  void declare(ChainDecl &&decl) override;
  void command(Command &&cmd) override;
  void append_basic(const BasicAppend &a) override;
  void commit(const Location &loc) override;
  // The input failed with `d` while a block was open (or in its COMMIT):
  // with --stats=json, that block's object, status "failed". When no
  // block is open and held blocks were refused as they went together
  // (--all-or-nothing, --coalesce), an object for the held block the
  // error names: its table and lines, status "failed", and why (its
  // costs were in its "held" object).
  void failed(const Diagnostic &d);

private:
  // The open block's costs so far, as prose or as a JSON object.
  void report(const Location &end, const char *status, const Diagnostic *d);
  BlockSink &inner_;
  std::ostream &out_;
  bool json_;
  Ending ending_;
  bool open_ = false; // a block has begun and not been reported
  std::string table_;
  Location loc_;
  PhaseStats before_;
  double writer_s_ = 0; // time inside the writer (batch and kernel)
  std::chrono::steady_clock::time_point start_;
  struct Held {
    std::string table;
    int first_line, last_line;
  };
  std::vector<Held> held_; // the blocks reported "held", in order
};

// The process's peak resident set size, in KiB (getrusage).
long peak_rss_kb();

} // namespace fastrestore
