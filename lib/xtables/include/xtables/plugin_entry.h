// A match or target entry as a libxtables plugin's print and save
// functions take it, and the ways to build one (implemented in
// lib/xtables, which owns libxtables' state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fastrestore {

// One match or target: its plugin and its xt_entry_match / xt_entry_target
// (header and data), as the plugin's save function wants it.
struct PluginEntry {
  void *plugin = nullptr; // xtables_match * or xtables_target *
  std::vector<unsigned char> entry;
  bool watcher = false; // ebtables: a target listed among the matches
  unsigned char *data() { return entry.data() + header_size(); }
  static size_t header_size();
};

// A match built as iptables-nft builds one for a native expression: the
// plugin's size, its revision, zeroed and passed through its init. The
// plugin is null when it does not exist.
PluginEntry new_match(const std::string &name);
PluginEntry new_target(const std::string &name);

// An entry holding a compat expression's name, revision and data.
PluginEntry compat_entry(void *plugin, const std::string &name,
                         uint8_t revision, const void *data, size_t len,
                         bool target);

} // namespace fastrestore
