// Saving the kernel's tables to a binary snapshot and committing one back
// (docs/SNAPSHOT.md). Every failure is thrown as SnapshotError with a
// one-line reason; a failed commit leaves the kernel as it was.
#pragma once

#include <linux/netlink.h>

#include <iosfwd>
#include <string>

#include "fastrestore/ir.h"
#include "format.h"

namespace fastrestore::snapshot {

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

// Backend parts, behind save() and commit().
void save_nft(class FileWriter &file, Header &h, const Options &opts,
              std::vector<TableEntry> &dir);
void commit_nft(const View &view, const Options &opts);
// The messages of an nf_tables snapshot, each checked to be a whole NEW*
// message of the snapshot's family for one of its tables; throws
// SnapshotError naming the first that is not.
std::vector<const nlmsghdr *> nft_messages(const View &view);
void save_legacy(class FileWriter &file, Header &h, const Options &opts,
                 std::vector<TableEntry> &dir);
void commit_legacy(const View &view, const Options &opts);

} // namespace fastrestore::snapshot
