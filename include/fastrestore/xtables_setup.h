// libxtables is process-global: it serves one family's plugins at a time,
// with one program's globals (iptables' option table and error handler for
// ip and ip6, ebtables' for the bridge). use_xtables is the one place that
// sets it up and switches it: the rule parsers' constructors, the text
// save and ebtables -L call it. Implemented in lib/parse, beside the
// parsers that own those globals.
#pragma once

#include <memory>

#include "fastrestore/ir.h"
#include "fastrestore/revision_probe.h"

namespace fastrestore {

// Makes libxtables serve `family`. For ip and ip6: iptables' globals (the
// first call initialises libxtables, later ones switch the family), with
// revision questions answered by `probe`, which it keeps. For the bridge:
// ebtables' globals, and the ebtables extensions loaded up front (once);
// `probe` is not used. Throws Error when libxtables cannot be set up.
void use_xtables(Family family, std::unique_ptr<RevisionProbe> probe);

} // namespace fastrestore
