// --optimize: a sink in front of the block writer that holds a table
// replacement's entries until its COMMIT, finds the runs of each chain's
// appended rules that one set lookup can stand for (address_runs.h), puts
// each run's addresses into an ipset of fastrestore's own (ipsets.h), and
// hands the writer the block with each run replaced by one rule that
// matches the set (`-m set --match-set NAME src|dst`, parsed by
// libxt_set, which finds the set by name: it must exist first).
//
// The sets' order around the commit: a set of a new name is made and
// filled before it, and destroyed again when the commit fails; a set whose
// name exists (the same rule in the same place, loaded before) is filled
// under its fresh twin's name and swapped in after the commit; after the
// commit every set of fastrestore's that no rule uses any more is
// destroyed (a set in use refuses). One process at a time does this
// (a lock file).
//
// With --incremental (without -c), a set whose name exists and which
// holds the run's members already is left as it is (counters and all):
// known from the state journal's record of the table (the members' digest,
// while the set's size is the one recorded) or else by reading the set
// back; a set whose members changed is edited in place after the commit
// (the members that go deleted, the new ones added), or where it cannot
// take them refilled as above, each member that stays keeping its
// counters. The writer records the sets with the table.
//
// The block's text read again by the writer (a retry after another
// program's commit) goes through replay(), which rewrites it with the same
// sets, so that every reading of the block is the optimized one.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "fastrestore/restore_options.h"
#include "parse/restore_parser.h"
#include "parse/restore_writer.h"
#include "parse/rule_parser.h"

namespace fastrestore {

class OptimizeSink : public BlockSink {
public:
  // Hands blocks on to `inner` (the writer's BlockCommitter); the sets
  // the journal records go to and from `writer`. -v's lines go to stdout,
  // --stats' to `err`.
  OptimizeSink(BlockSink &inner, RestoreWriter &writer, RuleParser &parser,
               const RestoreConfig &cfg, std::ostream &err);
  ~OptimizeSink() override;

  // A sink that passes a reading again of the block being committed on to
  // `target`, each run as its set's rule (as first sent).
  std::unique_ptr<BlockSink> replay(BlockSink &target) const;

  void begin(const std::string &table, const Location &loc) override;
  void declare(ChainDecl &&decl) override;
  void command(Command &&cmd) override;
  void commit(const Location &loc) override;

  struct Set; // a run's set, as it is made

private:
  void rewrite(std::vector<Set> &sets);
  void make_sets(std::vector<Set> &sets, std::vector<std::string> &made);
  void after_commit(const std::vector<Set> &sets);
  void forget(const std::vector<std::string> &made);

  BlockSink &inner_;
  RestoreWriter &writer_;
  RuleParser &parser_;
  const RestoreConfig &cfg_;
  std::ostream &err_;
  Block block_;
  bool held_ = false; // the block's entries wait for its COMMIT
  // While the block is committed: its runs' sets, and each entry's run
  // (-1: none), for replay().
  const std::vector<Set> *committing_ = nullptr;
  std::vector<int> run_of_;
};

} // namespace fastrestore
