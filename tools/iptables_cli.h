// The iptables command line: `fastrestore iptables ARGS...`,
// `fastrestore ip6tables ARGS...`, or the program invoked as iptables,
// ip6tables, iptables-nft or ip6tables-nft. A command that changes or
// checks a table is one --noflush block of that table through the restore
// pipeline (one nf_tables transaction; a command on a named chain reads
// that chain alone, or finds it in the journal's record); -S reads the
// chains it prints. Messages and statuses are iptables-nft 1.8.9's.
#pragma once

namespace fastrestore {

struct Program;

// argv[1] is "iptables" or "ip6tables" unless the program is so named.
int iptables_main(const Program &program, int argc, char **argv);

} // namespace fastrestore
