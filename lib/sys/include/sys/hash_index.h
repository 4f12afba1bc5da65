// Entries found by a 64-bit hash (hash64 of a line or of a chain's name):
// an open-addressing table whose slot is the hash's low bits, without an
// allocation per entry. An incremental reload looks up each of 100,000s
// of lines and 10,000s of chain names; maps of nodes allocated and freed
// one per entry, part of the quarter of such a reload's instructions that
// went to malloc and free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "sys/hash64.h"

namespace fastrestore {

class HashIndex {
public:
  struct Entry {
    uint64_t hash; // 0: a free slot
    uint32_t a, b; // the caller's (a chain and a rule, say)
  };

  HashIndex() = default;
  // Room for `n` entries without growing (at least twice as many slots).
  explicit HashIndex(size_t n) {
    size_t size = 16;
    while (size < 2 * n)
      size *= 2;
    slots_.assign(size, Entry{0, 0, 0});
  }

  // Adds an entry (one with hash 0 is left out); entries of one hash are
  // found in the order they were put.
  void put(uint64_t hash, uint32_t a, uint32_t b = 0) {
    if (hash == 0)
      return;
    if (2 * (count_ + 1) > slots_.size())
      grow();
    place(Entry{hash, a, b});
    ++count_;
  }

  // The first entry of `hash` that `is` takes (nullptr: none).
  template <typename Pred> const Entry *find(uint64_t hash, Pred is) const {
    if (hash == 0 || slots_.empty())
      return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask; slots_[i].hash != 0; i = (i + 1) & mask)
      if (slots_[i].hash == hash && is(slots_[i]))
        return &slots_[i];
    return nullptr;
  }
  const Entry *find(uint64_t hash) const {
    return find(hash, [](const Entry &) { return true; });
  }
  // The first entry put under hash64(name) whose own name, as `name_of`
  // gives it for the entry, is `name` (nullptr: none).
  template <typename NameOf>
  const Entry *find_name(std::string_view name, NameOf name_of) const {
    return find(hash64(name),
                [&](const Entry &e) { return name_of(e) == name; });
  }
  // As find, the entry's a and b to be changed.
  template <typename Pred> Entry *find(uint64_t hash, Pred is) {
    return const_cast<Entry *>(std::as_const(*this).find(hash, is));
  }

  // No room made: default-constructed, and nothing put since.
  bool empty() const { return slots_.empty(); }

private:
  void place(const Entry &e) {
    const size_t mask = slots_.size() - 1;
    size_t i = e.hash & mask;
    while (slots_[i].hash != 0)
      i = (i + 1) & mask;
    slots_[i] = e;
  }

  // Twice the slots. The entries go in again from just after a free
  // slot, so that those of one hash keep their order.
  void grow() {
    std::vector<Entry> old(std::max<size_t>(16, 2 * slots_.size()),
                           Entry{0, 0, 0});
    old.swap(slots_);
    size_t start = 0;
    while (start < old.size() && old[start].hash != 0)
      ++start;
    for (size_t k = 0; k < old.size(); ++k) {
      const Entry &e = old[(start + k) % old.size()];
      if (e.hash != 0)
        place(e);
    }
  }

  std::vector<Entry> slots_;
  size_t count_ = 0;
};

} // namespace fastrestore
