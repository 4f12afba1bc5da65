// The ebtables command line: `fastrestore ebtables ARGS...`, or the
// program invoked as ebtables / ebtables-nft. Each command is one
// nf_tables transaction, made by the restore pipeline from the command
// as a one-line --noflush block of its table.
#pragma once

namespace fastrestore {

bool is_ebtables_command(int argc, char **argv);
int ebtables_main(int argc, char **argv);

} // namespace fastrestore
