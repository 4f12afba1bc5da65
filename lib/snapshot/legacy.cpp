// Legacy x_tables snapshots: each table's entries as the kernel gives them
// (IPT_SO_GET_ENTRIES), put back with one IPT_SO_SET_REPLACE per table.
// Tables are replaced one after the other; when the kernel refuses one, the
// tables already replaced get their previous contents back, so a failed
// commit leaves the kernel as it was.
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "file.h"
#include "legacy/legacy_sockopt.h"
#include "legacy/xtables_lock.h"
#include "snapshot.h"

namespace fastrestore::snapshot {
namespace {

using legacy::V4;
using legacy::V6;

constexpr size_t pad8(size_t n) {
  return (n + 7) & ~size_t(7);
}

// The tables of the family this network namespace has instantiated.
std::vector<std::string> kernel_tables(bool v4) {
  std::ifstream in(v4 ? "/proc/net/ip_tables_names"
                      : "/proc/net/ip6_tables_names");
  std::vector<std::string> out;
  std::string name;
  while (std::getline(in, name))
    if (!name.empty())
      out.push_back(name);
  return out;
}

struct Socket {
  explicit Socket(int af)
      : fd(socket(af, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW)) {
    if (fd < 0)
      throw SnapshotError(std::string("cannot open an x_tables socket: ") +
                          std::strerror(errno));
  }
  ~Socket() { close(fd); }
  int fd;
};

// Walks a table's entries; false when they do not tile `size` bytes.
template <class T, class F>
bool each_entry(const unsigned char *blob, size_t size, F fn) {
  for (size_t off = 0; off < size;) {
    // The kernel lays entries out aligned (and refuses them otherwise).
    if (size - off < sizeof(typename T::Entry) ||
        off % alignof(typename T::Entry) != 0)
      return false;
    auto *e = reinterpret_cast<const typename T::Entry *>(blob + off);
    if (e->next_offset < sizeof(typename T::Entry) ||
        e->next_offset > size - off || e->target_offset > e->next_offset ||
        static_cast<size_t>(e->next_offset - e->target_offset) <
            sizeof(xt_entry_target))
      return false;
    fn(off, *e);
    off += e->next_offset;
  }
  return true;
}

// Chains and rules of a table, for the directory.
template <class T>
void count(const LegacyTable &t, const unsigned char *blob, TableEntry &te) {
  uint32_t entries = 0, heads = 0;
  each_entry<T>(blob, t.size, [&](size_t off, const typename T::Entry &e) {
    ++entries;
    auto *tg = reinterpret_cast<const xt_entry_target *>(
        reinterpret_cast<const unsigned char *>(&e) + e.target_offset);
    if (std::strcmp(tg->u.user.name, XT_ERROR_TARGET) == 0 &&
        off + e.next_offset < t.size)
      ++heads; // a user chain's header (not the closing ERROR entry)
  });
  uint32_t builtins = static_cast<uint32_t>(__builtin_popcount(t.valid_hooks));
  te.chains = builtins + heads;
  // Each chain ends in a policy or RETURN entry, plus the closing entry.
  te.rules = entries - heads - te.chains - 1;
}

template <class T>
void save_family(FileWriter &file, const Options &opts,
                 std::vector<TableEntry> &dir) {
  Socket sock(T::af);
  std::vector<std::string> tables = opts.table.empty()
                                        ? kernel_tables(T::af == AF_INET)
                                        : std::vector<std::string>{opts.table};
  for (const auto &name : tables) {
    typename T::Info info;
    std::vector<unsigned char> buf;
    if (!legacy::read_table<T>(sock.fd, name, info, buf))
      throw SnapshotError("cannot read x_tables table `" + name +
                          "': " + std::strerror(errno));
    unsigned char *blob = buf.data() + sizeof(typename T::Entries);
    if (!opts.counters)
      each_entry<T>(
          blob, info.size, [&](size_t off, const typename T::Entry &) {
            auto *e = reinterpret_cast<typename T::Entry *>(blob + off);
            e->counters = xt_counters{0, 0};
          });
    LegacyTable rec{};
    std::strncpy(rec.name, name.c_str(), sizeof(rec.name) - 1);
    rec.valid_hooks = info.valid_hooks;
    std::memcpy(rec.hook_entry, info.hook_entry, sizeof(rec.hook_entry));
    std::memcpy(rec.underflow, info.underflow, sizeof(rec.underflow));
    rec.num_entries = info.num_entries;
    rec.size = info.size;
    file.write(&rec, sizeof(rec));
    file.write(blob, info.size);
    static const char zeros[8] = {};
    file.write(zeros, pad8(info.size) - info.size);
    TableEntry te{};
    static_assert(sizeof(te.name) == sizeof(rec.name), "same name field");
    std::memcpy(te.name, rec.name, sizeof(te.name)); // NUL-padded already
    count<T>(rec, blob, te);
    dir.push_back(te);
  }
}

struct Record {
  const LegacyTable *table;
  const unsigned char *blob;
};

// The records of the objects, checked against the directory.
template <class T> std::vector<Record> records(const View &view) {
  std::set<std::string> names;
  for (const auto &t : view.tables())
    names.insert(t.name);
  std::vector<Record> out;
  std::string_view objs = view.objects();
  for (size_t off = 0; off < objs.size();) {
    auto bad = [&](const std::string &why) {
      return SnapshotError("snapshot table record " +
                           std::to_string(out.size() + 1) + " " + why);
    };
    if (objs.size() - off < sizeof(LegacyTable))
      throw bad("is cut short");
    auto *t = reinterpret_cast<const LegacyTable *>(objs.data() + off);
    off += sizeof(LegacyTable);
    if (std::memchr(t->name, '\0', sizeof(t->name)) == nullptr ||
        !names.count(t->name))
      throw bad("names no table of the directory");
    if (t->size > objs.size() - off || pad8(t->size) > objs.size() - off)
      throw bad("is cut short");
    const auto *blob =
        reinterpret_cast<const unsigned char *>(objs.data() + off);
    uint32_t n = 0;
    if (!each_entry<T>(blob, t->size,
                       [&](size_t, const typename T::Entry &) { ++n; }) ||
        n != t->num_entries)
      throw bad("holds malformed entries");
    out.push_back({t, blob});
    off += pad8(t->size);
  }
  if (out.size() != view.tables().size())
    throw SnapshotError("snapshot holds " + std::to_string(out.size()) +
                        " tables, its directory " +
                        std::to_string(view.tables().size()));
  return out;
}

// One IPT_SO_SET_REPLACE of `name` with `entries`; the counters of the
// replaced table come back in `old`. 0 or errno.
template <class T>
int replace(int fd, const char *name, const LegacyTable &t,
            const unsigned char *entries, std::vector<xt_counters> &old) {
  typename T::Info cur;
  std::memset(&cur, 0, sizeof(cur));
  std::strncpy(cur.name, name, sizeof(cur.name) - 1);
  socklen_t len = sizeof(cur);
  if (getsockopt(fd, T::level, T::get_info, &cur, &len) < 0)
    return errno;
  std::vector<unsigned char> buf(sizeof(typename T::Replace) + t.size);
  auto *r = reinterpret_cast<typename T::Replace *>(buf.data());
  std::strncpy(r->name, name, sizeof(r->name) - 1);
  r->valid_hooks = t.valid_hooks;
  r->num_entries = t.num_entries;
  r->size = t.size;
  std::memcpy(r->hook_entry, t.hook_entry, sizeof(r->hook_entry));
  std::memcpy(r->underflow, t.underflow, sizeof(r->underflow));
  old.assign(cur.num_entries, xt_counters{0, 0});
  r->num_counters = cur.num_entries;
  r->counters = old.data();
  std::memcpy(buf.data() + sizeof(typename T::Replace), entries, t.size);
  if (setsockopt(fd, T::level, T::set_replace, buf.data(),
                 static_cast<socklen_t>(buf.size())) < 0)
    return errno;
  return 0;
}

// Adds `counters` (one per entry) to the table's fresh counters.
template <class T>
int add_counters(int fd, const char *name,
                 const std::vector<xt_counters> &counters) {
  std::vector<unsigned char> buf(sizeof(xt_counters_info) +
                                 counters.size() * sizeof(xt_counters));
  auto *info = reinterpret_cast<xt_counters_info *>(buf.data());
  std::strncpy(info->name, name, sizeof(info->name) - 1);
  info->num_counters = static_cast<unsigned>(counters.size());
  std::memcpy(info->counters, counters.data(),
              counters.size() * sizeof(xt_counters));
  return setsockopt(fd, T::level, T::add_counters, buf.data(),
                    static_cast<socklen_t>(buf.size())) < 0
             ? errno
             : 0;
}

template <class T>
std::vector<xt_counters> entry_counters(const LegacyTable &t,
                                        const unsigned char *blob) {
  std::vector<xt_counters> out;
  out.reserve(t.num_entries);
  each_entry<T>(blob, t.size, [&](size_t, const typename T::Entry &e) {
    out.push_back(e.counters);
  });
  return out;
}

template <class T> void commit_family(const View &view, const Options &opts) {
  std::vector<Record> recs = records<T>(view);
  if (opts.test)
    return;
  const bool counters = view.header().flags & kFlagCounters;
  legacy::XtablesLock lock(opts.wait);
  Socket sock(T::af);
  struct Done {
    const char *name;
    LegacyTable before;
    std::vector<unsigned char> blob; // the table as it was
    std::vector<xt_counters> counters;
  };
  std::vector<Done> done;
  for (const auto &rec : recs) {
    Done d{rec.table->name, {}, {}, {}};
    typename T::Info info;
    int err = 0;
    if (!legacy::read_table<T>(sock.fd, rec.table->name, info, d.blob))
      err = errno;
    if (err == 0) {
      d.blob.erase(d.blob.begin(),
                   d.blob.begin() + sizeof(typename T::Entries));
      d.before.valid_hooks = info.valid_hooks;
      d.before.num_entries = info.num_entries;
      d.before.size = info.size;
      std::memcpy(d.before.hook_entry, info.hook_entry,
                  sizeof(d.before.hook_entry));
      std::memcpy(d.before.underflow, info.underflow,
                  sizeof(d.before.underflow));
      err = replace<T>(sock.fd, rec.table->name, *rec.table, rec.blob,
                       d.counters);
    }
    if (err != 0) {
      // Put back what was replaced, newest first.
      for (auto it = done.rbegin(); it != done.rend(); ++it) {
        std::vector<xt_counters> unused;
        if (replace<T>(sock.fd, it->name, it->before, it->blob.data(),
                       unused) == 0)
          add_counters<T>(sock.fd, it->name, it->counters);
      }
      throw SnapshotError(
          std::string("the kernel refused table ") + rec.table->name +
          " of the snapshot: " + std::strerror(err) + "; nothing was changed");
    }
    if (counters)
      add_counters<T>(sock.fd, rec.table->name,
                      entry_counters<T>(*rec.table, rec.blob));
    done.push_back(std::move(d));
  }
}

} // namespace

void save_legacy(FileWriter &file, Header &, const Options &opts,
                 std::vector<TableEntry> &dir) {
  if (opts.family == NFPROTO_IPV4)
    save_family<V4>(file, opts, dir);
  else
    save_family<V6>(file, opts, dir);
}

void commit_legacy(const View &view, const Options &opts) {
  if (view.header().family == NFPROTO_IPV4)
    commit_family<V4>(view, opts);
  else if (view.header().family == NFPROTO_IPV6)
    commit_family<V6>(view, opts);
  else
    throw SnapshotError("the snapshot names a family legacy x_tables lacks");
}

} // namespace fastrestore::snapshot
