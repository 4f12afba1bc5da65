// Reading back the messages of a batch fastrestore wrote (nft_batch.h),
// for the incremental restore's model of what a batch does to a table
// (batch_model.h) and its delta (table_delta.h): a message's type and
// attributes, a rule's key and where a NEWRULE puts it.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <string_view>

#include "check/table_state.h"
#include "fastrestore/kernel_state.h"
#include "nft/nft_batch.h"

namespace fastrestore::nft {

inline const nlmsghdr *header(std::string_view m) {
  return reinterpret_cast<const nlmsghdr *>(m.data());
}

// The message's type (NFT_MSG_*).
uint16_t nft_type(std::string_view m);

bool has_attr(std::string_view m, uint16_t type);

// A rule's key by its message's bytes: its expressions (counters left
// out) and user data; not its table, chain, handle, position or id.
uint64_t message_key(const nlmsghdr *m);

// A kernel chain's name, kind and policy as a chain of a TableState (no
// rules, no counters).
StateChain state_chain(const KernelChain &kc);

// A rule of a batch as the desired side has it: keyed by message, with
// its counters as given (-c).
StateRule batch_rule(const Batch &batch, std::string_view m, size_t index);

// Where a NEWRULE puts its rule: at its chain's end, at its head (no
// NLM_F_APPEND), before or after a rule (NFTA_RULE_POSITION: a kernel
// rule's handle; NFTA_RULE_POSITION_ID: a rule of the same batch, by
// its transaction id), in the place of a kernel rule (NLM_F_REPLACE, by
// handle), or otherwise. NLM_F_ECHO (JournalKeeper::ask_echo) only asks
// for its handle.
enum class Placing { append, head, before, after, replace, other };
struct RulePlace {
  Placing at = Placing::other;
  std::string_view chain;
  uint64_t handle = 0;      // before, after, replace: the kernel rule
  uint32_t position_id = 0; // before, after: the batch's rule instead
  uint32_t id = 0;          // the rule's own transaction id (0: none)
};
RulePlace rule_place(std::string_view m);

// A DELRULE's chain, handle and transaction id (neither: the chain
// flushed).
void rule_target(std::string_view m, std::string_view &chain, uint64_t &handle,
                 uint32_t &id);

} // namespace fastrestore::nft
