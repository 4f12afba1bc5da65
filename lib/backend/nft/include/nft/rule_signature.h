// Rule identity for -D and -C with --noflush: a rule the kernel holds and a
// rule from the input are the same rule when their signatures are equal.
//
// The signature is the rule's expressions as libnftnl prints them, without
// counters, with the payload of compat match and target expressions
// compared over the part their libxtables plugin owns (userspacesize, as
// iptables compares rules), so kernel-private state does not count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fastrestore/ir.h"

namespace fastrestore {

// `message` is an NFT_MSG_NEWRULE message (as sent, or as dumped).
// Call only between lines: it may load libxtables plugins.
std::string rule_signature(std::string_view message);

// The signature of an IR rule, from the message fastrestore would send.
std::string rule_signature(const Rule &rule, Family family);

// A rule's identity for the incremental restore (delta.h): its signature
// and its user data (its comment, ebtables' policy marker), which iptables
// prints in its save. `message` as for rule_signature; the counters of its
// first counter expression go to `packets` and `bytes` when given.
std::string rule_identity(std::string_view message, uint64_t *packets = nullptr,
                          uint64_t *bytes = nullptr);

} // namespace fastrestore
