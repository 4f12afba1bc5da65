// Input that makes an installed libxtables plugin crash while it checks a
// rule, where it refuses its neighbours. Each guard refuses such input the
// way the plugin refuses the neighbours (xtables_error, status 2) before
// the plugin's option parser or final check runs; docs/CONFORMANCE.md lists each one among
// the reference's defects.
#pragma once

struct xtables_match;

namespace fastrestore {

// Called with a match whose options are parsed, just before
// xtables_option_mfcall(match).
void guard_match_check(const xtables_match *match);

// Called with the option (its entry's id) of `match` about to be parsed
// and its argument, just before xtables_option_mpcall.
void guard_match_option(const xtables_match *match, unsigned id,
                        const char *arg);

} // namespace fastrestore
