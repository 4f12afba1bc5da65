// Reads lines from a file descriptor in large chunks, handing out each line
// as soon as its newline arrives (so a pipe is served line by line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fastrestore {

class LineReader {
public:
  explicit LineReader(int fd) : fd_(fd), buf_(1 << 20) {}
  // False at end of input; the view is valid until the next call. A final
  // line without a newline is returned too. Throws Error on a read error.
  bool next(std::string_view &line);

private:
  int fd_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::string long_line_;
  bool long_line_used_ = false;
};

} // namespace fastrestore
