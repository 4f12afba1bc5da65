// The iptables-restore --noflush input (ebtables-restore's, for the bridge
// family) that turns one save of a table into another: declarations of chains
// made, `-D CHAIN N` and `-I CHAIN N RULE` for each chain's rules (the
// line diff of unified_diff.h), `-F` then `-X` for chains removed, and
// policies changed (a built-in chain declared again; ebtables' `-P`). Rule
// numbers refer to the table as `before` shows it, changed by the commands
// before them.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "fastrestore/ir.h"

namespace fastrestore {

// "" when the saves are the same. `before` and `after` are one table's
// save text (without dated comments), as fastrestore save prints it;
// `counters`: saved with -c, and the commands are for a restore with -c
// (they set counters too). `is_target`: whether a name is a target
// plugin's (LOG, REJECT), which `-j NAME` means in a block that does not
// declare a chain NAME: a user chain of that name that both saves hold
// and a written rule jumps to is declared (which empties it under
// --noflush) and its rules written whole. Without it no such chain is
// assumed.
std::string
noflush_commands(std::string_view before, std::string_view after, Family family,
                 bool counters,
                 const std::function<bool(std::string_view)> &is_target = {});

} // namespace fastrestore
