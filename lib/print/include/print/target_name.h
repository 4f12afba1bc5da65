// The name iptables gives a rule's target: ACCEPT, DROP, RETURN, the chain
// of a jump or goto, the extension's name, or "" when the rule has none.
#pragma once

#include <string>

#include "fastrestore/ir.h"

namespace fastrestore {

inline std::string target_name(const Rule &r) {
  switch (r.verdict) {
  case Verdict::accept:
    return "ACCEPT";
  case Verdict::drop:
    return "DROP";
  case Verdict::ret:
    return "RETURN";
  case Verdict::jump:
  case Verdict::go:
    return r.jump_chain;
  case Verdict::target:
    return r.target->name;
  case Verdict::none:
    break;
  }
  return {};
}

} // namespace fastrestore
