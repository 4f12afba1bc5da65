// Printing rules in iptables-save's and ebtables' form, to stdout (where
// the libxtables plugins' save functions print): the text save's and
// ebtables -L's printers (implemented in lib/print, with the -v printer of
// rule_print.h).
#pragma once

#include <string>

#include "fastrestore/ir.h"
#include "print/saved_rule.h"

namespace fastrestore::save {

// One "-A CHAIN ..." line of iptables-nft-save; with `counters` prefixed
// by "[packets:bytes] " as `iptables-save -c` prints it.
void print_ip_rule(const std::string &chain, const SavedRule &r, Family family,
                   bool counters);

// The base fields of a rule as iptables-save prints them after "-A
// CHAIN": addresses, interfaces, protocol and -f.
void print_ip_base(const SavedRule &r, Family family);

// How ebtables-nft prints a rule's counters and numbers.
struct BridgeFormat {
  bool numeric = false;    // FMT_NUMERIC, passed to the plugins
  bool c_counters = false; // FMT_C_COUNTS: counters after the target
  bool ebt_save = true;    // ... as " -c P B" (else ", pcnt = P -- bcnt = B")
};

// An ebtables rule after "-A CHAIN " (ebtables-nft-save) or alone
// (ebtables -L): protocol, addresses, interfaces, matches and watchers,
// "-j" and the target, then a newline.
void print_bridge_body(const SavedRule &r, const BridgeFormat &f);

// The protocol name iptables prints for a number (its built-in names, then
// /etc/protocols), or nullptr.
const char *proto_name(uint8_t proto);

} // namespace fastrestore::save
