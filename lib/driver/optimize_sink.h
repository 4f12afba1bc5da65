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
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "fastrestore/restore_options.h"
#include "fastrestore/restore_parser.h"
#include "fastrestore/rule_parser.h"

namespace fastrestore {

class OptimizeSink : public BlockSink {
public:
  // -v's lines go to stdout, --stats' to `err`.
  OptimizeSink(BlockSink &inner, RuleParser &parser, const RestoreConfig &cfg,
               std::ostream &err);

  void begin(const std::string &table, const Location &loc) override;
  void declare(ChainDecl &&decl) override;
  void command(Command &&cmd) override;
  void commit(const Location &loc) override;

private:
  struct Set; // a run's set, as it is made
  void rewrite(std::vector<Set> &sets);
  void make_sets(std::vector<Set> &sets, std::vector<std::string> &made);
  void after_commit(const std::vector<Set> &sets);
  void forget(const std::vector<std::string> &made);

  BlockSink &inner_;
  RuleParser &parser_;
  const RestoreConfig &cfg_;
  std::ostream &err_;
  Block block_;
  bool held_ = false; // the block's entries wait for its COMMIT
};

} // namespace fastrestore
