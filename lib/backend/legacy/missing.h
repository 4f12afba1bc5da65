// Which extension of a rule the running kernel lacks: x_tables refuses a
// whole table with ENOENT ("No chain/target/match by that name") when one
// rule names a match or target no module provides, without saying which.
#pragma once

#include <string>

#include "fastrestore/ir.h"

namespace fastrestore::legacy {

// For a rule line of restore input: "match `ipvs'" or "target `LED'" (the
// first -m/-j extension the kernel's /proc/net/ip{,6}_tables_{matches,
// targets} does not list), and the module that would provide it when the
// kernel's module index names one; empty when all are there.
std::string missing_extension(const std::string &line, Family family);

} // namespace fastrestore::legacy
