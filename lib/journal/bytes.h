// Little-endian fields for the journal's files: a writer that appends and
// a reader that fails (ok() false) instead of reading past the end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fastrestore::journal {

class Writer {
public:
  void u8(uint8_t v) { *room(1) = static_cast<char>(v); }
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void varint(uint64_t v) {
    char *p = room(10);
    size_t n = 0;
    while (v >= 0x80) {
      p[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    p[n++] = static_cast<char>(v);
    used_ -= 10 - n;
  }
  // Length-prefixed (one varint) bytes.
  void str(std::string_view s) {
    varint(s.size());
    raw(s);
  }
  void raw(std::string_view s) {
    if (!s.empty())
      std::memcpy(room(s.size()), s.data(), s.size());
  }
  // Room for about `n` bytes more, made ahead.
  void reserve(size_t n) { out_.reserve(used_ + n); }
  // The bytes written (the writer is done with them).
  std::string take() {
    out_.resize(used_);
    used_ = 0;
    return std::move(out_);
  }
  std::string_view written() const { return {out_.data(), used_}; }

private:
  // `n` bytes at the end, to be written.
  char *room(size_t n) {
    if (out_.size() < used_ + n)
      out_.resize(std::max(out_.capacity(), 2 * (used_ + n)));
    char *p = out_.data() + used_;
    used_ += n;
    return p;
  }
  void fixed(uint64_t v, int n) {
    char *p = room(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      p[i] = static_cast<char>(v >> (8 * i));
  }
  std::string out_; // its first used_ bytes written
  size_t used_ = 0;
};

class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t u8() { return static_cast<uint8_t>(fixed<1>()); }
  uint32_t u32() { return static_cast<uint32_t>(fixed<4>()); }
  uint64_t u64() { return fixed<8>(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = u8();
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
    }
    ok_ = false;
    return 0;
  }
  std::string_view str(size_t max) {
    const uint64_t n = varint();
    if (n > max) {
      ok_ = false;
      return {};
    }
    return raw(n);
  }
  // The next `n` bytes as they are.
  std::string_view raw(uint64_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  size_t pos() const { return pos_; }
  size_t left() const { return in_.size() - pos_; }

private:
  // (Of a size known when compiled: the copy and the loop unrolled, the
  // reading of a record's 40,000 chain entries kept inline.)
  template <size_t N> uint64_t fixed() {
    if (!ok_ || in_.size() - pos_ < N) {
      ok_ = false;
      return 0;
    }
    unsigned char b[N];
    std::memcpy(b, in_.data() + pos_, N);
    uint64_t v = 0;
    for (size_t i = 0; i < N; ++i)
      v |= uint64_t(b[i]) << (8 * i);
    pos_ += N;
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

} // namespace fastrestore::journal
