// The longest run of index pairs, taken in order, whose second indexes
// increase too (patience sorting, O(n log n)): the lines two texts keep in
// order (unified_diff.h), the rules a chain keeps in place (delta.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fastrestore {

inline std::vector<std::pair<size_t, size_t>>
longest_increasing_run(const std::vector<std::pair<size_t, size_t>> &pairs) {
  std::vector<size_t> tails; // index into pairs of each run's last element
  std::vector<size_t> prev(pairs.size(), SIZE_MAX);
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto at = std::lower_bound(
        tails.begin(), tails.end(), pairs[i].second,
        [&](size_t t, size_t second) { return pairs[t].second < second; });
    if (at != tails.begin())
      prev[i] = *(at - 1);
    if (at == tails.end())
      tails.push_back(i);
    else
      *at = i;
  }
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX;
       i = prev[i])
    out.push_back(pairs[i]);
  std::reverse(out.begin(), out.end());
  return out;
}

} // namespace fastrestore
