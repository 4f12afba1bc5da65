// The text of the current block's lines, kept so that an error found at
// COMMIT (by the checks or the kernel) can show the line it names, and so
// that a block needing the whole-block model can be parsed again.
//
// Small blocks stay in memory. Past `spill_at` bytes the text moves to an
// unlinked temporary file and later lines are appended there, so a block of
// a million rules does not hold its input text in the process's memory
// next to the batch built from it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fastrestore {

class BlockText {
public:
  explicit BlockText(size_t spill_at = 4u << 20) : spill_at_(spill_at) {}
  ~BlockText();
  BlockText(const BlockText &) = delete;
  BlockText &operator=(const BlockText &) = delete;

  // The input is `fd`, a regular file, read from `base` on: its lines can
  // be read again from there, so only their offsets are kept (add() is
  // given each line's offset from `base`).
  void read_from(int fd, uint64_t base) {
    source_ = fd;
    base_ = base;
  }

  // Forgets the lines kept so far (the spill file is reused).
  void reset();
  void add(int lineno, std::string_view line, uint64_t at = 0);

  int first() const { return first_; }
  int count() const { return static_cast<int>(ends_.size()); }
  // The text of line `lineno`, or "" when it is not in the block.
  std::string line(int lineno) const;
  // Calls fn(text, lineno) for the block's lines from..to (inclusive), in
  // order, reading a spilled block in large chunks.
  void each(int from, int to,
            const std::function<void(std::string_view, int)> &fn) const;

  // Whether the text went to the spill file (for tests).
  bool spilled() const { return fd_ >= 0 && spilled_; }

private:
  void spill();
  void flush() const;
  std::string_view read(uint64_t begin, uint64_t end) const;
  uint64_t begin_of(int i) const;

  size_t spill_at_;
  int first_ = 0;
  std::vector<uint64_t> ends_; // end offset of each line within the block
  // In memory: the whole block, or (once spilled) the bytes not yet
  // written to the file.
  mutable std::string text_;
  mutable uint64_t written_ = 0; // bytes of the block in the file
  int fd_ = -1;
  bool spilled_ = false;
  mutable std::string chunk_; // a window of the file, for reads
  mutable uint64_t chunk_at_ = 0;
  int source_ = -1; // read_from(): the input file, not owned
  uint64_t base_ = 0;
  uint64_t first_at_ = 0; // read_from(): the first line's offset
};

} // namespace fastrestore
