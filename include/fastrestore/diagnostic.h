// Locations and diagnostics.
//
// A Location names a line of the input and, where known, a column range on
// it (1-based, inclusive). A Diagnostic is one error with its location, the
// source line it refers to, and the exit status that error class maps to, so
// the driver can print it and exit exactly as iptables-nft-restore would:
//   1 = format error (missing COMMIT, bad policy, unknown chain in -A)
//   2 = parameter problem (unknown option, bad address, unknown match)
//   4 = the kernel rejected the transaction
// Recoverable errors travel as values (Diagnostic); Error is the exception
// used only to unwind out of the libxtables plugins, which report failures
// through a noreturn callback.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace fastrestore {

struct Location {
  int line = 0;      // 0: no line (command line or end of input)
  int col_begin = 0; // 0: unknown column
  int col_end = 0;
};

enum class ExitCode : int {
  ok = 0,
  format = 1,
  parameter = 2,
  kernel = 4,
};

struct Diagnostic {
  Location loc;
  std::string message;
  ExitCode code = ExitCode::parameter;
  std::string source; // the offending input line, for the caret display
};

// Thrown for a failed input line or kernel transaction; carries the
// diagnostic to print.
class Error : public std::runtime_error {
public:
  explicit Error(Diagnostic d)
      : std::runtime_error(d.message), diag_(std::move(d)) {}
  const Diagnostic &diag() const { return diag_; }
  Diagnostic &diag() { return diag_; }
  // Further errors of the same failure (the kernel reports every message
  // of a batch it refused), printed after the first.
  std::vector<Diagnostic> &more() { return more_; }
  const std::vector<Diagnostic> &more() const { return more_; }

private:
  Diagnostic diag_;
  std::vector<Diagnostic> more_;
};

// Renders "fastrestore: line N, column C: message" followed by the source
// line and a caret line, as one string ending in a newline. `input_name` is
// prepended when not empty (e.g. "rules.v4: line 3, ...").
std::string format_diagnostic(const Diagnostic &d,
                              const std::string &input_name = {});

} // namespace fastrestore
