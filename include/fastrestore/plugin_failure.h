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
  // The text as iptables prints it, blanks and newlines kept (a message
  // the tool's messages are compared with: Diagnostic::upstream).
  std::string raw;
  // iptables prints it without its name and version ("Bad argument `x'").
  bool bare = false;
};

} // namespace fastrestore
