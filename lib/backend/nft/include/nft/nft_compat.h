// What a dumped rule lacks: the protocol its compat matches and targets
// were checked against (NFTA_RULE_COMPAT), which the kernel keeps only
// while it checks them. Putting a dumped rule back (a snapshot, a rule
// re-added with zeroed counters) needs it again.
#pragma once

#include <linux/netlink.h>

#include <cstdint>

namespace fastrestore::nft {

struct Compat {
  bool found = false;
  uint32_t proto = 0;
  bool inv = false;
};

// From a rule's NFTA_RULE_EXPRESSIONS nest: the first protocol test.
Compat rule_compat(const nlattr *expressions, uint8_t family);
// The same from a whole NEWRULE message.
Compat rule_compat(const nlmsghdr *rule);

} // namespace fastrestore::nft
