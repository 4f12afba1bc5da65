// One rule identity: a rule the kernel holds and a rule from the input (or
// one fastrestore sends) are the same rule when their identities are equal.
// -C and -D by rule specification with --noflush match by it (as
// iptables-nft and ebtables-nft compare rules: ebtables-nft's policy rule,
// marked in its user data, is never a rule of the input), and so does the
// incremental restore's delta when it reads the kernel's table (delta.h).
//
// The identity is the rule's expressions as libnftnl prints them, without
// counters, with the payload of compat match and target expressions
// compared over the part their libxtables plugin owns (userspacesize, as
// iptables compares rules), so kernel-private state does not count; then
// the rule's user data (ebtables' policy marker). One function per form of
// a rule: an NFT_MSG_NEWRULE message (as sent, or as the kernel dumped it)
// and an IR rule (through the message fastrestore would send). The
// incremental restore also keys fastrestore's own messages by their bytes
// (table_delta.h, RuleKey::message): equal bytes are equal identities, used
// only where both sides are messages fastrestore encoded with the same
// plugins (the state journal's fingerprint). Parsed rules of one block are
// compared as parsed (same_rule, lib/check/planner.cpp: the whole-block
// model of both backends). test/integration/same_rule_test.py holds every
// form to the reference tools' own -C (kernel.rule_identity: a rule's
// identity parsed, encoded and read back is one).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fastrestore/ir.h"

namespace fastrestore {

// Call only between lines: it may load libxtables plugins. The counters of
// the rule's first counter expression go to `packets` and `bytes` when
// given.
std::string rule_identity(std::string_view message, uint64_t *packets = nullptr,
                          uint64_t *bytes = nullptr);

std::string rule_identity(const Rule &rule, Family family);

} // namespace fastrestore
