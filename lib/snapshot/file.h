// Snapshot files on disk: written atomically (a temporary file beside the
// target, fsync, rename, fsync of the directory), read through mmap.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format.h"

namespace fastrestore::snapshot {

// Throws SnapshotError: "WHAT PATH: strerror(errno)".
[[noreturn]] void io_fail(const std::string &what, const std::string &path);
// Writes all n bytes at offset `at` (retrying short writes), or throws.
void pwrite_all(int fd, const void *data, size_t n, uint64_t at,
                const std::string &path);

class FileWriter {
public:
  // Creates the temporary file; throws SnapshotError.
  explicit FileWriter(const std::string &path);
  ~FileWriter(); // removes the temporary file unless finish() ran
  FileWriter(const FileWriter &) = delete;
  FileWriter &operator=(const FileWriter &) = delete;

  // Appends payload bytes (objects, then the directory).
  void write(const void *data, size_t len);
  uint64_t written() const { return written_; }
  // The crc32 of what was written since the last take_crc(), and a fresh
  // start for the next part.
  uint32_t take_crc() {
    uint32_t c = crc_;
    crc_ = 0;
    return c;
  }
  // Starts the payload again (a dump that has to be retried).
  void restart();
  // Writes the header (sealed here) and puts the file in place.
  void finish(Header &h);

private:
  void flush();

  std::string path_, tmp_;
  int fd_ = -1;
  std::vector<char> buf_;
  uint64_t written_ = 0;
  uint64_t pos_ = 0; // where the next flush goes in the file
  uint32_t crc_ = 0;
  bool done_ = false;
};

class MappedFile {
public:
  // Throws SnapshotError naming the file: missing, unreadable, a directory.
  // "-" is standard input.
  explicit MappedFile(const std::string &path);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  std::string_view bytes() const { return bytes_; }

private:
  void *map_ = nullptr;
  size_t len_ = 0;
  std::string copy_; // a file that cannot be mapped (a pipe)
  std::string_view bytes_;
};

} // namespace fastrestore::snapshot
