// Reading nf_tables rules back into iptables' terms, as iptables-nft 1.8.9
// does before it prints them (nft-shared.c, nft-ipv4.c, nft-ipv6.c): the
// same expressions are understood, with the same results, the same
// quirks and the same error texts.
#pragma once

#include <libmnl/libmnl.h>

#include <functional>
#include <string>
#include <vector>

#include "fastrestore/ir.h"
#include "print/saved_rule.h"

namespace fastrestore::save {

// Whether iptables-nft can read every expression of a rule (its
// NFTA_RULE_EXPRESSIONS): the test behind "Table `x' is incompatible".
bool rule_compatible(const nlattr *expressions);

// A set of the rule's table, as a bridge among match reads it back.
struct SetInfo {
  uint32_t key_len = 0;
  uint32_t size = 0; // NFTA_SET_DESC_SIZE
  std::vector<std::vector<uint8_t>> keys;
};
// Finds a set of the rule's table by name; nullptr when unknown.
using SetResolver = std::function<const SetInfo *(const std::string &)>;

// Decodes a rule. `userdata` (NFTA_RULE_USERDATA) may be null; `sets` is
// needed for the bridge family only. libxtables must be initialised for
// the family.
SavedRule decode_rule(const nlattr *expressions, const nlattr *userdata,
                      Family family, const SetResolver *sets = nullptr);

} // namespace fastrestore::save
