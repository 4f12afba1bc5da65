// The kernel interface a restore writes and a save reads: nf_tables
// (netlink, one transaction per COMMIT) or legacy x_tables (libiptc, one
// table replacement per COMMIT). One enum for the restore, the text save,
// the snapshots and the command line; its values are the snapshot
// format's backend byte.
#pragma once

#include <cstdint>

namespace fastrestore {

enum class Backend : uint8_t { nft = 1, legacy = 2 };

// "(nf_tables)" or "(legacy)", as the tools' -V prints it.
inline const char *backend_label(Backend b) {
  return b == Backend::legacy ? "(legacy)" : "(nf_tables)";
}

} // namespace fastrestore
