// save --expand (private to lib/save).
#pragma once

#include <string>
#include <string_view>

#include "fastrestore/ir.h"

namespace fastrestore::save {

// `text` (a save) with each rule that matches one of fastrestore's sets
// (`-m set --match-set fastrestore-... src|dst`) replaced by one rule per
// member of the set, in address order: the rule without the set match,
// with the member's address (-s or -d, where the save prints it), its
// comment (before the verdict) and, with `counters`, its counters. Empty,
// with the reason in *error, when a set cannot be read.
std::string expand_sets(std::string_view text, Family family, bool counters,
                        std::string *error);

} // namespace fastrestore::save
