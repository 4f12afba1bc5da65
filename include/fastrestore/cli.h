// The fastrestore command line (iptables-restore compatible).
//
// Invoked as ip6tables-restore (or ip6tables-nft-restore) the family is
// IPv6; -4 / -6 select it explicitly.
#pragma once

namespace fastrestore {

int cli_main(int argc, char **argv);

// Whether the process runs one command of the iptables or ebtables
// command line (the program so named, or `fastrestore iptables ...`):
// a small job, which the restore's start-up (a huge-page heap, a second
// thread reading the input) would only slow down.
bool runs_one_command(int argc, char **argv);

} // namespace fastrestore
