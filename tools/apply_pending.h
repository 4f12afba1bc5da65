// `fastrestore apply`'s pending change: what a load replaced, kept in a
// directory of its own under /run/fastrestore (FASTRESTORE_APPLY_DIR) for
// the network namespace and family it was made in, and the watcher that
// puts it back unless it is confirmed in time. The watcher runs detached
// (its own session, no terminal, standard streams on /dev/null), so that
// it acts when the shell that ran apply dies with its SSH connection.
#pragma once

#include <string>
#include <vector>

#include "program.h"

namespace fastrestore::apply {

// How one fastrestore run (the binary itself, by /proc/self/exe) is
// asked of a family: its family and backend options.
struct Target {
  Family family = Family::ipv4;
  Backend backend = Backend::nft;
  std::vector<std::string> options() const; // {"-4"} / {"--legacy", "-6"}
  std::string name() const;                 // "IPv4", "IPv6", "bridge"
};

// The words of `fastrestore save` of one table of `t` (with its counters
// when `counters`).
std::vector<std::string> save_args(const Target &t, const std::string &table,
                                   bool counters);

// Runs fastrestore with `args` (after argv[0]): standard input from
// `input` ("" for /dev/null), standard output into *out when given (else
// /dev/null), standard error to this process's when `show_errors`.
// Returns the exit status (-1 when it could not run).
int run_self(const std::vector<std::string> &args, const std::string &input,
             std::string *out, bool show_errors);

// Writes `text` into the file at `path` (made or emptied first); false
// when it could not.
bool write_text(const std::string &path, const std::string &text);

// Removes directory `dir` with the files in it.
void remove_dir(const std::string &dir);

// The tables' save text as the watcher compares it: without the dated
// comments and counters. Empty when none of them exists.
std::string tables_text(const Target &t,
                        const std::vector<std::string> &tables);

// The directory of the pending change of `t` in this network namespace.
std::string pending_dir(const Target &t);
// The pending directories of this network namespace, each family's.
std::vector<std::string> pending_dirs();

// The outcome a watcher leaves beside its directory (dir + ".result"),
// and its exit status for apply: 0 kept, 3 rolled back, 4 left because
// the tables changed since the load, 1 the rollback failed.
struct Outcome {
  int status = 1;
  std::string text;
};

// Starts the detached watcher of the change in `dir` (which holds
// rollback.rules, after.rules, tables, input, deadline) and returns at
// once in this process; false when it could not be started.
bool start_watcher(const std::string &dir, const Target &t, int seconds);

// Waits (at most `seconds`) for the watcher of `dir` to finish; true and
// its outcome when it did.
bool wait_outcome(const std::string &dir, double seconds, Outcome &out);

} // namespace fastrestore::apply
