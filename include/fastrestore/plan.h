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
// command against the kernel's current table. Operations that need the
// kernel's rules (-D, -R, -C, -I N>1, -E, and -F/-Z/-X without a chain) read
// them through the ChainSource the caller provides.
#pragma once

#include <cstdint>
#include <optional>
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

} // namespace fastrestore
