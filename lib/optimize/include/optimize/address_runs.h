// --optimize's first step: the runs of a chain's rules that one set
// lookup can stand for. A run is at least `min` consecutive rules that are
// the same but for their source address, or but for their destination
// address (each with any prefix length but /0, never negated), and their
// --comment text; no packet can match two of them (no address twice, no
// prefix inside another), so that the lookup gives every packet the rule,
// the verdict and the counter the literal rules gave it. Pure: IR only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

struct AddressRun {
  size_t first = 0, count = 0; // the run's rules: [first, first + count)
  bool source = true;          // the key is the source address
  bool prefixes = false;       // a key shorter than a whole address
};

// The runs of `rules` (one chain's, in order), left to right, each as
// long as it can be; a rule is in one run at most. `family` is ipv4 or
// ipv6.
std::vector<AddressRun>
find_address_runs(const std::vector<const Rule *> &rules, Family family,
                  size_t min);

// What a rule is besides its key (the source address with `source`, else
// the destination) and its comments, as bytes: the rules of a run have the
// same, and --optimize names a run's set from it.
std::string rule_shape(const Rule &rule, bool source);

// One member of a run's set: the rule's key and prefix length, its
// counters and its --comment text (none: no comment).
struct RunMember {
  std::array<uint8_t, 16> address{};
  unsigned prefix = 0;
  uint64_t packets = 0, bytes = 0;
  std::optional<std::string> comment;
};
RunMember run_member(const Rule &rule, bool source, Family family);

} // namespace fastrestore
