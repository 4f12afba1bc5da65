// Little-endian fields for the journal's files: a writer that appends and
// a reader that fails (ok() false) instead of reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fastrestore::journal {

class Writer {
public:
  void u8(uint8_t v) { out_ += static_cast<char>(v); }
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      u8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    u8(static_cast<uint8_t>(v));
  }
  // Length-prefixed (one varint) bytes.
  void str(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void raw(std::string_view s) { out_.append(s); }
  std::string &bytes() { return out_; }

private:
  void fixed(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::string out_;
};

class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }
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
    if (n > max || n > in_.size() - pos_) {
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
  uint64_t fixed(int n) {
    if (!ok_ || in_.size() - pos_ < static_cast<size_t>(n)) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

} // namespace fastrestore::journal
