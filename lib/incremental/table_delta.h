// The nf_tables side of the incremental restore (delta.h): a block's
// replacement batch read as the desired table, a table read from the
// kernel as the kernel's, and a delta written as a batch of copies of the
// replacement's own messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "check/delta.h"
#include "check/table_state.h"
#include "fastrestore/kernel_state.h"
#include "nft/nft_batch.h"

namespace fastrestore::nft {

// How rules are keyed (StateRule::key), the same way on both sides:
// `identity` by rule_identity (a rule the kernel dumped and a rule fastrestore
// sends compare equal), `message` by the bytes of the message fastrestore
// sends, counters left out (cheap; both sides are fastrestore's own
// messages, as with the state journal).
enum class RuleKey { identity, message };

uint64_t rule_key(std::string_view message, RuleKey how);

// A message that makes a chain or a rule, which the kernel gives the next
// handle of the table (each batch's such messages get consecutive
// handles, in order): desired rule [chain][rule], or the chain itself
// (rule SIZE_MAX).
struct Allocation {
  size_t message; // index in its batch
  size_t chain, rule;
};

// Where a desired rule comes from: its message in the batch and the
// message's index (empty and SIZE_MAX: a line taken unparsed, or a
// --noflush kernel rule), and its input line (0: none).
struct RuleSource {
  std::string_view message;
  size_t index = SIZE_MAX;
  int line = 0;
};

// The desired table: the chains and rules a replacement batch makes, with
// the message each came from.
struct DesiredTable {
  TableState state;
  std::vector<std::string_view> chain_messages; // each chain's NEWCHAIN
  std::vector<size_t> chain_index;              // ... its message index
  // Each chain's rules' sources, rule by rule as state.chains[c].rules.
  std::vector<std::vector<RuleSource>> rule_sources;
  std::vector<Allocation> allocations; // of the replacement batch
  // Whether the batch, sent again to the table it makes, makes it again
  // (a replacement; --noflush commands that only fill chains they flush
  // and delete chains they declare).
  bool repeatable = true;
  // --noflush commands that place rules by position or in another's
  // place, or delete a rule they made: the batch goes as it is (its
  // messages say where, and a replaced rule's counters start again, as
  // iptables-restore leaves them), and this table is only recorded.
  bool commands_only = false;
};

// Rules keyed by message; nullopt when `replacement` does more than make
// the table again from chains and appended rules (a rule with a set, a
// flush, an insertion). `declared` are user chains the block declares
// without the batch making them (lines taken unparsed: the kernel has
// them): they come first, without messages, and the batch may fill them
// but not make them.
std::optional<DesiredTable>
desired_table(const Batch &replacement,
              const std::vector<std::string_view> &declared = {});

// The table a --noflush batch leaves when the kernel's table is `kernel`
// (iptables-restore --noflush: the kernel's chains and rules, changed by
// the block's commands in order; batch_model.h): chains made (and base
// chains' policies and counters set), rules appended, inserted at a
// chain's head, before or after another rule, or in a kernel rule's place
// (commands_only), chains flushed, rules deleted by handle (or by
// transaction id: commands_only), chains deleted. The batch's chains and
// rules carry their messages; the kernel's carry none (chain_index and
// their rule sources' index SIZE_MAX) and keep their keys and handles, as
// does a rule in a kernel rule's place.
// `allocations` are the batch's messages that make chains and rules (a
// rule deleted again in the batch: rule SIZE_MAX). nullopt when the batch
// does anything else (-Z's rules written again, a rename, a set) or what
// the kernel would refuse (a chain made twice with -N, a non-empty chain
// deleted, a rule of a chain the table lacks).
//
// `known` are lines the block's batch lacks because they were taken
// unparsed (the journal knows them), in line order, each applied where its
// line falls among the batch's messages: a rule line appends its recorded
// rule (key only, no message; its source's line), a user chain's
// declaration (`declares`) flushes the chain, which must exist.
struct UnparsedLine {
  int line;
  std::string_view chain;
  uint64_t key = 0;
  bool declares = false;
  // The chain's index in `kernel`, when it is one of the kernel's
  // (SIZE_MAX: found by name).
  size_t kernel_chain = SIZE_MAX;
};
std::optional<DesiredTable>
noflush_table(const Batch &batch, const TableState &kernel,
              const std::vector<UnparsedLine> &known = {});

// The indexes of `batch`'s rule messages (NEWRULE), in order.
std::vector<size_t> rule_messages(const Batch &batch);

// The allocations of `made` that are rule messages (`rules`, from
// rule_messages). When the kernel makes a chain between the first and the
// last of them, their echoed handles are not consecutive, and
// JournalKeeper records nothing.
std::vector<Allocation> rule_allocations(const std::vector<size_t> &rules,
                                         const std::vector<Allocation> &made);

// What a --noflush batch does to each chain it names, read from the batch
// alone: whether it empties the chain (flushes or deletes it), and how
// many rules it puts in it.
struct NoflushChain {
  bool emptied = false;
  size_t rules = 0;
};
std::unordered_map<std::string, NoflushChain>
noflush_chains(const Batch &batch);

// The chains a --noflush batch names, in order, once each; nullopt when a
// message names none (a flush of the whole table), renames one, or is
// of another object (a set).
std::optional<std::vector<std::string>> batch_chains(const Batch &batch);

// A chain's name, kind and policy as a KernelChain (no rules, no counters).
KernelChain kernel_chain(const StateChainHead &head);

// The kernel's table as a delta's kernel side, rules keyed by identity;
// nullopt when a rule uses a set (its name changes with every load).
std::optional<TableState> kernel_side(const KernelTable &table);

// The delta's operations into `out` (a fresh batch): what goes, as
// deletions by handle and name; what comes, as copies of the
// replacement's messages (which name the input lines they came from).
// Returns the messages of `out` that make chains and rules.
std::vector<Allocation>
write_delta(Batch &out, const Delta &delta, const DesiredTable &want,
            const Batch &replacement, const TableState &kernel,
            const std::string &table, Family family, const Location &table_loc);

} // namespace fastrestore::nft
