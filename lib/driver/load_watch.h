// What a load tells besides its errors, from the lines it reads: a
// progress line on standard error when it is a terminal and the load
// takes over a second (lines read, rules a second, redrawn in place and
// cleared at the end), and with --log one summary line to syslog when the
// load ends (who, which input, which tables, the result).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/restore_options.h"

namespace fastrestore {

class LoadWatch {
public:
  LoadWatch(const RestoreConfig &cfg, std::ostream &err);
  ~LoadWatch() { clear(); }
  LoadWatch(const LoadWatch &) = delete;
  LoadWatch &operator=(const LoadWatch &) = delete;

  // Whether it watches at all (a progress line, or --log): else the
  // driver need not tell it the lines.
  bool on() const { return progress_ || cfg_.log; }
  // Each line read, in order.
  void line(std::string_view l) {
    ++lines_;
    if (!l.empty() && (l.front() == '-' || l.front() == '['))
      ++rules_;
    else if (!l.empty() && l.front() == '*')
      table(l.substr(1));
    if (progress_ && (lines_ & 4095) == 0)
      tick();
  }
  // The load ended with `status` (0: done), and `error` when it failed:
  // the progress line goes, and --log sends its line.
  void done(int status, const std::string &error);
  // Takes the progress line away (before a message is printed).
  void clear();

private:
  void table(std::string_view name);
  void tick();

  const RestoreConfig &cfg_;
  std::ostream &err_;
  bool progress_;
  bool shown_ = false;
  uint64_t lines_ = 0, rules_ = 0;
  std::vector<std::string> tables_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace fastrestore
