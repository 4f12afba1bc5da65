// Protocol names to numbers without a name-service call per rule.
//
// Resolves as xtables_parse_protocol does (a number 0-255, then the
// libxtables built-in names, then the system protocol database), but reads
// /etc/protocols once and answers every later lookup from memory.
#pragma once

#include <optional>
#include <string>

namespace fastrestore {

// Number for `name` (already lower-cased), or nullopt when unknown.
std::optional<int> protocol_number(const std::string &name);

// The libxtables built-in name for a protocol number (tcp, udp, ...), used
// to auto-load the protocol's match; nullptr when there is none.
const char *builtin_protocol_name(int number);

} // namespace fastrestore
