// `fastrestore save`: the kernel's tables printed in save format, as
// iptables-nft-save, ip6tables-nft-save, ebtables-nft-save and
// iptables-legacy-save print them.
#pragma once

#include <string>

#include "fastrestore/backend.h"
#include "fastrestore/ir.h"

namespace fastrestore {

struct TextSaveOptions {
  Family family = Family::ipv4;
  Backend backend = Backend::nft;
  std::string table;     // only this table ("" = all)
  bool counters = false; // -c
};

// Prints to stdout, warnings and errors to stderr; returns the exit status
// of the tool it replaces (0, 1 for a missing table, ...).
int text_save(const TextSaveOptions &opts);

} // namespace fastrestore
