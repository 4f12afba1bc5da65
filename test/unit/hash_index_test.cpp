// HashIndex (include/fastrestore/hash_index.h): entries found by hash,
// several of one hash in the order they were put, none for hash 0.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fastrestore/hash64.h"
#include "fastrestore/hash_index.h"

using fastrestore::hash64;
using fastrestore::HashIndex;

TEST_CASE("hash index: every entry put is found, and nothing else",
          "[hash_index]") {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i)
    names.push_back("KUBE-SEP-" + std::to_string(i));
  HashIndex index(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    index.put(hash64(names[i]), static_cast<uint32_t>(i), 7);
  for (size_t i = 0; i < names.size(); ++i) {
    const HashIndex::Entry *e = index.find(hash64(names[i]));
    REQUIRE(e != nullptr);
    CHECK(e->a == i);
    CHECK(e->b == 7);
  }
  CHECK(index.find(hash64("KUBE-SEP-5000")) == nullptr);
  CHECK(index.find(0) == nullptr);
  CHECK(HashIndex().find(hash64(names[0])) == nullptr);
}

TEST_CASE("hash index: entries of one hash in the order they were put, "
          "told apart by the caller",
          "[hash_index]") {
  // Small enough that the probes wrap around the table's end.
  HashIndex index(3);
  const uint64_t h = 15; // the last of its 16 slots
  index.put(h, 1);
  index.put(h, 2);
  index.put(h, 3);
  index.put(0, 4); // hash 0 marks a free slot: left out
  CHECK(index.find(h)->a == 1);
  CHECK(index.find(h, [](const HashIndex::Entry &e) { return e.a != 1; })->a ==
        2);
  CHECK(index.find(h, [](const HashIndex::Entry &e) { return e.a == 3; })->a ==
        3);
  CHECK(index.find(h, [](const HashIndex::Entry &e) { return e.a == 4; }) ==
        nullptr);
  CHECK(index.find(h + 16) == nullptr); // same slot, another hash
}
