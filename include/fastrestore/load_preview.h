// What loading restore input would change, found without changing
// anything: the tables the input names are saved as the kernel holds them,
// copied into a private network namespace, the input is loaded there as
// the restore would load it, and the tables are saved again. Both saves
// are in iptables-save's (ip6tables-, ebtables-save's) own text, so that
// two spellings of the same rules compare equal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/restore_options.h"

namespace fastrestore {

struct TableTexts {
  std::string table;
  // Save text, without its dated comments; both empty when the journal
  // tells that the load leaves every table as it is.
  std::string before, after;
};

struct LoadPreview {
  int status = 0;    // the restore's exit status; 0 when it would load
  std::string error; // when status != 0 and no restore said why
  std::vector<TableTexts> tables; // in the order the input names them
};

// `input` is the restore input; `cfg` the options of the restore it
// previews (family, backend, noflush, counters, table). The journal's way
// first, then the copy's; `how` (when given) says which told.
LoadPreview preview_load(std::string_view input, const RestoreConfig &cfg,
                         std::string *how = nullptr);

// Without a copy: when the state journal of the incremental restore
// (journal.h) is current for every table the input loads, the input's
// batches are compared with it, and only the chains whose rules would
// change are read from the kernel (journal_changes.h); the changes are
// checked by the kernel, not committed. Both saves print from the
// batches' messages where the rules are the same. nullopt, with the
// reason in *why, when the journal cannot tell (nf_tables ip and ip6
// replacements only, no -c).
std::optional<LoadPreview> journal_preview(std::string_view input,
                                           const RestoreConfig &cfg,
                                           std::string *why);

// The options of the restore a preview runs: `cfg`'s, with `test` (-t),
// without the lock, -v, --stats, --incremental or the grouping of blocks.
RestoreConfig preview_config(const RestoreConfig &cfg, bool test);

// The tables `input` names (`*name` lines), in order, each once; only
// `only` when it is not empty.
std::vector<std::string> tables_named(std::string_view input,
                                      const std::string &only);

} // namespace fastrestore
