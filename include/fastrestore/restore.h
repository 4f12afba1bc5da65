// The restore driver: reads iptables-save text from a file descriptor line
// by line, and commits every block when its COMMIT line arrives (so a
// long-running process fed from a pipe applies each block at once).
//
// Stages per block: words -> IR (RestoreParser with XtParser) -> plan
// (checks) -> batch -> one send. A failing block changes nothing in the
// kernel; blocks committed before it stay, as with iptables-nft-restore.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "fastrestore/diagnostic.h"
#include "fastrestore/restore_options.h"
#include "nft/nft_batch.h"
#include "nft/nft_transport.h"

namespace fastrestore {

// Returns the process exit status (0, or the failing class's status) after
// printing diagnostics to `err`; -v output goes to stdout, where the
// libxtables plugins print. With config.test the transport is only read
// from (and may be null when no --noflush command needs the kernel).
// With config.test on nf_tables, `observer` (when given) takes each
// block's batch.
int run_restore(int fd, const RestoreConfig &config, nft::Transport *transport,
                std::ostream &err,
                const nft::BatchObserver *observer = nullptr);

// Prints `e` as a restore prints its errors: each diagnostic with the input
// line it names (`line(n)`: the text of line n, "" when unknown), or with
// the command's name alone for one ebtables command (cfg.command_line).
void print_restore_error(const Error &e,
                         const std::function<std::string(int)> &line,
                         const RestoreConfig &cfg, std::ostream &err);

// run_restore on input held in memory (through a memory file); -1, with
// errno set, when the memory file cannot be made.
int run_restore_text(std::string_view text, const RestoreConfig &config,
                     nft::Transport *transport, std::ostream &err,
                     const nft::BatchObserver *observer = nullptr);

} // namespace fastrestore
