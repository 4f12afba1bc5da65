// Whole-block checks and the plan of what a block does to the kernel.
//
// Without --noflush a block replaces its table: the planner applies every
// declaration and command to a model of the new table (chains in creation
// order, rules in order) and the backend writes that final state after
// deleting the old table, in one transaction. Commands are checked against
// the model as iptables-nft checks them (unknown chain, chain exists, rule
// not found, index too big, jump to a missing chain), each error naming its
// line.
//
// With --noflush the planner emits one operation per declaration and
// command against the kernel's current table. Commands that need the
// kernel's current rules (-D, -R, -C, -I N>1, -E, -Z, and -F/-X without a
// chain) are refused with --noflush for now.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fastrestore/ir.h"
#include "fastrestore/tables.h"

namespace fastrestore {

struct PlannedChain {
  Location loc;
  std::string name;
  const BuiltinChain *builtin = nullptr;
  std::optional<uint32_t> policy; // NF_ACCEPT / NF_DROP; none: kernel default
  bool counters = false;          // set packets/bytes on the chain
  uint64_t packets = 0, bytes = 0;
  std::vector<Rule> rules;
};

enum class OpKind {
  chain_update,  // NEWCHAIN (create or update a base chain's policy)
  chain_create,  // NEWCHAIN for a user chain of a table being replaced
  chain_restore, // ":user -" with --noflush: create if missing, flush
  chain_new,     // -N: create, fail if it exists
  chain_delete,  // -X chain
  chain_flush,   // -F chain
  rule_append,   // -A
  rule_insert,   // -I chain 1
};

struct Op {
  OpKind kind;
  Location loc;
  PlannedChain chain; // name (and base chain data for chain_update)
  Rule rule;          // for rule ops
};

struct Plan {
  std::string table;
  Location loc;                     // the *table line
  bool replace = false;             // true: delete the table, write chains
  std::vector<PlannedChain> chains; // replace mode: the new table
  std::vector<Op> ops;              // noflush mode
};

// Throws Error for the first command the model refuses.
Plan plan_block(const Block &block, bool noflush, bool counters);

// Plans a block entry by entry, so each can be encoded as soon as it is
// read. With --noflush every entry becomes operations. When a table is
// replaced, declarations, -A, -I 1, -N, -P and -F CHAIN are planned here;
// any other command needs the whole-block model (plan_block), which add()
// reports by returning false.
class OpPlanner {
public:
  OpPlanner(const std::string &table, bool noflush, bool counters);
  // Appends the operations for `entry` to `out`; throws Error when the
  // entry is refused; returns false when the block needs plan_block.
  bool add(const Block::Entry &entry, std::vector<Op> &out);
  // Checks made when the block is complete (jumps to missing chains).
  void finish() const;

private:
  void ensure_base(const Command &cmd, std::vector<Op> &out);
  bool plan_replace(const Command &cmd, std::vector<Op> &out);
  void plan_noflush(const Command &cmd, std::vector<Op> &out);
  void add_rules(const Command &cmd, std::vector<Op> &out);

  const BuiltinTable *table_;
  bool noflush_, counters_;
  std::set<std::string> known_;                         // chains that exist now
  std::vector<std::pair<std::string, Location>> jumps_; // to user chains
};

} // namespace fastrestore
