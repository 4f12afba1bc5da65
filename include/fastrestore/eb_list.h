// `ebtables -L`: a bridge table listed as ebtables-nft lists it.
#pragma once

#include <string>

namespace fastrestore {

struct EbListOptions {
  std::string table = "filter";
  std::string chain;         // only this chain ("" = all)
  bool line_numbers = false; // --Ln
  bool counters = false;     // --Lc
};

// Prints the listing to stdout; errors go to stderr. Returns the exit
// status ebtables-nft returns.
int ebtables_list(const EbListOptions &opts);

} // namespace fastrestore
