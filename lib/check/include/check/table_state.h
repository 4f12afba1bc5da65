// One table's chains and rules as the incremental restore compares them
// (delta.h): each rule reduced to a key (equal keys: the same rule) and
// its kernel handle. The kernel's side comes from reading the table or
// from the state journal (journal.h), the desired side from the block's
// replacement batch. Pure data: no kernel, no libnftnl.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastrestore {

struct StateRule {
  uint64_t key = 0;    // the rule's identity, hashed
  uint64_t handle = 0; // the kernel's handle (kernel side)
  // A hash of the rule's input line (hash64 of its text), when the line
  // may be taken as unchanged without parsing it; 0 when not.
  uint64_t line = 0;
  // Desired side: the rule's line gave counters (-c). Kernel side: the
  // counters are known (read from the kernel, not from a journal).
  bool counters = false;
  // Desired side: the kernel settles the rule's meaning when it is made
  // (kernel_resolved.h): no kernel rule is kept for it. Not recorded.
  bool made_again = false;
  uint64_t packets = 0, bytes = 0;
};

// A chain's own attributes, its rules aside.
struct StateChainHead {
  std::string name;
  bool base = false; // has a hook
  uint32_t hook = 0;
  int32_t prio = 0;
  std::string type; // a base chain's type ("filter", "nat", ...)
  bool has_policy = false;
  uint32_t policy = 0;
  bool counters = false; // as StateRule::counters, for a base chain's
  uint64_t packets = 0, bytes = 0;
};

struct StateChain : StateChainHead {
  std::vector<StateRule> rules; // in the chain's order
};

// An ipset of --optimize that the table's rules match (journal side): its
// name, members_digest (0: not known, read it back) and its number of
// members when recorded.
struct StateSet {
  std::string name;
  uint64_t digest = 0;
  uint64_t members = 0;
  bool operator==(const StateSet &o) const {
    return name == o.name && digest == o.digest && members == o.members;
  }
};

struct TableState {
  std::vector<StateChain> chains; // kernel side: the kernel's order
  std::vector<StateSet> sets;     // --optimize's, as recorded
  // The parse_fingerprint the rules' lines were parsed under.
  uint64_t fingerprint = 0;
  // A hash of the text of the block that made the table, when loading
  // that block again leaves the table as it is (0: not known): the same
  // block text, under the same fingerprint, may then be taken whole
  // without parsing.
  uint64_t block = 0;
  // Kernel side: the handle the kernel gives the next chain or rule made
  // in the table (one more than the last it made), as a commit left it
  // (0: not known).
  uint64_t next_handle = 0;
  size_t rule_count() const {
    size_t n = 0;
    for (const auto &c : chains)
      n += c.rules.size();
    return n;
  }
};

} // namespace fastrestore
