#include "line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastrestore/diagnostic.h"

namespace fastrestore {

bool LineReader::ready_within(int ms) {
  if (eof_ || std::memchr(buf_.get() + begin_, '\n', end_ - begin_) != nullptr)
    return true;
  pollfd p{fd_, POLLIN, 0};
  int n;
  while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR) {
  }
  return n != 0;
}

bool LineReader::next(std::string_view &line) {
  if (long_line_used_) {
    long_line_.clear();
    long_line_used_ = false;
  }
  for (;;) {
    const char *start = buf_.get() + begin_;
    const void *nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      size_t len = static_cast<const char *>(nl) - start;
      begin_ += len + 1;
      line_at_ = buf_at_ + begin_ - 1 - len - long_line_.size();
      if (!long_line_.empty()) {
        long_line_.append(start, len);
        line = long_line_;
        long_line_used_ = true;
        return true;
      }
      line = std::string_view(start, len);
      return true;
    }
    if (eof_) {
      if (begin_ == end_ && long_line_.empty())
        return false;
      long_line_.append(start, end_ - begin_);
      begin_ = end_;
      line_at_ = buf_at_ + end_ - long_line_.size();
      line = long_line_;
      long_line_used_ = true;
      return true;
    }
    // Keep the partial line: move it to the front, or spill it when a
    // single line fills the whole buffer.
    if (begin_ > 0) {
      std::memmove(buf_.get(), start, end_ - begin_);
      end_ -= begin_;
      buf_at_ += begin_;
      begin_ = 0;
    } else if (end_ == kSize) {
      long_line_.append(buf_.get(), end_);
      buf_at_ += end_;
      begin_ = end_ = 0;
    }
    if (cancel_fd_ >= 0) {
      pollfd p[2] = {{fd_, POLLIN, 0}, {cancel_fd_, POLLIN, 0}};
      while (poll(p, 2, -1) < 0 && errno == EINTR) {
      }
      if (p[1].revents != 0)
        return false;
    }
    ssize_t n;
    do {
      n = read(fd_, buf_.get() + end_, kSize - end_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      Diagnostic d;
      d.message = std::string("read error: ") + std::strerror(errno);
      d.code = ExitCode::format;
      throw Error(std::move(d));
    }
    if (n == 0)
      eof_ = true;
    end_ += static_cast<size_t>(n);
  }
}

} // namespace fastrestore
