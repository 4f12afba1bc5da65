// Private to lib/xtables: what its files share of libxtables' globals.
#pragma once

#include <xtables.h>

#include <cstdarg>

namespace fastrestore {

// The one way a libxtables error callback reports: formats the message,
// trims its trailing newlines and blanks (and its leading newlines when
// `trim_leading`, as iptables prints them) and throws PluginFailure with
// libxtables' status. Ends `ap`.
[[noreturn]] void throw_plugin_failure(enum xtables_exittype status,
                                       const char *fmt, va_list ap,
                                       bool trim_leading);

namespace eb {

// ebtables' libxtables globals (its program name, option table and error
// callback), and the loading of its up-front extensions, once.
extern xtables_globals g_eb;
void load_all();

} // namespace eb
} // namespace fastrestore
