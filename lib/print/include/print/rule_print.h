// The one-line rule listing iptables-restore -v prints for each rule it
// adds (iptables' FMT_PRINT_RULE format: target, protocol, options,
// interfaces, addresses, then each match's and the target's own print
// through its libxtables plugin). Written to stdout, as the plugins print
// there.
#pragma once

#include "fastrestore/ir.h"

namespace fastrestore {

// Call only between lines: it may load libxtables plugins. By default the
// rule is printed as iptables-nft reads it back from nf_tables; `legacy`
// prints it as iptables-legacy stores it ("-i +" stays "+", an inverted
// port range stays inverted).
void print_rule_verbose(const Rule &rule, Family family, bool legacy = false);

} // namespace fastrestore
