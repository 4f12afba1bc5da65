// The fastrestore command line (iptables-restore compatible).
//
// Invoked as ip6tables-restore (or ip6tables-nft-restore) the family is
// IPv6; -4 / -6 select it explicitly.
#pragma once

namespace fastrestore {

int cli_main(int argc, char **argv);

} // namespace fastrestore
