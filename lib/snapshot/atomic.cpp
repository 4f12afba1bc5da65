// ebtables' atomic files: a snapshot of one bridge table (see
// docs/SNAPSHOT.md), made empty with --atomic-init and grown by -A without
// reading or rewriting what it holds: the new messages go where the table
// directory was, the directory after them, and the objects' checksum is
// joined with the new bytes' (crc32_combine).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>

#include "ext/among.h"
#include "fastrestore/tables.h"
#include "file.h"
#include "nft/nft_backend.h"
#include "nft/nft_rule.h"
#include "snapshot.h"

namespace fastrestore::snapshot {
namespace {

// The object messages of a batch (between BATCH_BEGIN and BATCH_END),
// renumbered from `seq`; `count` receives how many there are.
std::string objects_of(nft::Batch &b, uint32_t seq, uint32_t &count) {
  b.finish();
  std::string bytes = b.bytes();
  count = 0;
  std::string out;
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= bytes.size()) {
    auto *m = reinterpret_cast<nlmsghdr *>(bytes.data() + off);
    const size_t len = NLMSG_ALIGN(m->nlmsg_len);
    if (m->nlmsg_type != NFNL_MSG_BATCH_BEGIN &&
        m->nlmsg_type != NFNL_MSG_BATCH_END) {
      m->nlmsg_seq = seq + count++;
      out.append(bytes.data() + off, len);
    }
    off += len;
  }
  return out;
}

} // namespace

void atomic_init(const std::string &path, const std::string &table) {
  const BuiltinTable *bt = find_builtin_table(table, Family::bridge);
  if (bt == nullptr)
    throw SnapshotError("table '" + table + "' does not exist");
  // The table with its built-in chains, accepting: ebtables' default.
  nft::Batch b(Family::bridge);
  b.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, {});
  bool ready = true;
  for (int i = 0; i < bt->nchains; ++i) {
    Op op{OpKind::chain_update, {}, {}, {}};
    op.chain.name = bt->chains[i].name;
    op.chain.builtin = &bt->chains[i];
    op.chain.policy = NF_ACCEPT;
    nft::emit_op(b, op, table, Family::bridge, {}, ready);
  }
  Header h = new_header(Backend::nft, NFPROTO_BRIDGE, true);
  h.first_seq = 3; // after the commit's pair for the one table
  std::string objs = objects_of(b, h.first_seq, h.messages);
  FileWriter file(path);
  file.write(objs.data(), objs.size());
  h.objects_size = file.written();
  h.objects_crc = file.take_crc();
  TableEntry te{};
  std::strncpy(te.name, table.c_str(), sizeof(te.name) - 1);
  te.chains = static_cast<uint32_t>(bt->nchains);
  file.write(&te, sizeof(te));
  h.directory_crc = file.take_crc();
  h.tables = 1;
  h.chains = te.chains;
  h.created = static_cast<uint64_t>(time(nullptr));
  file.finish(h);
}

namespace {

// What a command adds to an atomic file, for the counts.
struct Growth {
  uint32_t rules = 0, sets = 0, elements = 0;
};

// Appends to the file the messages `fill` puts in a batch, reading only
// the header and the directory.
void grow(const std::string &path, const std::string &table,
          const std::function<Growth(nft::Batch &)> &fill) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    io_fail("cannot open", path);
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  Header h;
  if (pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h)))
    throw SnapshotError(path + " is not an atomic file (too short)");
  struct stat st;
  if (fstat(fd, &st) != 0)
    io_fail("cannot read", path);
  // The header and directory are checked; the objects are trusted to be
  // what their checksum says (a commit checks them all).
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 ||
      h.version != kVersion || h.byte_order != kByteOrder ||
      h.header_crc != crc32_of(0, &h, offsetof(Header, header_crc)))
    throw SnapshotError(path + " is not an atomic file of this version");
  if (h.backend != static_cast<uint8_t>(Backend::nft) ||
      h.family != NFPROTO_BRIDGE)
    throw SnapshotError(path + " holds no bridge table");
  const uint64_t dir_at = sizeof(Header) + h.objects_size;
  const size_t dir_size = size_t(h.tables) * sizeof(TableEntry);
  if (static_cast<uint64_t>(st.st_size) != dir_at + dir_size)
    throw SnapshotError(path + " is damaged (its size does not add up)");
  std::vector<TableEntry> dir(h.tables);
  if (pread(fd, dir.data(), dir_size, static_cast<off_t>(dir_at)) !=
          static_cast<ssize_t>(dir_size) ||
      crc32_of(0, dir.data(), dir_size) != h.directory_crc)
    throw SnapshotError(path + " is damaged (directory checksum)");
  TableEntry *te = nullptr;
  for (auto &t : dir)
    if (table == t.name)
      te = &t;
  if (te == nullptr)
    throw SnapshotError(path + " holds no table " + table);

  nft::Batch b(Family::bridge);
  b.set_next_set_id(h.sets + 1);
  const Growth g = fill(b);
  uint32_t count = 0;
  std::string objs = objects_of(b, h.first_seq + h.messages, count);

  pwrite_all(fd, objs.data(), objs.size(), dir_at, path);
  h.objects_crc = crc32_join(
      h.objects_crc, crc32_of(0, objs.data(), objs.size()), objs.size());
  h.objects_size += objs.size();
  h.messages += count;
  h.rules += g.rules;
  h.sets += g.sets;
  h.elements += g.elements;
  te->rules += g.rules;
  te->sets += g.sets;
  te->elements += g.elements;
  pwrite_all(fd, dir.data(), dir_size, sizeof(Header) + h.objects_size, path);
  h.directory_crc = crc32_of(0, dir.data(), dir_size);
  seal_header(h);
  pwrite_all(fd, &h, sizeof(h), 0, path);
}

} // namespace

void atomic_append(const std::string &path, const std::string &table,
                   const std::string &chain, const std::vector<Rule> &rules) {
  grow(path, table, [&](nft::Batch &b) {
    Growth g;
    for (const auto &r : rules) {
      for (const auto &m : r.matches) {
        AmongSide src, dst;
        if (m.name == "among" && !m.watcher && parse_among(m, src, dst)) {
          g.sets += (src.count > 0) + (dst.count > 0);
          g.elements += static_cast<uint32_t>(src.count + dst.count);
        }
      }
      b.add_rule(NLM_F_CREATE | NLM_F_APPEND, r, Family::bridge, table, chain);
      ++g.rules;
    }
    return g;
  });
}

void atomic_policy(const std::string &path, const std::string &table,
                   const std::string &chain, const std::string &policy) {
  const BuiltinTable *bt = find_builtin_table(table, Family::bridge);
  const BuiltinChain *bc = bt ? find_builtin_chain(*bt, chain) : nullptr;
  if (bc == nullptr || (policy != "ACCEPT" && policy != "DROP"))
    throw SnapshotError("-P on an atomic file takes a built-in chain and "
                        "ACCEPT or DROP");
  // The base chain again with its new policy: later in the batch, it wins.
  grow(path, table, [&](nft::Batch &b) {
    Op op{OpKind::chain_update, {}, {}, {}};
    op.chain.name = chain;
    op.chain.builtin = bc;
    op.chain.policy = policy == "ACCEPT" ? NF_ACCEPT : NF_DROP;
    bool ready = true;
    nft::emit_op(b, op, table, Family::bridge, {}, ready);
    return Growth{};
  });
}

} // namespace fastrestore::snapshot
