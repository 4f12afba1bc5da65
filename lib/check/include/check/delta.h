// Incremental restore (--incremental): the operations that turn a table
// the kernel holds into the table a block's replacement would make, while
// every chain and rule that is the same before and after stays in the
// kernel, with its handle and its counters.
//
// A replacement deletes the table and makes it again from the block, so
// the table it leaves holds exactly the desired chains. The delta keeps a
// kernel chain of the same name and kind, and in it the longest run of
// kernel rules that stand in the desired chain in the same order (rules
// compared by key, table_state.h); every other kernel rule and chain goes,
// every other desired rule and chain comes. Pure: no kernel, no libnftnl
// (lib/check).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/table_state.h"

namespace fastrestore {

enum class DeltaKind {
  chain_flush,        // a kernel chain that goes: emptied first
  rule_delete,        // a kernel rule (handle) of desired chain `chain`
  chain_delete,       // a kernel chain (`chain` indexes the kernel's)
  chain_create,       // desired chain `chain`, which the kernel lacks
  chain_update,       // desired base chain `chain`: its policy, counters
  rule_append,        // desired rule `rule` of chain `chain`, at the end
  rule_insert_before, // ... before the kernel rule `handle`
  rule_replace,       // ... in place of kernel rule `handle`: a rule that
                      // changed between the same neighbours, or a kept
                      // rule given other counters (-c)
};

struct DeltaOp {
  DeltaKind kind;
  size_t chain = 0; // desired chain, or kernel chain for chain_flush/_delete
  size_t rule = 0;  // desired rule
  uint64_t handle = 0;
};

// What the delta did to one chain: its rules kept, added and removed.
struct ChainDelta {
  size_t chain = 0; // desired chain, or kernel chain when `deleted`
  size_t kept = 0, added = 0, removed = 0;
  bool created = false, deleted = false;
};

struct Delta {
  std::vector<DeltaOp> ops; // in the order they go into the batch
  std::vector<ChainDelta> chains;
  // The kernel handle each desired rule has after the delta (the rules
  // in order, chain after chain): a kept rule's, or that of the rule it
  // replaces; 0 for a rule the delta adds (the kernel numbers it).
  std::vector<uint64_t> kept_handles;
};

// The delta from `kernel` to `desired`. A desired base chain without a
// policy gets ACCEPT. With `counters` (-c), a kept rule whose line gave
// counters (StateRule::counters) is replaced unless the kernel's are known
// to be the same, and a base chain whose line gave counters gets them. A
// desired rule marked made_again is never kept: it is added (or replaces
// a rule in place) even when the kernel holds its key. nullopt where the delta
// cannot keep the table's meaning (a base chain of another hook, priority or
// type than the table's, a user chain where a base chain is wanted or the other
// way round): the block then replaces the table.
std::optional<Delta> plan_delta(const TableState &desired,
                                const TableState &kernel, bool counters);

// Whether reading the kernel's table to send only the changes should cost
// less than sending the block whole, judged from the desired chains'
// sizes (a reload's kernel table is mostly what it loads). Reading costs
// about half a rule's sending per rule (the identities) plus, per chain,
// one dump whose time grows with the square of the chain's length (the
// kernel restarts a rule dump at the chain's first rule for every reply):
// a 20k-rule chain reads in 0.19 s, a 100k-rule chain in 6.5 s, 10,000
// chains of ten in 0.77 s, while sending 100k rules whole takes 2.0-2.2 s
// here. Sending whole also registers every base chain's hook again (about
// 15 ms each), so small tables are read.
// `chains`: each desired chain's rule count, and whether it is a base
// chain.
bool reading_pays(const std::vector<std::pair<size_t, bool>> &chains);

} // namespace fastrestore
