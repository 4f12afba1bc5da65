// Encoding of one IR rule as an NFT_MSG_NEWRULE payload, expression for
// expression as iptables-nft 1.8.9 builds it: interfaces, protocol,
// addresses, fragment test, matches, the counter, then the verdict or
// target.
#pragma once

#include <linux/netlink.h>

#include <string>

#include "fastrestore/ir.h"

namespace fastrestore::nft {

// Appends table, chain, expressions and compat attributes to `nlh` (which
// already holds its nfgenmsg). The buffer behind nlh must have room; the
// batch keeps ample headroom. Throws Error (at rule.loc) for combinations
// iptables-nft refuses, such as "-m tcp" with "-p udp".
void encode_rule(nlmsghdr *nlh, const Rule &rule, Family family,
                 const std::string &table, const std::string &chain);

// A complete NEWRULE message (sequence number 0), for tests and tools.
std::string rule_message(const Rule &rule, Family family,
                         const std::string &table, const std::string &chain);

} // namespace fastrestore::nft
