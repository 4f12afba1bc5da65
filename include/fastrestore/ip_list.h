// `iptables -L`: a table's chains listed as iptables-nft 1.8.9 lists
// them, from chains the caller read with their rules.
#pragma once

#include <string>

#include "fastrestore/ir.h"
#include "fastrestore/kernel_state.h"

namespace fastrestore {

struct IpListOptions {
  Family family = Family::ipv4;
  std::string table = "filter";
  std::string chain;         // only this chain ("" = every chain)
  unsigned rule = 0;         // -L CHAIN N: that rule's row alone
  bool verbose = false;      // -v
  bool numeric = false;      // -n
  bool exact = false;        // -x
  bool line_numbers = false; // --line-numbers
};

// Prints `table`'s listing to stdout (its chains as the kernel gave them,
// each with its rule messages and its use count; a built-in chain the
// kernel lacks listed as iptables-nft makes it up). Returns 0, or the
// status iptables-nft returns with its message (without the program's
// prefix) in *error.
int iptables_list(const IpListOptions &opts, KernelTable &table,
                  std::string *error);

} // namespace fastrestore
