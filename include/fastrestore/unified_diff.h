// A unified diff of two texts' lines, as `diff -u` prints it (three lines
// of context), each hunk header naming the section its first change falls
// in, the way `git diff` names a function.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fastrestore {

// The operations that turn `a` into `b`: for each line of the script,
// which side it comes from. A line both sides keep appears once.
enum class EditKind { keep, remove, add };
struct Edit {
  EditKind kind;
  size_t a, b; // the line's index in a (keep, remove) and b (keep, add)
};
std::vector<Edit> line_edits(const std::vector<std::string_view> &a,
                             const std::vector<std::string_view> &b);

struct UnifiedDiffOptions {
  std::string a_name, b_name; // after `--- ` and `+++ `
  bool color = false;         // ANSI colours, as `diff --color` uses them
  // The section a line falls in (`b_side`: an index into b, else into a),
  // printed after a hunk's `@@ ... @@`; empty for none.
  std::function<std::string(bool b_side, size_t line)> section;
};

// "" when the texts are the same.
std::string unified_diff(const std::vector<std::string_view> &a,
                         const std::vector<std::string_view> &b,
                         const UnifiedDiffOptions &opts);

// The lines of `text` (without their newlines; a last line without one
// counts).
std::vector<std::string_view> split_lines(std::string_view text);

} // namespace fastrestore
