// Reads lines from a file descriptor in large chunks, handing out each line
// as soon as its newline arrives (so a pipe is served line by line).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fastrestore {

class LineReader {
public:
  // The buffer is not cleared: pages are touched only as input arrives.
  explicit LineReader(int fd) : fd_(fd), buf_(new char[kSize]) {}
  // False at end of input; the view is valid until the next call. A final
  // line without a newline is returned too. Throws Error on a read error.
  bool next(std::string_view &line);
  // Whether a whole line (or the end of input) is at hand, waiting up to
  // `ms` milliseconds for input to arrive.
  bool ready_within(int ms);
  // Before each read, wait for `fd` too: once it is readable, next()
  // returns false as at the end of input (so a reader blocked on a quiet
  // pipe can be stopped).
  void cancel_with(int fd) { cancel_fd_ = fd; }
  // Where the last line returned starts, in bytes from where reading began.
  uint64_t line_offset() const { return line_at_; }

private:
  int fd_;
  static constexpr size_t kSize = 1 << 20;
  std::unique_ptr<char[]> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t buf_at_ = 0;  // the input's offset of buf_[0]
  uint64_t line_at_ = 0; // the input's offset of the last line
  bool eof_ = false;
  int cancel_fd_ = -1;
  std::string long_line_;
  bool long_line_used_ = false;
};

} // namespace fastrestore
