// Private to lib/check: how the planners report refused input, and the
// checks both make on -P.
#pragma once

#include <linux/netfilter.h>

#include <string>

#include "fastrestore/ir.h"
#include "fastrestore/tables.h"

namespace fastrestore::check {

[[noreturn]] inline void fail(const Location &loc, std::string msg,
                              ExitCode code) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(msg);
  d.code = code;
  throw Error(std::move(d));
}

// iptables-nft-restore reports these as "line N failed: <reason>", status 1.
[[noreturn]] inline void line_failed(const Location &loc,
                                     const std::string &reason) {
  fail(loc, reason, ExitCode::format);
}

inline uint32_t policy_value(const std::string &p) {
  return p == "DROP" ? NF_DROP : NF_ACCEPT;
}

// -P: only a built-in chain, only ACCEPT or DROP. Returns the policy.
inline uint32_t checked_policy(const BuiltinTable &t, const Command &cmd) {
  if (!find_builtin_chain(t, cmd.chain))
    line_failed(cmd.loc, "Bad built-in chain name.");
  if (cmd.arg != "ACCEPT" && cmd.arg != "DROP")
    line_failed(cmd.loc, "Bad policy name.");
  return policy_value(cmd.arg);
}

} // namespace fastrestore::check
