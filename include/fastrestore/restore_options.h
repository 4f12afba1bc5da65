// The options of one restore run, as the command line gives them. A header
// of its own, so that the backends' block writers can read them without
// the driver (fastrestore/restore.h) above them.
#pragma once

#include <cstddef>
#include <string>

#include "fastrestore/backend.h"
#include "fastrestore/diagnostic.h"
#include "fastrestore/ir.h"

namespace fastrestore {

struct RestoreConfig {
  Family family = Family::ipv4;
  bool counters = false;          // -c
  bool noflush = false;           // -n
  bool test = false;              // -t: parse, check and build, send nothing
  int verbose = 0;                // -v
  Backend backend = Backend::nft; // --legacy: x_tables through libiptc
  int wait = 0; // -w: seconds for the xtables lock (legacy); -1: forever
  bool no_lock = false;      // internal: probes in a private namespace
  std::string table;         // -T
  std::string input_name;    // file name for messages; empty for stdin
  bool command_line = false; // one command of the ebtables or iptables
                             // command line: messages name no line
  bool stats = false;        // --stats: per-phase costs after each COMMIT
  bool stats_json = false;   // --stats=json: as one JSON object a COMMIT
  bool progress = false;     // a progress line on stderr (a terminal) for loads
                             // that take over a second
  bool log = false;          // --log: a summary line to syslog when a load ends
  int coalesce_ms = -1;      // --coalesce MS: group --noflush blocks (-1: off)
  bool all_or_nothing = false; // every block in one transaction at the end
  bool incremental = false;    // --incremental: send a table's changes only
  // With incremental: a block goes through the journal only where its
  // table's record is current, and nothing is read to make one (the
  // iptables command line: a command finds its rules in the record).
  bool journal_when_current = false;
  bool optimize = false;   // --optimize: runs of rules as set lookups
  size_t optimize_min = 8; // --optimize-min: the shortest run merged
  // Run under an upstream tool's name: errors are printed in its words
  // (format_upstream); empty: fastrestore's own.
  UpstreamTool upstream;
};

} // namespace fastrestore
