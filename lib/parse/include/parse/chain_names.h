// The names a user chain may not take, as the reference tools refuse them:
// the four verdicts a rule can jump to by name (iptables and ebtables map
// these to the standard target, so a chain of that name could never be
// reached), and names holding white space other than the blanks that
// separate words (iptables tests isspace() in the C locale: also \v, \f
// and \r, which the line splitter keeps inside a word).
#pragma once

#include <string_view>

namespace fastrestore {

inline bool is_verdict_name(std::string_view name) {
  return name == "ACCEPT" || name == "DROP" || name == "QUEUE" ||
         name == "RETURN";
}

inline bool has_white_space(std::string_view name) {
  for (char c : name)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
        c == '\r')
      return true;
  return false;
}

} // namespace fastrestore
