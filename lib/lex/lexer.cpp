#include "lex/lexer.h"

namespace fastrestore {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

} // namespace

LexResult split_words(std::string_view line) {
  LexResult out;
  split_words(line, out);
  return out;
}

void split_words(std::string_view line, LexResult &out, bool newline) {
  // Tokens past `used` keep their strings' capacity for the next line.
  size_t used = 0;
  out.error.clear();
  out.error_col = 0;
  auto next_token = [&]() -> Token & {
    if (used == out.tokens.size())
      out.tokens.emplace_back();
    Token &t = out.tokens[used++];
    t.text.clear();
    t.quoted = false;
    return t;
  };
  const size_t n = line.size();
  size_t i = 0;
  while (i < n) {
    while (i < n && blank(line[i]))
      ++i;
    if (i == n)
      break;
    Token &tok = next_token();
    tok.col_begin = static_cast<int>(i) + 1;
    // Most words have no quotes: take them in one piece.
    size_t j = i;
    while (j < n && !blank(line[j]) && line[j] != '"')
      ++j;
    if (j == n || blank(line[j])) {
      if (j - i > kMaxWordLength) {
        out.error = "parameter too long";
        out.error_col = tok.col_begin;
        out.tokens.resize(used);
        return;
      }
      tok.text.assign(line.data() + i, j - i);
      tok.col_end = static_cast<int>(j);
      i = j;
      continue;
    }
    // A word with quotes: a quote opens a run where blanks are kept and a
    // backslash takes the next character literally; the closing quote ends
    // the word. An unterminated quote keeps what it collected, and the
    // line's newline.
    tok.text.assign(line.data() + i, j - i);
    bool in_quotes = false, escaped = false, done = false;
    for (i = j; i < n && !done; ++i) {
      char c = line[i];
      if (in_quotes) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
          continue;
        } else if (c == '"') {
          done = true;
          tok.col_end = static_cast<int>(i) + 1;
          continue;
        }
      } else if (c == '"') {
        in_quotes = true;
        tok.quoted = true;
        continue;
      } else if (blank(c)) {
        break;
      }
      if (tok.text.size() >= kMaxWordLength) {
        out.error = "parameter too long";
        out.error_col = tok.col_begin;
        out.tokens.resize(used);
        return;
      }
      tok.text.push_back(c);
    }
    if (!done)
      tok.col_end = static_cast<int>(i);
    // iptables reads the line with its newline, which an unterminated
    // quote keeps as part of the word.
    if (!done && in_quotes && i == n && newline)
      tok.text.push_back('\n');
    // iptables adds a word at a closing quote, at a blank, or at the
    // line's end only when it holds something: a quote left open with
    // nothing in it at the end of a line without its newline (cut at a
    // NUL) is no word at all.
    if (!done && in_quotes && tok.text.empty() && i == n && !newline)
      --used;
  }
  out.tokens.resize(used);
}

} // namespace fastrestore
