// Addresses (16 bytes in network order, IPv4 in the first 4) ordered as
// std::array's operator< orders them, but compared as two big-endian
// words: the runs and sets of --optimize sort and look up 100,000s of
// them, and a memcmp call each cost a fifth of a reload.
#pragma once

#include <endian.h>

#include <array>
#include <cstdint>
#include <cstring>

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

} // namespace fastrestore
