// What --noflush needs to know of a table the kernel holds: its chains in
// kernel order, and each chain's rules in order (handle and message). Read by
// the backend (Transport::read_table), used by the planner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastrestore {

struct KernelChain {
  std::string name;
  uint64_t handle = 0;
  bool base = false;
  bool accept = true; // policy accept, or no policy
  std::vector<uint64_t> rules;
  // Each rule as the kernel dumped it (an NFT_MSG_NEWRULE message), in the
  // order of `rules`: for -D / -C by rule specification and for -Z.
  std::vector<std::string> messages;
};

struct KernelTable {
  bool exists = false;
  std::vector<KernelChain> chains;
};

} // namespace fastrestore
