// The one home of a bridge user chain's policy. nf_tables has no policy
// for a chain without a hook, so ebtables-nft keeps a user chain's ACCEPT
// or DROP policy as the chain's last rule, [counter, immediate verdict],
// marked in its user data (NFTA_RULE_USERDATA) by one TLV: type 1
// (UDATA_TYPE_EBTABLES_POLICY), length 4, the value 1. RETURN, the
// default, has no rule.
//
// - The wire form (lib/backend/nft/bridge_policy_rule.cpp): the marker the
//   rule encoder writes, and the one decoder that reads it back, as
//   ebtables-nft does (nft_rule_is_policy_rule and
//   nft_bridge_chain_postprocess in iptables 1.8.9), for the table reader
//   (KernelChain::eb_policy, which the --noflush planner takes) and the
//   text save. lib/check uses none of it: it sits below the backend.
// - A block's policies (EbPolicies, lib/check/bridge_policy.cpp): what the
//   chain lines, -N and -P of a bridge block say, kept apart from the
//   planner's entries and written as policy rules at COMMIT.
// - The --noflush operations on a kernel chain's policy rule (rules go in
//   before it, -F puts it back, -X deletes it first) are OpPlanner's
//   members defined in lib/check/bridge_policy.cpp too.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

namespace nft {

// The NFTA_RULE_USERDATA payload of a policy rule.
inline constexpr uint8_t kEbPolicyUserData[] = {1, 4, 1, 0, 0, 0};

// The verdict (NF_ACCEPT or NF_DROP) of NEWRULE message `m` when it is a
// policy rule: its user data carries the marker (every TLV well formed, a
// comment NUL-terminated), its first expression is a counter and its
// second an immediate ACCEPT or DROP verdict. nullopt for any other rule.
std::optional<uint32_t> eb_policy_verdict(const nlmsghdr *m);

} // namespace nft

// The user chain policies one bridge block sets, as ebtables-nft-restore
// collects them: from the chain lines (":mine DROP"), -N (ACCEPT) and -P
// of a user chain; -X and -E carry them along. Not for other families.
class EbPolicies {
public:
  explicit EbPolicies(bool noflush) : noflush_(noflush) {}

  // A new block of `table` (a bridge table).
  void begin(const std::string &table);

  // Takes what entry `e` says of a user chain's policy: a chain line's
  // policy (which it sets to "-", so that the planner only creates the
  // chain), -N's ACCEPT, -P of a user chain, -X and -E. Returns true when
  // `e` is a -P of a user chain, which leaves the planner nothing to do.
  // Throws Error for a policy other than ACCEPT, DROP or RETURN, and, with
  // --noflush, for a policy of a chain the block did not make.
  bool take(Block::Entry &e);

  // The policy rules for the end of the block, by chain name: a rule with
  // the verdict, marked as the policy rule, at the policy's line.
  std::vector<std::pair<std::string, Rule>> rules() const;

  // The block read again for the whole-block model, without what take()
  // already took from its first reading (-P of user chains, the policies
  // of user chain lines).
  static void strip(Block &block, const std::string &table);

private:
  void set(const std::string &chain, const std::string &policy,
           const Location &loc);

  bool noflush_;
  std::string table_;
  std::map<std::string, std::pair<std::string, Location>> policies_;
  std::set<std::string> new_chains_;
};

} // namespace fastrestore
