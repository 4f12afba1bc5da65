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
#include "fastrestore/revision_probe.h"

namespace fastrestore {

// Makes libxtables serve `family`. For ip and ip6: iptables' globals (the
// first call initialises libxtables, later ones switch the family), with
// revision questions answered by `probe`, which it keeps. For the bridge:
// ebtables' globals, and the ebtables extensions loaded up front (once);
// `probe` is not used. Throws Error when libxtables cannot be set up.
void use_xtables(Family family, std::unique_ptr<RevisionProbe> probe);

// One family per process in practice: libxtables opens each extension
// library once and registers its plugins with the family live at that
// moment, so once the bridge's extensions are loaded, ip rules cannot use
// the libraries they share (limit, LOG: "Couldn't load match", "unknown
// option"). Every program and save serves one family; the unit tests run
// each case in a process of its own (ctest).
//
// Makes libxtables serve `family` again, with the globals use_xtables set
// up for it (and the probe it was last given): two stores, cheap enough for
// every line. Call use_xtables for `family` first.
void switch_xtables(Family family);

} // namespace fastrestore
