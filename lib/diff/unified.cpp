// unified_diff.h: a patience diff (lines found once on each side anchor
// the script, the rest is diffed between them; a stretch without such a
// line is removed and added whole), printed as `diff -u` prints it.
#include "fastrestore/unified_diff.h"

#include "sys/increasing_run.h"

#include <algorithm>
#include <unordered_map>

namespace fastrestore {
namespace {

using Lines = std::vector<std::string_view>;

// Beyond this depth of anchors within anchors a stretch is replaced
// whole: the script stays right, only longer.
constexpr int kMaxDepth = 200;

void diff_range(const Lines &a, size_t a0, size_t a1, const Lines &b, size_t b0,
                size_t b1, int depth, std::vector<Edit> &out) {
  while (a0 < a1 && b0 < b1 && a[a0] == b[b0])
    out.push_back({EditKind::keep, a0++, b0++});
  size_t same_tail = 0;
  while (a1 - same_tail > a0 && b1 - same_tail > b0 &&
         a[a1 - 1 - same_tail] == b[b1 - 1 - same_tail])
    ++same_tail;
  a1 -= same_tail;
  b1 -= same_tail;
  std::vector<std::pair<size_t, size_t>> anchors;
  if (a0 < a1 && b0 < b1 && depth < kMaxDepth) {
    struct Seen {
      size_t in_a = 0, in_b = 0, a = 0, b = 0;
    };
    std::unordered_map<std::string_view, Seen> seen;
    seen.reserve(a1 - a0 + b1 - b0);
    for (size_t i = a0; i < a1; ++i) {
      Seen &s = seen[a[i]];
      ++s.in_a;
      s.a = i;
    }
    for (size_t i = b0; i < b1; ++i) {
      auto it = seen.find(b[i]);
      if (it != seen.end()) {
        ++it->second.in_b;
        it->second.b = i;
      }
    }
    std::vector<std::pair<size_t, size_t>> once;
    for (size_t i = a0; i < a1; ++i) {
      const Seen &s = seen[a[i]];
      if (s.in_a == 1 && s.in_b == 1)
        once.emplace_back(i, s.b);
    }
    anchors = longest_increasing_run(once);
  }
  if (anchors.empty()) {
    for (size_t i = a0; i < a1; ++i)
      out.push_back({EditKind::remove, i, b0});
    for (size_t i = b0; i < b1; ++i)
      out.push_back({EditKind::add, a1, i});
  } else {
    size_t pa = a0, pb = b0;
    for (const auto &[ia, ib] : anchors) {
      diff_range(a, pa, ia, b, pb, ib, depth + 1, out);
      out.push_back({EditKind::keep, ia, ib});
      pa = ia + 1;
      pb = ib + 1;
    }
    diff_range(a, pa, a1, b, pb, b1, depth + 1, out);
  }
  for (size_t k = 0; k < same_tail; ++k)
    out.push_back({EditKind::keep, a1 + k, b1 + k});
}

// "-START[,COUNT]" as diff -u prints a side of a hunk header: an empty
// side names the line before it.
std::string range(char sign, size_t first, size_t count) {
  std::string s(1, sign);
  s += std::to_string(count == 0 ? first : first + 1);
  if (count != 1)
    s += "," + std::to_string(count);
  return s;
}

} // namespace

std::vector<Edit> line_edits(const Lines &a, const Lines &b) {
  std::vector<Edit> out;
  out.reserve(std::max(a.size(), b.size()));
  diff_range(a, 0, a.size(), b, 0, b.size(), 0, out);
  return out;
}

std::string unified_diff(const Lines &a, const Lines &b,
                         const UnifiedDiffOptions &opts) {
  constexpr size_t kContext = 3;
  const std::vector<Edit> edits = line_edits(a, b);
  std::vector<size_t> changes;
  for (size_t i = 0; i < edits.size(); ++i)
    if (edits[i].kind != EditKind::keep)
      changes.push_back(i);
  if (changes.empty())
    return "";
  const char *bold = opts.color ? "\033[1m" : "";
  const char *cyan = opts.color ? "\033[36m" : "";
  const char *red = opts.color ? "\033[31m" : "";
  const char *green = opts.color ? "\033[32m" : "";
  const char *reset = opts.color ? "\033[m" : "";
  std::string out;
  out += bold + std::string("--- ") + opts.a_name + reset + "\n";
  out += bold + std::string("+++ ") + opts.b_name + reset + "\n";
  for (size_t c = 0; c < changes.size();) {
    // A hunk: changes less than two contexts apart, with context around.
    size_t last = c;
    while (last + 1 < changes.size() &&
           changes[last + 1] - changes[last] <= 2 * kContext + 1)
      ++last;
    const size_t from = changes[c] >= kContext ? changes[c] - kContext : 0;
    const size_t to = std::min(edits.size(), changes[last] + kContext + 1);
    size_t a_count = 0, b_count = 0;
    for (size_t i = from; i < to; ++i) {
      a_count += edits[i].kind != EditKind::add;
      b_count += edits[i].kind != EditKind::remove;
    }
    // The first line of each side in the hunk (an empty side: the lines
    // before it; an edit's index on the side it lacks is where it goes).
    const Edit &first = edits[from];
    out += cyan + std::string("@@ ") + range('-', first.a, a_count) + " " +
           range('+', first.b, b_count) + " @@" + reset;
    if (opts.section) {
      const Edit &change = edits[changes[c]];
      const std::string name = change.kind == EditKind::add
                                   ? opts.section(true, change.b)
                                   : opts.section(false, change.a);
      if (!name.empty())
        out += " " + name;
    }
    out += "\n";
    for (size_t i = from; i < to; ++i) {
      const Edit &e = edits[i];
      switch (e.kind) {
      case EditKind::keep:
        out += " ";
        out += a[e.a];
        break;
      case EditKind::remove:
        out += red + std::string("-");
        out += a[e.a];
        out += reset;
        break;
      case EditKind::add:
        out += green + std::string("+");
        out += b[e.b];
        out += reset;
        break;
      }
      out += "\n";
    }
    c = last + 1;
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos)
      nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

} // namespace fastrestore
