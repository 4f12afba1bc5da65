#include "fastrestore/lexer.h"

namespace fastrestore {

LexResult split_words(std::string_view line) {
  LexResult out;
  out.tokens.reserve(24);
  Token cur;
  bool in_quotes = false, escaped = false, have_word = false;
  int col = 0;

  auto flush = [&](int end_col) {
    cur.col_end = end_col;
    out.tokens.push_back(std::move(cur));
    cur = Token{};
    have_word = false;
  };
  auto add = [&](char c) -> bool {
    if (cur.text.size() >= kMaxWordLength) {
      out.error = "parameter too long";
      out.error_col = cur.col_begin;
      return false;
    }
    cur.text.push_back(c);
    return true;
  };

  for (char c : line) {
    ++col;
    if (!have_word) {
      if (c == ' ' || c == '\t' || c == '\n')
        continue;
      have_word = true;
      cur.col_begin = col;
    }
    if (in_quotes) {
      if (escaped) {
        escaped = false;
        if (!add(c))
          return out;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_quotes = false;
        flush(col);
      } else if (!add(c)) {
        return out;
      }
      continue;
    }
    if (c == '"') {
      in_quotes = true;
      cur.quoted = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      flush(col - 1);
    } else if (!add(c)) {
      return out;
    }
  }
  if (have_word) {
    // An unterminated quote keeps what it collected, as iptables does.
    flush(col);
  }
  return out;
}

} // namespace fastrestore
