// hash64 given in pieces (Hash64Pieces) is hash64 of the pieces joined,
// however the bytes are cut.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sys/hash64.h"

using fastrestore::hash64;
using fastrestore::Hash64Pieces;

TEST_CASE("hash64: the hash of pieces is the hash of the bytes joined",
          "[hash]") {
  std::mt19937 rng(7);
  for (size_t len : {0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 95, 100, 1000, 4099}) {
    std::string bytes(len, '\0');
    for (char &c : bytes)
      c = static_cast<char>(rng());
    const uint64_t whole = hash64(bytes);
    for (int trial = 0; trial < 40; ++trial) {
      // Cut at random places, empty pieces included.
      std::vector<size_t> cuts{0, len};
      for (int i = 0; i < trial % 9; ++i)
        cuts.push_back(len == 0 ? 0 : rng() % (len + 1));
      std::sort(cuts.begin(), cuts.end());
      Hash64Pieces h(len);
      for (size_t i = 0; i + 1 < cuts.size(); ++i)
        h.add(std::string_view(bytes).substr(cuts[i], cuts[i + 1] - cuts[i]));
      INFO("length " << len << ", trial " << trial);
      CHECK(h.value() == whole);
    }
  }
  // Another seed, as hash64(data, seed).
  Hash64Pieces seeded(5, 42);
  seeded.add("ab");
  seeded.add("cde");
  CHECK(seeded.value() == hash64("abcde", 42));
}
