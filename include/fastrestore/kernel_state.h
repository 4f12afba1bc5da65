// A table as the kernel holds it: its chains in kernel order, each with
// what the readers need of it. Read by the nf_tables backend (one parser
// of the kernel's chain messages, parse_chain in nft_dumper.h): the
// --noflush planner and the restore writer take a table with its rules
// (Transport::read_table: handles and messages), the text save and
// ebtables -L take the chains only and stream the rules apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastrestore {

struct KernelChain {
  std::string name;
  uint64_t handle = 0;
  bool base = false; // has a hook
  uint32_t hook = 0;
  int32_t prio = 0;
  std::string type; // a base chain's type ("filter", "nat", ...)
  bool has_policy = false;
  uint32_t policy = 0;
  uint64_t packets = 0, bytes = 0; // a base chain's counters
  // The kernel's use count: the chain's rules plus the jumps and gotos to
  // it (iptables -L prints the difference as its references).
  uint32_t use = 0;
  // The chain's rules in order (handles), and each rule as the kernel
  // dumped it (an NFT_MSG_NEWRULE message), when the table was read with
  // its rules: for -D / -C by rule specification and for -Z.
  std::vector<uint64_t> rules;
  std::vector<std::string> messages;
  // In a bridge table read with its rules: the verdict (NF_ACCEPT or
  // NF_DROP) of ebtables-nft's policy rule when the chain's last rule
  // (rules.back()) is one (bridge_policy.h), decoded by the reader.
  std::optional<uint32_t> eb_policy;

  // Policy accept (NF_ACCEPT, 1: <linux/netfilter.h> is left to the files
  // that include glibc's network headers first), or no policy.
  bool accept() const { return !has_policy || policy == 1; }
};

struct KernelTable {
  std::string name;
  bool exists = false;
  // The kernel's count of the table's chains, sets (a rule's anonymous
  // ones too), stateful objects and flowtables, when read with its rules:
  // more than its chains when it holds anything else.
  uint32_t use = 0;
  std::vector<KernelChain> chains; // the kernel's order

  // The chain named `name`, or null.
  const KernelChain *find(std::string_view name) const {
    for (const KernelChain &c : chains)
      if (c.name == name)
        return &c;
    return nullptr;
  }
  KernelChain *find(std::string_view name) {
    return const_cast<KernelChain *>(std::as_const(*this).find(name));
  }
};

} // namespace fastrestore
