// Private to lib/check: how the planners report refused input, the checks
// both make on -P, and the chain operation OpPlanner's files all build.
#pragma once

#include <linux/netfilter.h>

#include <optional>
#include <string>

#include "check/plan.h"
#include "diag/held_refusals.h"
#include "fastrestore/ir.h"
#include "fastrestore/tables.h"
#include "parse/chain_names.h"

namespace fastrestore::check {

[[noreturn]] inline void fail(const Location &loc, std::string msg,
                              ExitCode code,
                              std::optional<std::string> upstream = {}) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(msg);
  d.code = code;
  d.upstream = std::move(upstream);
  throw Error(std::move(d));
}

[[noreturn]] inline void needs_kernel_rules(const Command &cmd,
                                            const char *what) {
  fail(cmd.loc,
       std::string(what) +
           " with --noflush needs the contents of the kernel's rules, which "
           "fastrestore does not read yet",
       ExitCode::parameter);
}

// An operation on chain `name` of table `t`, at `loc`.
inline Op chain_op(OpKind kind, const std::string &name, const Location &loc,
                   const BuiltinTable &t) {
  Op op{kind, loc, {}, {}};
  op.chain.loc = loc;
  op.chain.name = name;
  op.chain.builtin = find_builtin_chain(t, name);
  return op;
}

// iptables-nft-restore reports these as "line N failed: <reason>", status 1.
[[noreturn]] inline void line_failed(const Location &loc,
                                     const std::string &reason,
                                     std::optional<std::string> upstream = {}) {
  fail(loc, reason, ExitCode::format, std::move(upstream));
}

// The refusals the planners share, each worded once as iptables-nft
// words it ("line N failed: <reason>", status 1).
[[noreturn]] inline void no_such_chain(const Location &loc) {
  line_failed(loc, "No chain/target/match by that name.");
}
[[noreturn]] inline void chain_exists(const Location &loc) {
  line_failed(loc, "Chain already exists.");
}
// -E to a name a chain has already.
[[noreturn]] inline void name_taken(const Location &loc) {
  line_failed(loc, "File exists.");
}
// -X of a base chain that still holds rules.
[[noreturn]] inline void chain_not_empty(const Location &loc) {
  line_failed(loc, "Directory not empty.");
}
// -D or -C of a rule the chain does not hold.
[[noreturn]] inline void no_such_rule(const Location &loc) {
  line_failed(loc, "Bad rule (does a matching rule exist in that chain?).");
}
// -I, -D or -R with a number past the chain's end; `what` is "insertion",
// "deletion" or "replacement".
[[noreturn]] inline void index_too_big(const Location &loc, const char *what) {
  line_failed(loc, std::string("Index of ") + what + " too big.");
}
// A rule that jumps to a chain the block has not made (status 2, at the
// rule's own words).
[[noreturn]] inline void no_such_jump(const Rule &r) {
  fail(r.loc, "Chain '" + r.jump_chain + "' does not exist",
       ExitCode::parameter);
}

inline bool jumps(const Rule &r) {
  return r.verdict == Verdict::jump || r.verdict == Verdict::go;
}

// -E OLD NEW to a verdict's name, which no rule could jump to. iptables-nft
// refuses to declare such a chain (status 2) and its rename of a chain
// made in the same block fails in the kernel (status 4); legacy libiptc
// refuses the rename. Refused here whatever block made OLD, as status 4.
inline void check_rename_target(const Command &cmd) {
  if (is_verdict_name(cmd.arg))
    fail(cmd.loc,
         "CHAIN_RENAME failed: chain name " + cmd.arg +
             " may not clash with target name",
         ExitCode::kernel,
         // (the kernel's answer to iptables-nft, renaming to the verdict)
         "CHAIN_RENAME failed (No such file or directory): chain " + cmd.arg);
}

inline uint32_t policy_value(const std::string &p) {
  return p == "DROP" ? NF_DROP : NF_ACCEPT;
}

// -Z CHAIN N on nf_tables: iptables-nft-restore crashes on it where rule N
// exists; refused (docs/CONFORMANCE.md). Legacy zeroes the one rule.
inline void refuse_zero_rule(const Command &cmd) {
  if (cmd.kind == CommandKind::zero && cmd.rulenum > 0)
    fail(cmd.loc,
         "-Z CHAIN N (one rule's counters) is not supported on nf_tables",
         ExitCode::parameter);
}

// The policy a built-in chain's line declares (not "-"). iptables-nft
// checks it when it carries out the block, at COMMIT ("line N failed").
inline uint32_t declared_policy(const ChainDecl &d) {
  if (d.policy != "ACCEPT" && d.policy != "DROP")
    line_failed(d.loc, "Bad policy name `" + d.policy + "'.",
                "Bad policy name.");
  return policy_value(d.policy);
}

// -P: only a built-in chain, only ACCEPT or DROP. Returns the policy.
inline uint32_t checked_policy(const BuiltinTable &t, const Command &cmd) {
  // (iptables-nft reads the policy before it looks for the chain.)
  if (cmd.arg != "ACCEPT" && cmd.arg != "DROP")
    line_failed(cmd.loc, "Bad policy name.");
  if (!find_builtin_chain(t, cmd.chain))
    line_failed(cmd.loc, "Bad built-in chain name.");
  return policy_value(cmd.arg);
}

} // namespace fastrestore::check
