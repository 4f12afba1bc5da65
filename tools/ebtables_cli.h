// The ebtables command line: `fastrestore ebtables ARGS...`, or the
// program invoked as ebtables / ebtables-nft. Each command is one
// nf_tables transaction, made by the restore pipeline from the command
// as a one-line --noflush block of its table.
#pragma once

namespace fastrestore {

struct Program;

// argv[1] is "ebtables" unless the program is named ebtables.
int ebtables_main(const Program &program, int argc, char **argv);

} // namespace fastrestore
