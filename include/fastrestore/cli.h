// The fastrestore command line (iptables-restore compatible).
//
// Invoked as ip6tables-restore (or ip6tables-nft-restore) the family is
// IPv6; -4 / -6 select it explicitly.
#pragma once

namespace fastrestore {

// Runs the process: the program argv[0] names (or fastrestore's
// subcommand) with its arguments. Call once, from main, before any thread
// starts: a restore first moves the heap onto huge pages
// (process_heap.h); one command of the iptables or ebtables command line,
// a small job that start-up would only slow down, does without.
int cli_main(int argc, char **argv);

} // namespace fastrestore
