// A set of names (the chains a block declares), kept in one buffer and
// found through a HashIndex: a reload declaring 40,000 chains made two
// allocations for each in a set of strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sys/hash64.h"
#include "sys/hash_index.h"

namespace fastrestore {

class NameSet {
public:
  void insert(std::string_view name) {
    const uint64_t h = hash64(name);
    if (find(h, name))
      return;
    index_.put(h, static_cast<uint32_t>(text_.size()),
               static_cast<uint32_t>(name.size()));
    text_.append(name);
  }
  bool contains(std::string_view name) const {
    return find(hash64(name), name);
  }

private:
  bool find(uint64_t h, std::string_view name) const {
    return index_.find(h, [&](const HashIndex::Entry &e) {
      return std::string_view(text_).substr(e.a, e.b) == name;
    }) != nullptr;
  }
  std::string text_; // the names, one after another
  HashIndex index_;  // each name's offset and length in text_
};

} // namespace fastrestore
