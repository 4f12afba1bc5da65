// The snapshot commands of the command line: `fastrestore save --binary
// FILE` and `fastrestore commit FILE` (docs/SNAPSHOT.md).
#pragma once

#include <cstdint>
#include <string>

namespace fastrestore {

// Whether argv names a snapshot command (first argument save or commit).
bool is_snapshot_command(int argc, char **argv);
int snapshot_main(int argc, char **argv);

// What a program named like a save tool (iptables-save, ip6tables-save,
// ebtables-save, iptables-legacy-save, ...) saves by default.
struct SaveDefaults {
  uint8_t family = 2; // NFPROTO_IPV4
  bool legacy = false;
};
bool save_program_defaults(const std::string &prog, SaveDefaults &out);
int save_program_main(int argc, char **argv, const SaveDefaults &defaults);

} // namespace fastrestore
