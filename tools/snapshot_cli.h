// The snapshot commands of the command line: `fastrestore save --binary
// FILE` and `fastrestore commit FILE` (docs/SNAPSHOT.md).
#pragma once

namespace fastrestore {

// Whether argv names a snapshot command (first argument save or commit).
bool is_snapshot_command(int argc, char **argv);
int snapshot_main(int argc, char **argv);

} // namespace fastrestore
