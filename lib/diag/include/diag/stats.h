// Per-phase costs of a restore, for --stats: time spent in libxtables
// parsing, in building the batch, and in the kernel (sending the batch and
// waiting for its answer), with the bytes and rules sent. Process-global:
// only the main thread touches it (the reading thread of
// lib/driver/prescan.cpp never times anything).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fastrestore {

struct PhaseStats {
  double extensions_s = 0; // XtParser / EbParser (libxtables plugins)
  double batch_s = 0;      // planning and encoding into the batch
  double kernel_s = 0;     // the send and the wait for the kernel's answer
  uint64_t bytes = 0;      // batch bytes sent
  uint64_t rules = 0;      // rules in the block
  bool timing = false;     // --stats: PhaseTimer reads the clock
  // --incremental: how the nf_tables writer sent the last block ("changes",
  // "nothing": the kernel held it already, "replacement"; null: the option
  // did not apply), and the rules it kept, added and removed.
  const char *incremental = nullptr;
  uint64_t kept = 0, added = 0, removed = 0;
  uint64_t unparsed = 0; // rule lines taken unchanged without parsing
  // Where the kernel's side came from ("the journal", "reading the
  // table"; null: nowhere, a replacement), and why the journal was not
  // used or not kept.
  const char *state_source = nullptr;
  std::string journal_note;
};

PhaseStats &phase_stats();

// Adds the time from construction to destruction to `into`, while
// phase_stats().timing is on (reading the clock twice a rule is a cost of
// its own).
class PhaseTimer {
public:
  explicit PhaseTimer(double &into)
      : into_(phase_stats().timing ? &into : nullptr) {
    if (into_ != nullptr)
      start_ = std::chrono::steady_clock::now();
  }
  ~PhaseTimer() {
    if (into_ != nullptr)
      *into_ += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              start_)
                    .count();
  }
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;

private:
  double *into_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace fastrestore
