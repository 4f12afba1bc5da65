// ebtables' among match as its plugin stores it (libebt_among's struct
// nft_among_data): per direction the count of (MAC[, IPv4]) pairs,
// whether it is inverted and whether addresses are given, then the pairs,
// each a 6-byte MAC, 2 bytes of padding and a 4-byte IPv4 address. Read by
// its lowering (lib/ext/match_among.cpp), by the batch that makes its
// anonymous sets, by the save's decoder (which raise_match_among, ext.h,
// writes it for) and by ebtables' atomic files. Header only: it reads the
// IR's bytes and depends on nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fastrestore/ir.h"

namespace fastrestore {

struct AmongSide {
  size_t count = 0;
  bool inv = false, ip = false;
  const uint8_t *pairs = nullptr;
};
constexpr size_t kAmongPairSize = 12;
// struct { size_t cnt; bool inv; bool ip; } src, dst; then the pairs.
constexpr size_t kAmongSideSize = sizeof(size_t) * 2;
constexpr size_t kAmongHeadSize = 2 * kAmongSideSize;

// The pairs both directions of an among struct announce.
inline size_t among_pair_count(const uint8_t *data) {
  size_t src = 0, dst = 0;
  std::memcpy(&src, data, sizeof(size_t));
  std::memcpy(&dst, data + kAmongSideSize, sizeof(size_t));
  return src + dst;
}

// The two directions of among match `m`; false when its data is too short
// for what it announces.
inline bool parse_among(const XtBlob &m, AmongSide &src, AmongSide &dst) {
  const size_t side = kAmongSideSize, head = kAmongHeadSize;
  if (m.data.size() < head)
    return false;
  auto read = [&](size_t off, AmongSide &s) {
    std::memcpy(&s.count, m.data.data() + off, sizeof(size_t));
    s.inv = m.data[off + sizeof(size_t)] != 0;
    s.ip = m.data[off + sizeof(size_t) + 1] != 0;
  };
  read(0, src);
  read(side, dst);
  if ((src.count + dst.count) * kAmongPairSize > m.data.size() - head)
    return false;
  src.pairs = m.data.data() + head;
  dst.pairs = src.pairs + src.count * kAmongPairSize;
  return true;
}

} // namespace fastrestore
