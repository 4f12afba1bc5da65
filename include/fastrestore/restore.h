// The restore driver: reads iptables-save text from a file descriptor line
// by line, and commits every block when its COMMIT line arrives (so a
// long-running process fed from a pipe applies each block at once).
//
// Stages per block: words -> IR (RestoreParser with XtParser) -> plan
// (checks) -> batch -> one send. A failing block changes nothing in the
// kernel; blocks committed before it stay, as with iptables-nft-restore.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "fastrestore/ir.h"
#include "fastrestore/nft_transport.h"

namespace fastrestore {

struct RestoreConfig {
  Family family = Family::ipv4;
  bool counters = false; // -c
  bool noflush = false;  // -n
  bool test = false;     // -t: parse, check and build, send nothing
  int verbose = 0;       // -v
  bool legacy = false;   // --legacy: x_tables through libiptc
  int wait = 0; // -w: seconds for the xtables lock (legacy); -1: forever
  bool no_lock = false;      // internal: probes in a private namespace
  std::string table;         // -T
  std::string input_name;    // file name for messages; empty for stdin
  bool command_line = false; // one command of the ebtables command line:
                             // messages name no line
  bool stats = false;        // --stats: per-phase costs after each COMMIT
  int coalesce_ms = -1;      // --coalesce MS: group --noflush blocks (-1: off)
  bool all_or_nothing = false; // every block in one transaction at the end
};

// Returns the process exit status (0, or the failing class's status) after
// printing diagnostics to `err`; -v output goes to stdout, where the
// libxtables plugins print. With config.test the transport is only read
// from (and may be null when no --noflush command needs the kernel).
int run_restore(int fd, const RestoreConfig &config, nft::Transport *transport,
                std::ostream &err);

} // namespace fastrestore
