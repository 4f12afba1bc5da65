// HashIndex (lib/sys/include/sys/hash_index.h): entries found by hash,
// several of one hash in the order they were put, none for hash 0.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sys/hash64.h"
#include "sys/hash_index.h"
#include "sys/name_set.h"

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

TEST_CASE("hash index: a table that grows keeps every entry, and those of "
          "one hash in order",
          "[hash_index]") {
  HashIndex index; // no room made
  CHECK(index.empty());
  CHECK(index.find(15) == nullptr);
  // Entries of hash 15 wrap around the end of the first 16 slots, then
  // the table grows several times.
  for (uint32_t i = 0; i < 6; ++i)
    index.put(15, i);
  for (uint32_t i = 0; i < 1000; ++i)
    index.put(hash64(std::to_string(i)), i, 1);
  for (uint32_t i = 6; i < 9; ++i)
    index.put(15, i);
  CHECK_FALSE(index.empty());
  for (uint32_t i = 0; i < 1000; ++i) {
    const HashIndex::Entry *e =
        index.find(hash64(std::to_string(i)),
                   [](const HashIndex::Entry &x) { return x.b == 1; });
    REQUIRE(e != nullptr);
    CHECK(e->a == i);
  }
  std::vector<uint32_t> order;
  for (uint32_t skip = 0; skip < 9; ++skip)
    order.push_back(
        index.find(15, [&](const HashIndex::Entry &x) { return x.a >= skip; })
            ->a);
  CHECK(order == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("hash index: an entry found by its name, others of its hash "
          "passed over",
          "[hash_index]") {
  const std::vector<std::string> names = {"x", "KUBE-SERVICES", "web", "web"};
  HashIndex index;
  // Put first under the hash of "KUBE-SERVICES", but named "x".
  index.put(hash64("KUBE-SERVICES"), 0);
  for (size_t i = 1; i < names.size(); ++i)
    index.put(hash64(names[i]), static_cast<uint32_t>(i));
  auto name_of = [&](const HashIndex::Entry &e) {
    return std::string_view(names[e.a]);
  };
  const HashIndex::Entry *e = index.find_name("KUBE-SERVICES", name_of);
  REQUIRE(e != nullptr);
  CHECK(e->a == 1);
  CHECK(index.find_name("web", name_of)->a == 2);  // the first put
  CHECK(index.find_name("x", name_of) == nullptr); // not under its own hash
  CHECK(index.find_name("KUBE", name_of) == nullptr);
}

TEST_CASE("name set: names found by their text", "[hash_index]") {
  fastrestore::NameSet names;
  CHECK_FALSE(names.contains("web"));
  names.insert("web");
  names.insert("KUBE-SEP-0123456789ABCDEF");
  names.insert("web");
  CHECK(names.contains("web"));
  CHECK(names.contains("KUBE-SEP-0123456789ABCDEF"));
  CHECK_FALSE(names.contains("we"));
  CHECK_FALSE(names.contains("webweb"));
  CHECK_FALSE(names.contains(""));
}
