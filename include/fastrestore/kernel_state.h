// What --noflush needs to know of a table the kernel holds: its chains in
// kernel order, and the handles of each chain's rules in order. Read by the
// backend (Transport::read_table), used by the planner.
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
};

struct KernelTable {
  bool exists = false;
  std::vector<KernelChain> chains;
};

} // namespace fastrestore
