// A 64-bit hash of bytes that stays the same across builds, machines and
// versions (it is stored in the state journal): eight bytes at a time,
// each mixed by a multiply and xor-shift (the mixer of splitmix64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fastrestore {

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Continues `h` over `data` (start with hash64_seed).
inline uint64_t hash64(std::string_view data, uint64_t h) {
  const char *p = data.data();
  size_t n = data.size();
  h ^= n * 0x9e3779b97f4a7c15ULL;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix64(h ^ w) + 0x9e3779b97f4a7c15ULL;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return mix64(h ^ tail ^ (uint64_t(n) << 56));
}

constexpr uint64_t hash64_seed = 0x6a09e667f3bcc908ULL;

inline uint64_t hash64(std::string_view data) {
  return hash64(data, hash64_seed);
}

} // namespace fastrestore
