// run_order.h: runs found in the text of a save, sorted where their order
// cannot matter.
#include "run_order.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_set>
#include <vector>

#include "ipset/address_less.h"

namespace fastrestore::diff {
namespace {

struct Line {
  std::string_view text; // with its newline
  std::string shape[2];  // without the source [0] or destination [1]
                         // address, the comment and the counters
  std::optional<std::array<uint8_t, 17>> key[2]; // address, prefix length
};

// The end of ` -m comment --comment WORD` at `at` (WORD quoted or not).
size_t comment_end(std::string_view s, size_t at) {
  size_t i = at + std::string_view(" -m comment --comment ").size();
  if (i < s.size() && s[i] == '"') {
    for (++i; i < s.size() && s[i] != '"'; ++i)
      if (s[i] == '\\')
        ++i;
    return std::min(i + 1, s.size());
  }
  const size_t sp = s.find(' ', i);
  return sp == std::string_view::npos ? s.size() : sp;
}

std::optional<std::array<uint8_t, 17>> address(std::string_view word,
                                               bool ipv6) {
  const size_t slash = word.find('/');
  const std::string a(word.substr(0, slash));
  std::array<uint8_t, 17> key{};
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, a.c_str(), key.data()) != 1)
    return std::nullopt;
  unsigned prefix = ipv6 ? 128 : 32;
  if (slash != std::string_view::npos) {
    const std::string p(word.substr(slash + 1));
    if (p.empty() || p.size() > 3 ||
        p.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    prefix = static_cast<unsigned>(std::stoul(p));
  }
  if (prefix == 0 || prefix > (ipv6 ? 128u : 32u))
    return std::nullopt;
  key[16] = static_cast<uint8_t>(prefix);
  return key;
}

Line read_line(std::string_view text, bool ipv6) {
  Line l;
  l.text = text;
  std::string_view s = text;
  if (!s.empty() && s.back() == '\n')
    s.remove_suffix(1);
  if (!s.empty() && s.front() == '[') // counters
    s.remove_prefix(std::min(s.size(), s.find("] ") + 2));
  if (s.rfind("-A ", 0) != 0)
    return l;
  std::string rest(s);
  if (const size_t c = rest.find(" -m comment --comment ");
      c != std::string::npos)
    rest.erase(c, comment_end(rest, c) - c);
  for (int k = 0; k < 2; ++k) {
    const std::string flag = k == 0 ? " -s " : " -d ";
    const size_t at = rest.find(flag);
    // (A negated address, `! -s A`, is no key.)
    if (at == std::string::npos ||
        (at >= 2 && rest.compare(at - 2, 2, " !") == 0))
      continue;
    const size_t word = at + flag.size();
    const size_t end = std::min(rest.find(' ', word), rest.size());
    l.key[k] = address(std::string_view(rest).substr(word, end - word), ipv6);
    if (l.key[k])
      l.shape[k] = rest.substr(0, at) + rest.substr(end);
  }
  return l;
}

// The range of a key (address, prefix length) taken into `ranges`, as
// --optimize takes a run's keys (address_runs.cpp).
bool take(AddressRanges &ranges, const std::array<uint8_t, 17> &key) {
  AddressRanges::Address address{}, mask{};
  const unsigned prefix = key[16];
  for (size_t b = 0; b < 16; ++b) {
    const unsigned at = static_cast<unsigned>(b) * 8;
    const unsigned bits = at >= prefix ? 0 : std::min(8u, prefix - at);
    mask[b] = static_cast<uint8_t>(0xff00u >> bits);
    address[b] = key[b];
  }
  return ranges.take(address, mask);
}

// How many lines from `first` on one run keyed by address `k` (0 source,
// 1 destination) holds.
size_t run_length(const std::vector<Line> &lines, size_t first, int k,
                  bool ipv6) {
  AddressRanges keys(ipv6 ? 16 : 4);
  size_t n = 0;
  for (size_t i = first; i < lines.size(); ++i, ++n)
    if (!lines[i].key[k] || lines[i].shape[k] != lines[first].shape[k] ||
        !take(keys, *lines[i].key[k]))
      break;
  return n;
}

} // namespace

namespace {

std::vector<Line> read_lines(std::string_view save, bool ipv6) {
  std::vector<Line> lines;
  for (size_t at = 0; at < save.size();) {
    size_t nl = save.find('\n', at);
    nl = nl == std::string_view::npos ? save.size() : nl + 1;
    lines.push_back(read_line(save.substr(at, nl - at), ipv6));
    at = nl;
  }
  return lines;
}

// Calls fn(first, n, kind) for each run of `lines` (n >= 2) and each line
// outside one (n == 1, kind -1), in order.
template <typename Fn>
void each_run(const std::vector<Line> &lines, bool ipv6, Fn fn) {
  for (size_t i = 0; i < lines.size();) {
    const size_t by_source = run_length(lines, i, 0, ipv6);
    const size_t by_dest = run_length(lines, i, 1, ipv6);
    const size_t n = std::max(by_source, by_dest);
    if (n >= 2)
      fn(i, n, by_source >= by_dest ? 0 : 1);
    else
      fn(i, size_t{1}, -1);
    i += std::max<size_t>(n, 1);
  }
}

// The run's lines, in `order`, as one text.
std::string joined(const std::vector<Line> &lines,
                   const std::vector<size_t> &order) {
  std::string out;
  for (size_t j : order) {
    out += lines[j].text;
    if (out.back() != '\n')
      out += '\n';
  }
  return out;
}

} // namespace

std::string runs_in_kernel_order(std::string_view after,
                                 std::string_view before, Family family) {
  const bool ipv6 = family == Family::ipv6;
  // The runs of `before`, as text, where they are in address order.
  std::unordered_set<std::string> sorted_runs;
  const std::vector<Line> was = read_lines(before, ipv6);
  each_run(was, ipv6, [&](size_t first, size_t n, int kind) {
    if (kind < 0)
      return;
    std::vector<size_t> order;
    for (size_t j = first; j < first + n; ++j)
      order.push_back(j);
    if (std::is_sorted(order.begin(), order.end(), [&](size_t a, size_t b) {
          return *was[a].key[kind] < *was[b].key[kind];
        }))
      sorted_runs.insert(joined(was, order));
  });
  const std::vector<Line> lines = read_lines(after, ipv6);
  std::string out;
  out.reserve(after.size());
  each_run(lines, ipv6, [&](size_t first, size_t n, int kind) {
    std::vector<size_t> order;
    for (size_t j = first; j < first + n; ++j)
      order.push_back(j);
    if (kind >= 0) {
      std::vector<size_t> sorted = order;
      std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
        return *lines[a].key[kind] < *lines[b].key[kind];
      });
      std::string text = joined(lines, sorted);
      if (sorted_runs.count(text)) {
        out += text;
        return;
      }
    }
    out += joined(lines, order);
  });
  if (!after.empty() && after.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

} // namespace fastrestore::diff
