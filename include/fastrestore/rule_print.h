// The one-line rule listing iptables-restore -v prints for each rule it
// adds (iptables' FMT_PRINT_RULE format: target, protocol, options,
// interfaces, addresses, then each match's and the target's own print
// through its libxtables plugin). Written to stdout, as the plugins print
// there.
#pragma once

#include "fastrestore/ir.h"

namespace fastrestore {

// Call only between lines: it may load libxtables plugins.
void print_rule_verbose(const Rule &rule, Family family);

} // namespace fastrestore
