// The line diff and its unified printing (unified_diff.h), without a
// kernel: hunks as `diff -u` prints them, and edit scripts that turn one
// text into the other.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "fastrestore/unified_diff.h"

using namespace fastrestore;

namespace {

std::string diff(const std::string &a, const std::string &b,
                 bool color = false) {
  UnifiedDiffOptions o;
  o.a_name = "kernel";
  o.b_name = "new";
  o.color = color;
  return unified_diff(split_lines(a), split_lines(b), o);
}

// The text the edit script makes of a: every line it keeps or adds, in
// order; kept lines must be equal on both sides.
std::vector<std::string_view> apply(const std::vector<std::string_view> &a,
                                    const std::vector<std::string_view> &b,
                                    const std::vector<Edit> &edits) {
  std::vector<std::string_view> out;
  size_t next_a = 0;
  for (const Edit &e : edits) {
    if (e.kind == EditKind::keep) {
      REQUIRE(a[e.a] == b[e.b]);
      REQUIRE(e.a == next_a);
      ++next_a;
      out.push_back(b[e.b]);
    } else if (e.kind == EditKind::remove) {
      REQUIRE(e.a == next_a);
      ++next_a;
    } else {
      out.push_back(b[e.b]);
    }
  }
  REQUIRE(next_a == a.size());
  return out;
}

} // namespace

TEST_CASE("unified diff: hunks as diff -u prints them", "[unified_diff]") {
  CHECK(diff("a\nb\nc\n", "a\nb\nc\n").empty());
  CHECK(diff("a\nb\nc\n", "a\nb\nx\nc\n") ==
        "--- kernel\n+++ new\n@@ -1,3 +1,4 @@\n a\n b\n+x\n c\n");
  // An empty side names the line before it; a one-line side has no count.
  CHECK(diff("", "x\n") == "--- kernel\n+++ new\n@@ -0,0 +1 @@\n+x\n");
  CHECK(diff("x\n", "") == "--- kernel\n+++ new\n@@ -1 +0,0 @@\n-x\n");
  CHECK(diff("a\nb\n", "a\nc\n") ==
        "--- kernel\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
  // Changes more than six lines apart: two hunks; closer: one.
  std::string a, b, c;
  for (int i = 0; i < 20; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 2 || i == 12 ? "x" : std::to_string(i)) + "\n";
    c += (i == 2 || i == 8 ? "x" : std::to_string(i)) + "\n";
  }
  const std::string two = diff(a, b);
  CHECK(two.find("@@ -1,6 +1,6 @@\n") != std::string::npos);
  CHECK(two.find("@@ -10,7 +10,7 @@\n") != std::string::npos);
  CHECK(diff(a, c).find("@@ -1,12 +1,12 @@\n") != std::string::npos);
}

TEST_CASE("unified diff: sections and colour", "[unified_diff]") {
  UnifiedDiffOptions o;
  o.a_name = "kernel";
  o.b_name = "new";
  o.section = [](bool b_side, size_t line) {
    return std::string(b_side ? "new " : "old ") + std::to_string(line);
  };
  const auto a = split_lines("1\n2\n3\n");
  const auto b = split_lines("1\n2\n4\n");
  // Named after the hunk's first change (a removal: its line in a).
  CHECK(unified_diff(a, b, o).find("@@ -1,3 +1,3 @@ old 2\n") !=
        std::string::npos);
  CHECK(unified_diff(split_lines("1\n"), split_lines("1\n2\n"), o)
            .find("@@ -1 +1,2 @@ new 1\n") != std::string::npos);
  const std::string coloured = diff("a\n", "b\n", true);
  CHECK(coloured.find("\033[31m-a\033[m\n") != std::string::npos);
  CHECK(coloured.find("\033[32m+b\033[m\n") != std::string::npos);
  CHECK(coloured.find("\033[36m@@ -1 +1 @@\033[m\n") != std::string::npos);
}

TEST_CASE("unified diff: every script turns one text into the other",
          "[unified_diff]") {
  std::mt19937 rng(7);
  std::vector<std::string> words = {"a", "b", "c", "d", "e", "f"};
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> sa, sb;
    const int na = static_cast<int>(rng() % 12),
              nb = static_cast<int>(rng() % 12);
    for (int i = 0; i < na; ++i)
      sa.push_back(words[rng() % words.size()] + std::to_string(rng() % 3));
    for (int i = 0; i < nb; ++i)
      sb.push_back(words[rng() % words.size()] + std::to_string(rng() % 3));
    std::vector<std::string_view> a(sa.begin(), sa.end()),
        b(sb.begin(), sb.end());
    CHECK(apply(a, b, line_edits(a, b)) == b);
  }
}

TEST_CASE("unified diff: lines", "[unified_diff]") {
  CHECK(split_lines("").empty());
  CHECK(split_lines("a\n\nb") == std::vector<std::string_view>{"a", "", "b"});
}
