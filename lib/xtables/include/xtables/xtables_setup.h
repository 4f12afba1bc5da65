// libxtables is process-global: it serves one family's plugins at a time,
// with one program's globals (iptables' option table and error handler for
// ip and ip6, ebtables' for the bridge). lib/xtables owns that state: it
// sets libxtables up and switches it (here), loads ebtables' extensions
// (xtables_bridge.h), and looks plugins up for the readers and printers
// (xt_lookup.h, plugin_entry.h). The rule parsers' constructors, the text
// save and ebtables -L call use_xtables; the parsers call switch_xtables
// before each line they hand to libxtables.
#pragma once

#include <memory>

#include "fastrestore/ir.h"
#include "xtables/revision_probe.h"

namespace fastrestore {

// Makes libxtables serve `family` (the first call of the process
// initialises libxtables, later ones switch the family). For ip and ip6:
// iptables' globals, with revision questions answered by `probe`, which
// it keeps. For the bridge: ebtables' globals, and the ebtables extensions
// loaded up front (once); `probe` is not used. Throws Error when
// libxtables cannot be set up.
void use_xtables(Family family, std::unique_ptr<RevisionProbe> probe);

// One family per process in practice: libxtables opens each extension
// library once and registers its plugins with the family live at that
// moment; libxt_limit registers for ip and for bridge at once, and
// libxtables keeps the variant of the family that asks first (the bridge
// loader then finds its own by family). Every program and save serves
// one family; the unit tests serve all three in one process, ip first
// (test/unit/main.cpp).
//
// Makes libxtables serve `family` again, with the globals use_xtables set
// up for it (and the probe it was last given): two stores, cheap enough for
// every line. Call use_xtables for `family` first.
void switch_xtables(Family family);

} // namespace fastrestore
