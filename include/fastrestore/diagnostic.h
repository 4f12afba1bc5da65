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

#include <cstdint>
#include <optional>
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

// How the replaced tool prints an error, for printing it in the tool's
// words when fastrestore runs under the tool's name (format_upstream).
enum class Frame : uint8_t {
  by_code,     // by the status: 2 tool (with the hint), 1 line_failed,
               // 4 kernel
  tool,        // "PROG vVERSION: TEXT" (xtables_error), the hint after a 2
  bare,        // "TEXT", the hint after a 2 (the tool's own fprintf)
  tool_line,   // "PROG: TEXT" ("COMMIT expected at line N")
  tool_named,  // "PROG vVERSION: PROG: TEXT" (the restore file's own
               // structure: "line N table name invalid")
  line_failed, // "PROG: line N failed: TEXT" (a command iptables refused)
  kernel,      // "PROG vVERSION: " then "\nline N: TEXT" for each error
};

struct Diagnostic {
  Location loc;
  std::string message;
  ExitCode code = ExitCode::parameter;
  std::string source; // the offending input line, for the caret display
  Frame frame = Frame::by_code;
  // The replaced tool's words where they differ from `message` (a kernel
  // refusal: "RULE_APPEND failed (Invalid argument): rule in chain X"; an
  // empty text where it says nothing more than its frame).
  std::optional<std::string> upstream;
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

// The source line and the caret line under the diagnostic's columns (as
// format_diagnostic ends), or nothing without a line or its text.
std::string caret_display(const Diagnostic &d);

// The tool fastrestore runs as: its name as it prints it
// ("iptables-nft-restore", "iptables-restore" for the legacy tool) and its
// version ("1.8.9 (nf_tables)").
struct UpstreamTool {
  std::string name;
  std::string version;
};

// An error (`first`, with the further errors of the same failure) as the
// tool prints it (Frame), "Error occurred at line: N" naming
// fastrestore's line; then each error's caret display.
std::string format_upstream(const Diagnostic &first,
                            const std::vector<Diagnostic> &more,
                            const UpstreamTool &tool);

// The same for one command of the tool's command line (iptables): no
// line, no caret display; "PROG: TEXT" for a command it refused (status
// 1), "PROG vVERSION: TEXT" and the hint for a parameter problem (2),
// "PROG vVERSION:  TEXT" for the first object the kernel refused (4).
std::string format_upstream_command(const Diagnostic &first,
                                    const UpstreamTool &tool);

} // namespace fastrestore
