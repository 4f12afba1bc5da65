// What fastrestore's libxtables error callback throws: a plugin (or
// libxtables itself) called xtables_error(), which would end iptables with
// `status` after printing `message`. Parsing turns it into a Diagnostic
// naming the line; printing a rule (save, listings) reports it and exits
// with the same status.
#pragma once

#include <string>

#include "fastrestore/diagnostic.h"

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

// The failure as a Diagnostic (message, status, and the tool's words
// where they differ); the parser adds where it was.
inline Diagnostic diagnostic_of(const PluginFailure &f) {
  Diagnostic d;
  d.message = f.message;
  d.code = static_cast<ExitCode>(f.status);
  if (f.raw != f.message)
    d.upstream = f.raw;
  if (f.bare)
    d.frame = Frame::bare;
  return d;
}

} // namespace fastrestore
