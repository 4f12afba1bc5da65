// A rule number as iptables reads one (parse_rulenumber): 1 to INT_MAX,
// in any base strtoul reads ("0x1" is 1).
#pragma once

#include <xtables.h>

#include <climits>
#include <optional>

namespace fastrestore {

inline std::optional<unsigned> rule_number(const char *s) {
  unsigned n;
  if (!xtables_strtoui(s, nullptr, &n, 1, INT_MAX))
    return std::nullopt;
  return n;
}

} // namespace fastrestore
