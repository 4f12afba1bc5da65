// iptables -L's table, as iptables-nft 1.8.9 prints it to stdout (where
// the libxtables plugins' print functions print): a chain's header and
// column heads (iptables' print_header), and one row a rule
// (print_rule_details, the options, interfaces and addresses, then each
// match's and the target's print).
#pragma once

#include <cstdint>
#include <string>

#include "fastrestore/ir.h"
#include "print/saved_rule.h"

namespace fastrestore::save {

// The listing's options, as iptables' FMT_* bits make them.
struct ListFormat {
  bool verbose = false;      // -v: counters and interfaces
  bool numeric = false;      // -n: no name lookups
  bool exact = false;        // -x: counters not in K, M, G
  bool line_numbers = false; // --line-numbers
};

// "Chain NAME (policy P[ N packets, M bytes])" for a base chain (`policy`
// set), "Chain NAME (N references)" for another, then the column heads.
void print_list_header(const ListFormat &f, const std::string &chain,
                       const char *policy, uint64_t packets, uint64_t bytes,
                       int64_t references);

// Rule number `num` of a chain as one row.
void print_list_rule(const ListFormat &f, unsigned num, const SavedRule &r,
                     Family family);

} // namespace fastrestore::save
