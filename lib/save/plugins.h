// The libxtables plugins a read-back rule is printed with, looked up once
// per name and revision, and the match / target entries built for them.
#pragma once

#include <cstddef>
#include <string>

#include "rule.h"

namespace fastrestore::save {

// The plugin for `name` at `revision`, or at the best revision it has when
// that one is missing (the plugin iptables-nft would print with); nullptr
// when there is no plugin.
xtables_match *match_plugin(const std::string &name, int revision);
xtables_target *target_plugin(const std::string &name, int revision);

// A match built as iptables-nft builds one for a native expression: the
// plugin's size, its revision, zeroed and passed through its init. The
// plugin is null when it does not exist.
PluginEntry new_match(const std::string &name);
PluginEntry new_target(const std::string &name);

// An entry holding a compat expression's name, revision and data.
PluginEntry compat_entry(void *plugin, const std::string &name,
                         uint8_t revision, const void *data, size_t len,
                         bool target);

} // namespace fastrestore::save
