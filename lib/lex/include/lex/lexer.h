// Word splitting of one iptables-restore rule line.
//
// Splits exactly as iptables-restore 1.8.9 does: blanks (space, tab,
// newline) separate words; a double quote opens a quoted run in which blanks
// are kept and a backslash makes the next character literal; the closing
// quote ends the word. Single quotes and backslashes outside double quotes
// are ordinary characters. Every word keeps its 1-based column range in the
// line so diagnostics can underline it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fastrestore {

struct Token {
  std::string text;
  int col_begin = 0; // first column of the word (or of its opening quote)
  int col_end = 0;   // last column
  bool quoted = false;
};

// Longest word iptables-restore accepts ("Parameter too long!").
constexpr std::size_t kMaxWordLength = 1023;

struct LexResult {
  std::vector<Token> tokens;
  std::string error; // empty on success
  int error_col = 0;
};

LexResult split_words(std::string_view line);

// The same into `out`, reusing its tokens' storage from the previous line
// (the restore loop's hot path). `newline`: the line was read with its
// newline, which a quote left open at its end keeps (false for a line a
// NUL cut short, as iptables then sees no newline).
void split_words(std::string_view line, LexResult &out, bool newline = true);

} // namespace fastrestore
