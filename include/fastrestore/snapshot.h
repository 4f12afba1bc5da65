// Binary snapshots (docs/SNAPSHOT.md): saving the kernel's tables of one
// family to a file and committing a file back in one transaction (one
// table replacement per table on legacy), and ebtables' atomic files,
// which are snapshots of one bridge table. Every failure is thrown as
// SnapshotError with a one-line reason; a failed commit leaves the kernel
// as it was. Implemented in lib/snapshot.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastrestore/backend.h"
#include "fastrestore/ir.h"

namespace fastrestore::snapshot {

struct SnapshotError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  uint8_t family = 2; // NFPROTO_IPV4
  bool family_given = false;
  Backend backend = Backend::nft;
  bool backend_given = false;
  bool counters = false; // save: include counters
  std::string table;     // save: only this table
  bool test = false;     // commit: check and describe, send nothing
  int wait = 0;          // legacy: xtables lock wait (-w)
};

// What a save wrote, for the summary line.
struct SaveStats {
  uint32_t tables = 0, chains = 0, sets = 0, elements = 0, rules = 0;
  uint64_t bytes = 0;
};

SaveStats save(const std::string &path, const Options &opts);
// Prints, with opts.test, what would be replaced to `out`.
void commit(const std::string &path, const Options &opts, std::ostream &out);

// ebtables' atomic files (one bridge table): the default empty table, and
// rules appended to a chain of the file without reading what it holds.
void atomic_init(const std::string &path, const std::string &table);
void atomic_append(const std::string &path, const std::string &table,
                   const std::string &chain, const std::vector<Rule> &rules);
// -P of a built-in chain on an atomic file.
void atomic_policy(const std::string &path, const std::string &table,
                   const std::string &chain, const std::string &policy);

// Whether the snapshot at `path` is of `family` (an NFPROTO_* value) and
// holds table `table`; throws SnapshotError for a file that is no whole
// snapshot (its checksums are checked).
bool holds_table(const std::string &path, uint8_t family,
                 const std::string &table);

} // namespace fastrestore::snapshot
