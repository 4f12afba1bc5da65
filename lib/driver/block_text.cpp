#include "block_text.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fastrestore/diagnostic.h"

namespace fastrestore {
namespace {

constexpr size_t kChunk = 1u << 20;

// An unlinked file in $TMPDIR (or /tmp), or -1.
int open_spill_file() {
  const char *dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0')
    dir = "/tmp";
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
  std::string path = std::string(dir) + "/fastrestore-XXXXXX";
  fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd >= 0)
    unlink(path.c_str());
  return fd;
}

void write_all(int fd, const char *p, size_t n, uint64_t at) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      Diagnostic d;
      d.message = std::string("cannot keep the block's text in a temporary "
                              "file: ") +
                  std::strerror(w < 0 ? errno : ENOSPC);
      d.code = ExitCode::format;
      throw Error(std::move(d));
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
}

} // namespace

BlockText::~BlockText() {
  if (fd_ >= 0)
    close(fd_);
}

void BlockText::reset() {
  ends_.clear();
  text_.clear();
  if (text_.capacity() > spill_at_)
    text_.shrink_to_fit();
  if (spilled_ && ftruncate(fd_, 0) != 0) {
    // Only disk space is lost; the next block overwrites from the start.
  }
  written_ = 0;
  spilled_ = false;
  chunk_.clear();
  chunk_at_ = 0;
}

void BlockText::add(int lineno, std::string_view line, uint64_t at) {
  if (ends_.empty())
    first_ = lineno;
  if (source_ >= 0) {
    if (ends_.empty())
      first_at_ = base_ + at;
    ends_.push_back(base_ + at + line.size());
    return;
  }
  text_.append(line);
  uint64_t end = (spilled_ ? written_ : 0) + text_.size();
  ends_.push_back(end);
  if (text_.size() >= (spilled_ ? kChunk : spill_at_))
    spill();
}

void BlockText::spill() {
  if (!spilled_) {
    if (fd_ < 0)
      fd_ = open_spill_file();
    if (fd_ < 0) { // no temporary file: keep the text in memory
      spill_at_ = SIZE_MAX;
      return;
    }
    spilled_ = true;
  }
  flush();
}

void BlockText::flush() const {
  if (!spilled_ || text_.empty())
    return;
  write_all(fd_, text_.data(), text_.size(), written_);
  written_ += text_.size();
  text_.clear();
}

// Line i's start: in the input file after the previous line's newline,
// else where the previous line ends.
uint64_t BlockText::begin_of(int i) const {
  if (source_ >= 0)
    return i == 0 ? first_at_ : ends_[i - 1] + 1;
  return i == 0 ? 0 : ends_[i - 1];
}

std::string_view BlockText::read(uint64_t begin, uint64_t end) const {
  if (source_ < 0 && !spilled_)
    return std::string_view(text_).substr(begin, end - begin);
  flush();
  const int fd = source_ >= 0 ? source_ : fd_;
  const uint64_t limit = source_ >= 0 ? UINT64_MAX : written_;
  if (begin < chunk_at_ || end > chunk_at_ + chunk_.size()) {
    size_t want = static_cast<size_t>(std::max<uint64_t>(kChunk, end - begin));
    want = static_cast<size_t>(std::min<uint64_t>(want, limit - begin));
    chunk_.resize(want);
    size_t got = 0;
    while (got < want) {
      ssize_t r = pread(fd, chunk_.data() + got, want - got,
                        static_cast<off_t>(begin + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += static_cast<size_t>(r);
    }
    chunk_.resize(got);
    chunk_at_ = begin;
    if (end > chunk_at_ + chunk_.size())
      return {};
  }
  return std::string_view(chunk_).substr(begin - chunk_at_, end - begin);
}

std::string BlockText::line(int lineno) const {
  int i = lineno - first_;
  if (i < 0 || i >= count())
    return {};
  return std::string(read(begin_of(i), ends_[i]));
}

void BlockText::each(
    int from, int to,
    const std::function<void(std::string_view, int)> &fn) const {
  for (int n = std::max(from, first_); n <= to && n - first_ < count(); ++n) {
    int i = n - first_;
    fn(read(begin_of(i), ends_[i]), n);
  }
}

} // namespace fastrestore
