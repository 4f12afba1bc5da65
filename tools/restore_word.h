// A word of a command line as a restore line carries it: quoted when it
// holds blanks, quotes or backslashes, as the restore lexer reads it back.
#pragma once

#include <string>

namespace fastrestore {

inline std::string restore_word(const std::string &w) {
  if (!w.empty() && w.find_first_of(" \t\"\\") == std::string::npos)
    return w;
  std::string q = "\"";
  for (char c : w) {
    if (c == '"' || c == '\\')
      q += '\\';
    q += c;
  }
  return q + "\"";
}

} // namespace fastrestore
