// Encoding of one IR rule as an NFT_MSG_NEWRULE payload, expression for
// expression as iptables-nft 1.8.9 builds it: interfaces, protocol,
// addresses, fragment test, matches, the counter, then the verdict or
// target.
#pragma once

#include <linux/netlink.h>

#include <string>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore::nft {

// Appends table, chain, expressions and compat attributes to `nlh` (which
// already holds its nfgenmsg). The buffer behind nlh must have room; the
// batch keeps ample headroom. Throws Error (at rule.loc) for combinations
// iptables-nft refuses, such as "-m tcp" with "-p udp".
// Where a rule goes, for rules that are not simply appended: a kernel
// handle or the transaction id of a rule added earlier in the same batch.
struct Placement {
  uint64_t handle = 0;      // NFTA_RULE_HANDLE (replace this rule)
  uint64_t position = 0;    // NFTA_RULE_POSITION
  uint32_t id = 0;          // NFTA_RULE_ID given to this rule
  uint32_t position_id = 0; // NFTA_RULE_POSITION_ID
};

// `set_ids` (bridge rules with among) are the transaction ids of the
// anonymous sets made for the rule's among matches, in order (source set
// before destination set); without them the lookups name id 0.
void encode_rule(nlmsghdr *nlh, const Rule &rule, Family family,
                 const std::string &table, const std::string &chain,
                 const Placement &where = {},
                 const std::vector<uint32_t> *set_ids = nullptr);

// The nfgenmsg family of an IR family.
uint8_t nfproto_of(Family family);

// A complete NEWRULE message (sequence number 0), for tests and tools.
std::string rule_message(const Rule &rule, Family family,
                         const std::string &table, const std::string &chain);

} // namespace fastrestore::nft
