// Incremental restore (--incremental): the operations that turn a table
// the kernel holds into the table a block's replacement would make, while
// every chain and rule that is the same before and after stays in the
// kernel, with its handle and its counters.
//
// A replacement deletes the table and makes it again from the block
// (Plan::chains), so the table it leaves holds exactly the planned chains.
// The delta keeps a kernel chain of the same name and kind, and in it the
// longest run of kernel rules that stand in the planned chain in the same
// order (rules compared by identity: rule_identity in rule_signature.h);
// every other kernel rule and chain goes, every other planned rule and
// chain comes. Pure: no kernel, no libnftnl (lib/check).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "fastrestore/plan.h"

namespace fastrestore {

// The kernel's side of one table: the chains as read, and for each chain
// each rule's identity and counters, in the chain's order.
struct KernelRules {
  struct Entry {
    std::string identity;
    uint64_t packets = 0, bytes = 0;
  };
  const KernelTable *table = nullptr;
  std::vector<std::vector<Entry>> rules; // parallel to table->chains
};

// What the delta did to one chain: its rules kept, added and removed.
struct ChainDelta {
  std::string chain;
  size_t kept = 0, added = 0, removed = 0;
  bool created = false, deleted = false;
};

struct Delta {
  std::vector<Op> ops; // in the order they go into the batch
  std::vector<ChainDelta> chains;
};

// The delta from `kernel` to `desired` (a replacement's plan), whose rules
// have the identities `identities` (parallel to desired.chains and their
// rules). With `counters` (-c), a kept rule whose line gave counters
// (Rule::counters_set) that differ from the kernel's is replaced, and a
// base chain whose line gave counters gets them. nullopt where the delta
// cannot keep the table's meaning (a base chain of another hook, priority
// or type than the table's, a user chain where a base chain is planned or
// the other way round): the block then replaces the table.
std::optional<Delta>
plan_delta(const Plan &desired,
           const std::vector<std::vector<std::string>> &identities,
           const KernelRules &kernel, bool counters);

// Whether reading the kernel's table to send only the changes should cost
// less than sending `desired` whole, judged from the planned chains'
// sizes (a reload's kernel table is mostly what it loads). Reading costs
// about half a rule's sending per rule (the identities) plus, per chain,
// one dump whose time grows with the square of the chain's length (the
// kernel restarts a rule dump at the chain's first rule for every reply):
// a 20k-rule chain reads in 0.19 s, a 100k-rule chain in 6.5 s, 10,000
// chains of ten in 0.77 s, while sending 100k rules whole takes 2.0-2.2 s
// here. Sending whole also registers every base chain's hook again (about
// 15 ms each), so small tables are read.
// `chains`: each planned chain's rule count, and whether it is a base
// chain.
bool reading_pays(const std::vector<std::pair<size_t, bool>> &chains);
bool reading_pays(const Plan &desired);

} // namespace fastrestore
