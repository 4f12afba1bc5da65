#include <catch2/catch.hpp>

#include "lex/lexer.h"

using fastrestore::split_words;

namespace {
std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> out;
  for (const auto &t : split_words(line).tokens)
    out.push_back(t.text);
  return out;
}
} // namespace

TEST_CASE("blanks separate words, runs of blanks count once", "[lexer]") {
  CHECK(words("-A  INPUT\t-j ACCEPT") ==
        std::vector<std::string>{"-A", "INPUT", "-j", "ACCEPT"});
  CHECK(words("   ").empty());
  CHECK(words("").empty());
}

TEST_CASE("double quotes group words and keep blanks", "[lexer]") {
  CHECK(words(R"(--comment "two words" -j X)") ==
        std::vector<std::string>{"--comment", "two words", "-j", "X"});
  CHECK(words(R"("")") == std::vector<std::string>{""});
}

TEST_CASE("a backslash inside quotes escapes the next character", "[lexer]") {
  CHECK(words(R"("a \"b\" c")") == std::vector<std::string>{R"(a "b" c)"});
  CHECK(words(R"("back\\slash")") == std::vector<std::string>{R"(back\slash)"});
}

TEST_CASE("single quotes and bare backslashes are ordinary", "[lexer]") {
  CHECK(words(R"('a b' c\d)") ==
        std::vector<std::string>{"'a", "b'", R"(c\d)"});
}

TEST_CASE("a quote inside a word joins, the closing quote ends it", "[lexer]") {
  CHECK(words(R"(ab"cd ef"gh)") == std::vector<std::string>{"abcd ef", "gh"});
}

TEST_CASE("an unterminated quote keeps what it collected", "[lexer]") {
  // and the line's newline, as iptables-restore reads the line with it
  CHECK(words(R"(-x "open end)") ==
        std::vector<std::string>{"-x", "open end\n"});
}

TEST_CASE("a line cut short by a NUL has no newline to keep", "[lexer]") {
  fastrestore::LexResult r;
  fastrestore::split_words(R"(-x "open end)", r, false);
  REQUIRE(r.tokens.size() == 2);
  CHECK(r.tokens[1].text == "open end");
}

TEST_CASE("an empty quote a NUL leaves open is no word", "[lexer]") {
  // iptables adds a word at a closing quote, and at the line's end only
  // when it holds something: a quote the NUL leaves open with nothing in
  // it adds none; a closed empty one is a word.
  fastrestore::LexResult open_quote, closed;
  fastrestore::split_words(R"(--comment ")", open_quote, false);
  REQUIRE(open_quote.tokens.size() == 1);
  CHECK(open_quote.tokens[0].text == "--comment");
  fastrestore::split_words(R"(--comment "")", closed, false);
  REQUIRE(closed.tokens.size() == 2);
  CHECK(closed.tokens[1].text.empty());
  CHECK(words(R"(--comment "")") == std::vector<std::string>{"--comment", ""});
}

TEST_CASE("words keep their columns", "[lexer]") {
  auto r = split_words(R"(-A INPUT  "x y" z)");
  REQUIRE(r.tokens.size() == 4);
  CHECK(r.tokens[0].col_begin == 1);
  CHECK(r.tokens[0].col_end == 2);
  CHECK(r.tokens[1].col_begin == 4);
  CHECK(r.tokens[1].col_end == 8);
  CHECK(r.tokens[2].col_begin == 11);
  CHECK(r.tokens[2].col_end == 15);
  CHECK(r.tokens[2].quoted);
  CHECK(r.tokens[3].col_begin == 17);
}

TEST_CASE("carriage returns are not blanks, as in iptables-restore",
          "[lexer]") {
  CHECK(words("COMMIT\r") == std::vector<std::string>{"COMMIT\r"});
}

TEST_CASE("an over-long word is an error at its column", "[lexer]") {
  std::string line = "-x " + std::string(2000, 'a');
  auto r = split_words(line);
  CHECK(r.error == "parameter too long");
  CHECK(r.error_col == 4);
}
