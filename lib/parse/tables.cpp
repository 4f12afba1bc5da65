#include "fastrestore/tables.h"

#include <linux/netfilter.h>

#include <algorithm>

namespace fastrestore {
namespace {

constexpr BuiltinChain kRaw[] = {
    {"PREROUTING", "filter", NF_INET_PRE_ROUTING, -300},
    {"OUTPUT", "filter", NF_INET_LOCAL_OUT, -300},
};
constexpr BuiltinChain kMangle[] = {
    {"PREROUTING", "filter", NF_INET_PRE_ROUTING, -150},
    {"INPUT", "filter", NF_INET_LOCAL_IN, -150},
    {"FORWARD", "filter", NF_INET_FORWARD, -150},
    {"OUTPUT", "route", NF_INET_LOCAL_OUT, -150},
    {"POSTROUTING", "filter", NF_INET_POST_ROUTING, -150},
};
constexpr BuiltinChain kFilter[] = {
    {"INPUT", "filter", NF_INET_LOCAL_IN, 0},
    {"FORWARD", "filter", NF_INET_FORWARD, 0},
    {"OUTPUT", "filter", NF_INET_LOCAL_OUT, 0},
};
constexpr BuiltinChain kSecurity[] = {
    {"INPUT", "filter", NF_INET_LOCAL_IN, 150},
    {"FORWARD", "filter", NF_INET_FORWARD, 150},
    {"OUTPUT", "filter", NF_INET_LOCAL_OUT, 150},
};
constexpr BuiltinChain kNat[] = {
    {"PREROUTING", "nat", NF_INET_PRE_ROUTING, -100},
    {"INPUT", "nat", NF_INET_LOCAL_IN, 100},
    {"POSTROUTING", "nat", NF_INET_POST_ROUTING, 100},
    {"OUTPUT", "nat", NF_INET_LOCAL_OUT, -100},
};

// ebtables-nft's bridge tables (hooks NF_BR_*, equal to NF_INET_*).
constexpr BuiltinChain kBridgeFilter[] = {
    {"INPUT", "filter", NF_INET_LOCAL_IN, -200},
    {"FORWARD", "filter", NF_INET_FORWARD, -200},
    {"OUTPUT", "filter", NF_INET_LOCAL_OUT, -200},
};
constexpr BuiltinChain kBridgeNat[] = {
    {"PREROUTING", "filter", NF_INET_PRE_ROUTING, -300},
    {"OUTPUT", "filter", NF_INET_LOCAL_OUT, 100},
    {"POSTROUTING", "filter", NF_INET_POST_ROUTING, 300},
};

template <int N> constexpr int count(const BuiltinChain (&)[N]) {
  return N;
}

constexpr BuiltinTable kTables[] = {
    {"raw", kRaw, count(kRaw)},
    {"mangle", kMangle, count(kMangle)},
    {"filter", kFilter, count(kFilter)},
    {"security", kSecurity, count(kSecurity)},
    {"nat", kNat, count(kNat)},
};

constexpr BuiltinTable kBridgeTables[] = {
    {"filter", kBridgeFilter, count(kBridgeFilter)},
    {"nat", kBridgeNat, count(kBridgeNat)},
};

} // namespace

const BuiltinTable *find_builtin_table(std::string_view name, Family family) {
  if (family == Family::bridge) {
    for (const auto &t : kBridgeTables)
      if (name == t.name)
        return &t;
    return nullptr;
  }
  for (const auto &t : kTables)
    if (name == t.name)
      return &t;
  return nullptr;
}

const BuiltinChain *find_builtin_chain(const BuiltinTable &t,
                                       std::string_view chain) {
  for (int i = 0; i < t.nchains; ++i)
    if (chain == t.chains[i].name)
      return &t.chains[i];
  return nullptr;
}

std::vector<const BuiltinChain *> chains_in_hook_order(const BuiltinTable &t) {
  std::vector<const BuiltinChain *> out;
  for (int i = 0; i < t.nchains; ++i)
    out.push_back(&t.chains[i]);
  std::sort(out.begin(), out.end(),
            [](const BuiltinChain *a, const BuiltinChain *b) {
              return a->hook < b->hook;
            });
  return out;
}

} // namespace fastrestore
