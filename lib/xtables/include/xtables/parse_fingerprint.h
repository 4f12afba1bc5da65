// What a rule line's meaning depends on besides its text, as one hash: the
// fastrestore binary, the libxtables version and plugins (names, sizes,
// times), the files names are resolved from (/etc/protocols,
// /etc/services, /etc/ethertypes), the family and whether lines carry
// counters. The incremental restore takes a line as unchanged without
// parsing it only when this is as it was when the line was last parsed
// (a line whose parsing looked a name up is never taken so:
// name_lookups.h; nor one the kernel settles: kernel_resolved.h).
#pragma once

#include <cstdint>

#include "fastrestore/ir.h"

namespace fastrestore {

uint64_t parse_fingerprint(Family family, bool counters);

} // namespace fastrestore
