// What fastrestore's libxtables error callback throws: a plugin (or
// libxtables itself) called xtables_error(), which would end iptables with
// `status` after printing `message`. Parsing turns it into a Diagnostic
// naming the line; printing a rule (save, listings) reports it and exits
// with the same status.
#pragma once

#include <string>

namespace fastrestore {

struct PluginFailure {
  int status; // an xtables_exittype
  std::string message;
};

} // namespace fastrestore
