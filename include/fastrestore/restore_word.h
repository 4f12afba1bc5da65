// A word as a restore line carries it, the inverse of the restore lexer's
// reading: in double quotes, with a backslash before each quote and
// backslash inside (iptables-save quotes a comment so), and quoted only
// where needed when a command line's word becomes a restore line's.
#pragma once

#include <string>

namespace fastrestore {

inline std::string quoted_word(const std::string &w) {
  std::string q = "\"";
  for (char c : w) {
    if (c == '"' || c == '\\')
      q += '\\';
    q += c;
  }
  return q + "\"";
}

// Quoted when it is empty or holds blanks, quotes or backslashes.
inline std::string restore_word(const std::string &w) {
  if (!w.empty() && w.find_first_of(" \t\"\\") == std::string::npos)
    return w;
  return quoted_word(w);
}

} // namespace fastrestore
