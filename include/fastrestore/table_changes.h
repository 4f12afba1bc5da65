// What a load changes in each table, read from the table's saves before
// and after it (load_preview.h): the chains added and removed, the
// policies changed, and the rules added and removed, each with its chain
// and its position there (1 is the chain's first rule; an added rule's
// position is in the chain after the load, a removed rule's before it).
// For `fastrestore diff --json`.
#pragma once

#include <string>
#include <vector>

#include "fastrestore/load_preview.h"

namespace fastrestore {

struct RuleChange {
  std::string chain;
  size_t position = 0;
  std::string rule; // the save's line: "-A CHAIN ..." (counters first with -c)
};

struct PolicyChange {
  std::string chain, before, after;
};

struct TableChanges {
  std::string table;
  std::vector<std::string> chains_added, chains_removed;
  std::vector<PolicyChange> policies;
  std::vector<RuleChange> rules_added, rules_removed;
  bool empty() const {
    return chains_added.empty() && chains_removed.empty() && policies.empty() &&
           rules_added.empty() && rules_removed.empty();
  }
};

TableChanges table_changes(const TableTexts &t);

// One JSON object on one line: {"changed":BOOL,"tables":[...]}, each
// table that changes with its lists (tables that stay are left out).
std::string changes_json(const std::vector<TableChanges> &tables);

// The object when the input would not load:
// {"changed":false,"exit_status":N,"error":"..."}.
std::string failure_json(int exit_status, const std::string &error);

} // namespace fastrestore
