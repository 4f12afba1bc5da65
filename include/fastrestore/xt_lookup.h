// libxtables plugin lookups for code that reads a plugin (its print and
// save functions, its sizes) rather than parsing a rule into it
// (implemented in lib/xtables).
//
// xtables_find_match and xtables_find_target hand out a malloc'd copy (a
// "clone", whose next points to itself) of a plugin that a rule being
// parsed already uses; a reader would have to free it, and
// xtables_find_*_revision loops forever on one. These return the
// registered plugin instead.
#pragma once

#include <cstddef>
#include <string>

struct xtables_match;
struct xtables_target;

namespace fastrestore {

xtables_match *peek_match(const char *name);
xtables_target *peek_target(const char *name);

// The plugin for `name` at `revision`, or at the best revision it has when
// that one is missing (the plugin iptables-nft would print with); nullptr
// when there is no plugin. Looked up once per name and revision.
xtables_match *match_plugin(const std::string &name, int revision);
xtables_target *target_plugin(const std::string &name, int revision);

// How many of the `len` payload bytes of a match or target userspace owns,
// which are what -C and -D compare: the plugin's userspacesize (the rest is
// the kernel's private state); all `len` when the plugin is not found, is
// of another revision (`revision` -1: any), or declares no userspacesize
// while its struct has bytes (libxt_helper and libebt_stp: iptables then
// compares none of their bytes, and takes any two for the same rule).
size_t owned_payload(bool target, const char *name, int revision, size_t len);

} // namespace fastrestore
