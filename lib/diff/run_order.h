// diff over a kernel that holds --optimize's sets (private to lib/diff).
#pragma once

#include <string>
#include <string_view>

#include "fastrestore/ir.h"

namespace fastrestore::diff {

// `after` (iptables-save text, counters or not) with each run of
// consecutive rules of a chain that are the same but for their source
// address (or but for their destination address) and comment, whose
// addresses are all different and none inside another (as --optimize
// finds runs), put in address order where `before` holds the same rules
// as a run in address order: the members of one of the kernel's sets, as
// `save --expand` prints them. No packet can match two rules of such a
// run, so its order changes nothing a packet meets, and a set has no order
// to compare a literal file's with.
std::string runs_in_kernel_order(std::string_view after,
                                 std::string_view before, Family family);

} // namespace fastrestore::diff
