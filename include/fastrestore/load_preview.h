// What loading restore input would change, found without changing
// anything: the tables the input names are saved as the kernel holds them,
// copied into a private network namespace, the input is loaded there as
// the restore would load it, and the tables are saved again. Both saves
// are in iptables-save's (ip6tables-, ebtables-save's) own text, so that
// two spellings of the same rules compare equal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/restore_options.h"

namespace fastrestore {

struct TableTexts {
  std::string table;
  std::string before, after; // save text, without its dated comments
};

struct LoadPreview {
  int status = 0;    // the restore's exit status; 0 when it would load
  std::string error; // when status != 0 and no restore said why
  std::vector<TableTexts> tables; // in the order the input names them
};

// `input` is the restore input; `cfg` the options of the restore it
// previews (family, backend, noflush, counters, table).
LoadPreview preview_load(std::string_view input, const RestoreConfig &cfg);

// The tables `input` names (`*name` lines), in order, each once; only
// `only` when it is not empty.
std::vector<std::string> tables_named(std::string_view input,
                                      const std::string &only);

} // namespace fastrestore
