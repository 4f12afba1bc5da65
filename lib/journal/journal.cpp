// The journal's directory (journal.h): trust checks, the namespace's
// index, writing under a lock, pruning.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string_view>

#include "journal/journal.h"

namespace fastrestore {
namespace {

constexpr size_t kMaxIndex = 1 << 20;
constexpr size_t kMaxTable = size_t(512) << 20;
constexpr size_t kMaxFiles = 1024;
constexpr uint64_t kMaxBytes = uint64_t(256) << 20;
constexpr time_t kMaxAge = 30 * 24 * 3600;

std::string errno_text(const char *what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Owned by root and writable by root alone.
bool root_only(const struct stat &st) {
  return st.st_uid == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool trusted_dir(const std::string &dir, std::string *why) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    *why = errno == ENOENT ? "no journal directory " + dir
                           : errno_text(("cannot see " + dir).c_str());
    return false;
  }
  if (!S_ISDIR(st.st_mode) || !root_only(st)) {
    *why = dir + " is not a directory owned and writable by root alone";
    return false;
  }
  return true;
}

} // namespace

// A file mapped for reading when it is a regular file, not reached through
// a symlink, owned and writable by root alone, of at most `max` bytes;
// unmapped on destruction. Mapped, not read: a command that reads one
// chain of a record touches that chain's pages alone, and nothing is
// copied or zeroed first.
class TrustedFile {
public:
  TrustedFile(const std::string &path, size_t max, std::string *why) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
                                          O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      *why = errno == ENOENT  ? "no record"
             : errno == ELOOP ? path + " is a symlink"
                              : errno_text(("cannot open " + path).c_str());
      return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !root_only(st) ||
        static_cast<uint64_t>(st.st_size) > max) {
      *why = path + " is not a regular file owned and writable by root alone";
      close(fd);
      return;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ != 0) {
      void *at = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (at == MAP_FAILED) {
        *why = errno_text(("cannot read " + path).c_str());
        close(fd);
        size_ = 0;
        return;
      }
      data_ = static_cast<const char *>(at);
    }
    close(fd);
    open_ = true;
  }
  TrustedFile(const TrustedFile &) = delete;
  TrustedFile &operator=(const TrustedFile &) = delete;
  ~TrustedFile() {
    if (data_ != nullptr)
      munmap(const_cast<char *>(data_), size_);
  }
  bool is_open() const { return open_; }
  // The file's bytes (a file changed under the mapping is another's
  // doing: records are replaced by rename, never written in place).
  std::string_view bytes() const { return {data_, size_}; }

  // `len` bytes at `offset`; false when the file has fewer.
  bool read_at(uint64_t offset, size_t len, std::string_view &out) const {
    if (offset > size_ || len > size_ - offset)
      return false;
    out = bytes().substr(offset, len);
    return true;
  }

private:
  const char *data_ = nullptr;
  size_t size_ = 0;
  bool open_ = false;
};

namespace {

// The file at `path` mapped when it is a TrustedFile; null, with the
// reason, when not.
std::unique_ptr<TrustedFile> read_trusted(const std::string &path, size_t max,
                                          std::string *why) {
  auto file = std::make_unique<TrustedFile>(path, max, why);
  if (!file->is_open())
    return nullptr;
  return file;
}

// Writes `pieces`, in order, to `path` by way of a new file renamed over
// it.
bool write_file(const std::string &dir, const std::string &path,
                const std::vector<std::string_view> &pieces, std::string *why) {
  const std::string tmp = dir + "/.tmp." + std::to_string(getpid()) + "." +
                          std::to_string(std::rand());
  const int fd = open(
      tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    *why = errno_text(("cannot write in " + dir).c_str());
    return false;
  }
  std::vector<iovec> left;
  left.reserve(pieces.size());
  for (std::string_view p : pieces)
    if (!p.empty())
      left.push_back({const_cast<char *>(p.data()), p.size()});
  size_t at = 0; // the first iovec not written whole
  bool ok = true;
  while (at < left.size()) {
    const int count =
        static_cast<int>(std::min<size_t>(left.size() - at, IOV_MAX));
    ssize_t n = writev(fd, left.data() + at, count);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    for (; at < left.size() && static_cast<size_t>(n) >= left[at].iov_len; ++at)
      n -= static_cast<ssize_t>(left[at].iov_len);
    if (n > 0) {
      left[at].iov_base = static_cast<char *>(left[at].iov_base) + n;
      left[at].iov_len -= static_cast<size_t>(n);
    }
  }
  if (!ok)
    *why = errno_text(("cannot write " + tmp).c_str());
  close(fd);
  if (ok && rename(tmp.c_str(), path.c_str()) == 0)
    return true;
  if (ok)
    *why = errno_text(("cannot rename " + tmp).c_str());
  unlink(tmp.c_str());
  return false;
}

uint64_t new_serial() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
    v = (static_cast<uint64_t>(time(nullptr)) << 20) ^
        static_cast<uint64_t>(getpid()) ^ static_cast<uint64_t>(clock());
  return v;
}

bool journaled_name(const std::string &table) {
  return !table.empty() && table.size() <= 64 &&
         std::all_of(table.begin(), table.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '_';
         });
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

bool hex_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Whether `name` is one the journal writes: `.tmp.<pid>.<n>`,
// `<boot>-<cookie>.index` or `<boot>-<cookie>-<family>-<table>.table`
// (the lock file is never pruned). Pruning touches no other name.
bool journal_file_name(std::string_view name) {
  if (name.rfind(".tmp.", 0) == 0) {
    const std::string_view rest = name.substr(5);
    const size_t dot = rest.find('.');
    return dot != std::string_view::npos && digits(rest.substr(0, dot)) &&
           digits(rest.substr(dot + 1));
  }
  if (name.size() < 34 || !hex_digits(name.substr(0, 32)) || name[32] != '-')
    return false;
  std::string_view rest = name.substr(33);
  size_t end = 0;
  while (end < rest.size() && rest[end] >= '0' && rest[end] <= '9')
    ++end;
  if (end == 0)
    return false;
  rest.remove_prefix(end);
  if (rest == ".index")
    return true;
  constexpr std::string_view kTable = ".table";
  if (rest.size() < 3 || rest[0] != '-' || rest.size() <= kTable.size() ||
      rest.substr(rest.size() - kTable.size()) != kTable)
    return false;
  rest = rest.substr(1, rest.size() - 1 - kTable.size());
  const size_t dash = rest.find('-');
  return dash != std::string_view::npos && digits(rest.substr(0, dash)) &&
         journaled_name(std::string(rest.substr(dash + 1)));
}

} // namespace

// An exclusive lock on the directory's lock file, released on destruction.
class DirLock {
public:
  DirLock(const std::string &dir, std::string *why) {
    fd_ = open((dir + "/lock").c_str(),
               O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      *why = errno_text(("cannot lock " + dir).c_str());
      return;
    }
    while (flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        *why = errno_text(("cannot lock " + dir).c_str());
        close(fd_);
        fd_ = -1;
        return;
      }
    }
  }
  ~DirLock() {
    if (fd_ >= 0)
      close(fd_);
  }
  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

std::string Journal::default_dir() {
  if (const char *dir = std::getenv("FASTRESTORE_JOURNAL_DIR"))
    return dir;
  return "/run/fastrestore";
}

Journal::Journal(std::string dir, NetnsId ns)
    : dir_(std::move(dir)), ns_(std::move(ns)) {}

std::string Journal::prefix() const {
  return ns_.boot + "-" + std::to_string(ns_.cookie);
}

std::string Journal::index_path() const {
  return dir_ + "/" + prefix() + ".index";
}

std::string Journal::table_path(uint32_t family,
                                const std::string &table) const {
  return dir_ + "/" + prefix() + "-" + std::to_string(family) + "-" + table +
         ".table";
}

std::optional<uint64_t> Journal::current_serial(uint32_t family,
                                                const std::string &table,
                                                uint32_t generation,
                                                std::string *why) const {
  if (!journaled_name(table)) {
    *why = "table name not journaled";
    return std::nullopt;
  }
  if (!trusted_dir(dir_, why))
    return std::nullopt;
  const std::unique_ptr<TrustedFile> file =
      read_trusted(index_path(), kMaxIndex, why);
  if (!file)
    return std::nullopt;
  std::optional<JournalIndex> index = decode_index(file->bytes(), ns_, why);
  if (!index) {
    *why = "index " + *why;
    return std::nullopt;
  }
  if (index->generation != generation) {
    *why = "stale: the ruleset changed since (generation " +
           std::to_string(index->generation) + ", now " +
           std::to_string(generation) + ")";
    return std::nullopt;
  }
  for (const auto &e : index->tables)
    if (e.family == family && e.table == table)
      return e.serial;
  *why = "no record of this table";
  return std::nullopt;
}

std::unique_ptr<TrustedFile> Journal::current_file(uint32_t family,
                                                   const std::string &table,
                                                   uint32_t generation,
                                                   uint64_t &serial,
                                                   std::string *why) const {
  const std::optional<uint64_t> current =
      current_serial(family, table, generation, why);
  if (!current)
    return nullptr;
  serial = *current;
  return read_trusted(table_path(family, table), kMaxTable, why);
}

std::optional<TableState> Journal::load(uint32_t family,
                                        const std::string &table,
                                        uint32_t generation,
                                        std::string *why) const {
  uint64_t serial = 0;
  const std::unique_ptr<TrustedFile> file =
      current_file(family, table, generation, serial, why);
  if (!file)
    return std::nullopt;
  std::optional<TableState> state = decode_table_record(
      file->bytes(), JournalKey{ns_, family, table}, serial, why);
  if (!state)
    *why = "record " + *why;
  return state;
}

bool Journal::read_parts(
    uint32_t family, const std::string &table, uint32_t generation,
    std::string *why,
    const std::function<bool(const ReadAt &, const JournalKey &, uint64_t)>
        &decode) const {
  const std::optional<uint64_t> serial =
      current_serial(family, table, generation, why);
  if (!serial)
    return false;
  TrustedFile file(table_path(family, table), kMaxTable, why);
  if (!file.is_open())
    return false;
  const ReadAt read = [&](uint64_t offset, size_t len,
                          std::string_view &bytes) {
    return file.read_at(offset, len, bytes);
  };
  if (decode(read, JournalKey{ns_, family, table}, *serial))
    return true;
  *why = "record " + *why;
  return false;
}

std::optional<ChainRecord> Journal::load_chain(uint32_t family,
                                               const std::string &table,
                                               const std::string &chain,
                                               uint32_t generation,
                                               std::string *why) const {
  std::optional<ChainRecord> out;
  read_parts(family, table, generation, why,
             [&](const ReadAt &read, const JournalKey &key, uint64_t serial) {
               out = decode_chain_record(read, key, serial, chain, why);
               return out.has_value();
             });
  return out;
}

std::optional<RuleLookup>
Journal::find_rule(uint32_t family, const std::string &table,
                   const std::string &chain, std::pair<uint64_t, uint64_t> keys,
                   uint32_t generation, std::string *why) const {
  std::optional<RuleLookup> out;
  read_parts(family, table, generation, why,
             [&](const ReadAt &read, const JournalKey &key, uint64_t serial) {
               out = find_chain_rule(read, key, serial, chain, keys, why);
               return out.has_value();
             });
  return out;
}

bool Journal::write_index(uint32_t family, const std::string &table,
                          uint32_t before, uint32_t after,
                          std::optional<uint64_t> serial, std::string *why) {
  JournalIndex index;
  std::string ignored;
  if (const std::unique_ptr<TrustedFile> file =
          read_trusted(index_path(), kMaxIndex, &ignored)) {
    std::optional<JournalIndex> old =
        decode_index(file->bytes(), ns_, &ignored);
    if (old && old->generation == before)
      index = std::move(*old);
  }
  index.tables.erase(std::remove_if(index.tables.begin(), index.tables.end(),
                                    [&](const JournalIndex::Entry &e) {
                                      return e.family == family &&
                                             e.table == table;
                                    }),
                     index.tables.end());
  if (serial)
    index.tables.push_back({family, table, *serial});
  index.generation = after;
  if (!write_file(dir_, index_path(), {encode_index(ns_, index)}, why))
    return false;
  prune();
  return true;
}

bool Journal::lock_at(const std::string &table, uint32_t after,
                      const std::function<uint32_t()> &generation_now,
                      std::optional<DirLock> &lock, std::string *why) {
  if (!journaled_name(table)) {
    *why = "table name not journaled";
    return false;
  }
  if (mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = errno_text(("cannot make " + dir_).c_str());
    return false;
  }
  if (!trusted_dir(dir_, why))
    return false;
  lock.emplace(dir_, why);
  if (!lock->held())
    return false;
  if (generation_now() != after) {
    *why = "another program committed right after this one";
    return false;
  }
  return true;
}

bool Journal::put_record(uint32_t family, const std::string &table,
                         uint32_t before, uint32_t after,
                         std::optional<uint64_t> serial,
                         const std::vector<std::string_view> &pieces,
                         std::string *why) {
  const std::string path = table_path(family, table);
  if (serial) {
    if (!write_file(dir_, path, pieces, why))
      return false;
  } else {
    unlink(path.c_str());
  }
  return write_index(family, table, before, after, serial, why);
}

bool Journal::record(uint32_t family, const std::string &table, uint32_t before,
                     uint32_t after, const Encoded *record,
                     const std::function<uint32_t()> &generation_now,
                     std::string *why) {
  std::optional<DirLock> lock;
  if (!lock_at(table, after, generation_now, lock, why))
    return false;
  if (record == nullptr)
    return put_record(family, table, before, after, std::nullopt, {}, why);
  return put_record(family, table, before, after, record->serial,
                    {record->bytes}, why);
}

bool Journal::edit(uint32_t family, const std::string &table, uint32_t before,
                   uint32_t after, const std::vector<ChainEdit> &edits,
                   uint64_t next_handle,
                   const std::function<uint32_t()> &generation_now,
                   std::string *why) {
  std::optional<DirLock> lock;
  if (!lock_at(table, after, generation_now, lock, why))
    return false;
  const uint64_t new_record = new_serial();
  std::optional<RecordPieces> edited;
  uint64_t serial = 0;
  const std::unique_ptr<TrustedFile> file =
      current_file(family, table, before, serial, why);
  if (file)
    edited = edit_table_record(file->bytes(), JournalKey{ns_, family, table},
                               serial, new_record, edits, next_handle, why);
  if (!edited) {
    // No current record to edit: the table's is forgotten.
    const std::string reason = *why;
    put_record(family, table, before, after, std::nullopt, {}, why);
    *why = reason;
    return false;
  }
  return put_record(family, table, before, after, new_record, edited->pieces,
                    why);
}

Journal::Encoded Journal::encode(uint32_t family, const std::string &table,
                                 const TableState &state) const {
  Encoded out;
  out.serial = new_serial();
  out.bytes =
      encode_table_record(JournalKey{ns_, family, table}, out.serial, state);
  return out;
}

void Journal::prune() const {
  DIR *d = opendir(dir_.c_str());
  if (d == nullptr)
    return;
  struct File {
    std::string path;
    time_t mtime;
    uint64_t size;
  };
  std::vector<File> others;
  const std::string mine = prefix();
  const time_t now = time(nullptr);
  uint64_t total = 0;
  size_t count = 0;
  while (dirent *e = readdir(d)) {
    const std::string name = e->d_name;
    // Only the journal's own files: anything else an admin keeps in the
    // directory (snapshots, a pid file, a link, a FIFO) is left alone.
    if (!journal_file_name(name))
      continue;
    const std::string path = dir_ + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    const bool tmp = name.rfind(".tmp.", 0) == 0;
    // Another boot's files can never be current; a temporary file a killed
    // writer left, once surely abandoned.
    if ((tmp && st.st_mtime + 60 < now) ||
        (!tmp && name.compare(0, ns_.boot.size(), ns_.boot) != 0)) {
      unlink(path.c_str());
      continue;
    }
    ++count;
    total += static_cast<uint64_t>(st.st_size);
    if (!tmp && name.compare(0, mine.size(), mine) != 0)
      others.push_back({path, st.st_mtime, static_cast<uint64_t>(st.st_size)});
  }
  closedir(d);
  // Namespaces that are gone cannot be told from those that stay: the
  // oldest other namespaces' files go first.
  std::sort(others.begin(), others.end(),
            [](const File &a, const File &b) { return a.mtime < b.mtime; });
  for (const File &f : others) {
    if (count <= kMaxFiles && total <= kMaxBytes && f.mtime + kMaxAge >= now)
      continue;
    unlink(f.path.c_str());
    --count;
    total -= f.size;
  }
}

} // namespace fastrestore
