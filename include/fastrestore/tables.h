// The built-in tables and base chains of iptables-nft (ip and ip6 families)
// and ebtables-nft (bridge family):
// names, netfilter hooks, priorities and chain types, as iptables-nft 1.8.9
// registers them. Lookups are by name; absent entries return nullptr.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

struct BuiltinChain {
  const char *name;
  const char *type; // "filter", "nat" or "route"
  uint32_t hook;    // NF_INET_*
  int32_t prio;
};

struct BuiltinTable {
  const char *name;
  const BuiltinChain *chains;
  int nchains;
};

// The tables of the ip and ip6 families, or with Family::bridge those of
// ebtables-nft (filter and nat).
const BuiltinTable *find_builtin_table(std::string_view name,
                                       Family family = Family::ipv4);
const BuiltinChain *find_builtin_chain(const BuiltinTable &t,
                                       std::string_view chain);
// The table's built-in chains in hook order, as the iptables and ebtables
// tools name them (-v listings of flushed chains).
std::vector<const BuiltinChain *> chains_in_hook_order(const BuiltinTable &t);

} // namespace fastrestore
