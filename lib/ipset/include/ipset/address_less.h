// Addresses (16 bytes in network order, IPv4 in the first 4) ordered as
// std::array's operator< orders them, but compared as two big-endian
// words: the runs and sets of --optimize sort and look up 100,000s of
// them, and a memcmp call each cost a fifth of a reload. And the keys of
// such a run kept as address ranges, which must not overlap.
#pragma once

#include <endian.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>

namespace fastrestore {

struct AddressLess {
  bool operator()(const std::array<uint8_t, 16> &a,
                  const std::array<uint8_t, 16> &b) const {
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 8);
    std::memcpy(&b0, b.data(), 8);
    if (a0 != b0)
      return be64toh(a0) < be64toh(b0);
    std::memcpy(&a1, a.data() + 8, 8);
    std::memcpy(&b1, b.data() + 8, 8);
    return be64toh(a1) < be64toh(b1);
  }
};

// Address ranges [first, last], each taken only when it overlaps none
// taken before (CIDR ranges are nested or apart): the keys of one run of
// --optimize, which no packet may match twice.
class AddressRanges {
public:
  using Address = std::array<uint8_t, 16>;

  // `width`: 4 (IPv4) or 16 bytes.
  explicit AddressRanges(size_t width) : width_(width) {}

  // The range of `address` under `mask`.
  bool take(const Address &address, const Address &mask) {
    Address first{}, last{};
    for (size_t i = 0; i < width_; ++i) {
      first[i] = address[i] & mask[i];
      last[i] = static_cast<uint8_t>(first[i] | ~mask[i]);
    }
    auto after = ranges_.upper_bound(first);
    const AddressLess less;
    if (after != ranges_.end() && !less(last, after->first))
      return false; // a later range starts inside this one
    if (after != ranges_.begin() && !less(std::prev(after)->second, first))
      return false; // an earlier range reaches into this one
    ranges_.emplace(first, last);
    return true;
  }

private:
  size_t width_;
  std::map<Address, Address, AddressLess> ranges_; // first -> last
};

} // namespace fastrestore
