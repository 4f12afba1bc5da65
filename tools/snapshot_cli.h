// The snapshot commands of the command line: `fastrestore save --binary
// FILE` and `fastrestore commit FILE` (docs/SNAPSHOT.md).
#pragma once

namespace fastrestore {

struct Program;

// `fastrestore save|commit ARGS...` (argv[1] is the subcommand).
int snapshot_main(const Program &program, int argc, char **argv);

// A program named like a save tool (iptables-save, ip6tables-save,
// ebtables-save, iptables-legacy-save, ...): fastrestore save with that
// tool's family and backend.
int save_program_main(const Program &program, int argc, char **argv);

} // namespace fastrestore
