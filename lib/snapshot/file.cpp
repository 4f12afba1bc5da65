#include "file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace fastrestore::snapshot {
namespace {

constexpr size_t kBuffer = 4u << 20;

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

void io_fail(const std::string &what, const std::string &path) {
  throw SnapshotError(what + " " + path + ": " + std::strerror(errno));
}

void pwrite_all(int fd, const void *data, size_t n, uint64_t at,
                const std::string &path) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      io_fail("cannot write", path);
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
}

FileWriter::FileWriter(const std::string &path) : path_(path) {
  std::string base = path.substr(path.rfind('/') + 1);
  tmp_ = dir_of(path) + "/." + base + ".XXXXXX";
  fd_ = mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd_ < 0)
    io_fail("cannot create a temporary file for", path);
  buf_.reserve(kBuffer);
  Header zero{};
  pwrite_all(fd_, &zero, sizeof(zero), 0, tmp_);
  pos_ = sizeof(zero);
}

FileWriter::~FileWriter() {
  if (fd_ >= 0)
    close(fd_);
  if (!done_)
    unlink(tmp_.c_str());
}

void FileWriter::write(const void *data, size_t len) {
  crc_ = crc32_of(crc_, data, len);
  written_ += len;
  const char *p = static_cast<const char *>(data);
  if (buf_.size() + len > kBuffer)
    flush();
  if (len >= kBuffer) {
    pwrite_all(fd_, p, len, pos_, tmp_);
    pos_ += len;
    return;
  }
  buf_.insert(buf_.end(), p, p + len);
}

void FileWriter::flush() {
  pwrite_all(fd_, buf_.data(), buf_.size(), pos_, tmp_);
  pos_ += buf_.size();
  buf_.clear();
}

void FileWriter::restart() {
  buf_.clear();
  written_ = 0;
  crc_ = 0;
  pos_ = sizeof(Header);
  if (ftruncate(fd_, sizeof(Header)) != 0)
    io_fail("cannot rewrite", tmp_);
}

void FileWriter::finish(Header &h) {
  flush();
  seal_header(h);
  if (pwrite(fd_, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h)))
    io_fail("cannot write", tmp_);
  if (fsync(fd_) != 0)
    io_fail("cannot sync", tmp_);
  close(fd_);
  fd_ = -1;
  if (rename(tmp_.c_str(), path_.c_str()) != 0)
    io_fail("cannot put the snapshot in place at", path_);
  done_ = true;
  // The rename itself survives a crash once the directory is synced.
  int dfd = open(dir_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
}

MappedFile::MappedFile(const std::string &path) {
  // "-": standard input (a pipe is read whole, a file mapped).
  int fd = path == "-" ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                       : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    io_fail("cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    io_fail("cannot read", path);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    throw SnapshotError(path + " is a directory, not a snapshot");
  }
  if (S_ISREG(st.st_mode)) {
    len_ = static_cast<size_t>(st.st_size);
    if (len_ > 0) {
      map_ = mmap(nullptr, len_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (map_ == MAP_FAILED) {
        map_ = nullptr;
        close(fd);
        io_fail("cannot map", path);
      }
      bytes_ = std::string_view(static_cast<const char *>(map_), len_);
    }
  } else { // a pipe or a device: read it all
    char buf[1 << 16];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        close(fd);
        io_fail("cannot read", path);
      }
      if (n == 0)
        break;
      copy_.append(buf, static_cast<size_t>(n));
    }
    bytes_ = copy_;
  }
  close(fd);
}

MappedFile::~MappedFile() {
  if (map_ != nullptr)
    munmap(map_, len_);
}

} // namespace fastrestore::snapshot
