#include "nft/nft_batch.h"

#include <cstdio> // libnftnl headers need FILE
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "ext/among.h"
#include "nft/nft_rule.h"

namespace fastrestore::nft {
namespace {

// Room kept free at the tail of a chunk for the next message; no single
// iptables rule comes close: a line has at most 255 words and compat blobs
// are a few KiB.
constexpr size_t kHeadroom = 1024 * 1024;
constexpr size_t kChunkSize = 16 * 1024 * 1024;

} // namespace

Batch::Batch(Family family, uint32_t id_base)
    : family_(nfproto_of(family)), set_id_(id_base) {
  nlmsghdr *nlh = nftnl_batch_begin(reserve(), ++seq_);
  chunks_.back().len += nlh->nlmsg_len;
  size_ += nlh->nlmsg_len;
}

Batch::~Batch() = default;

void ChunkFree::operator()(char *p) const {
  if (mapped != 0)
    munmap(p, mapped);
  else
    delete[] p;
}

char *Batch::reserve() {
  if (chunks_.empty() || chunks_.back().cap - chunks_.back().len < kHeadroom) {
    // Zeroed: libmnl leaves an attribute's padding as the memory was, and
    // a rule's key (table_delta.h) hashes its message's bytes. The first
    // chunk is a mapping of its own, so that a small batch (one of a
    // stream of one-rule blocks) costs the pages it writes, not the
    // zeroing of its headroom; the later ones come from the heap.
    Chunk c;
    if (chunks_.empty()) {
      c.cap = 2 * kHeadroom;
      void *p = mmap(nullptr, c.cap, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        throw std::bad_alloc();
      c.data = std::unique_ptr<char[], ChunkFree>(static_cast<char *>(p),
                                                  ChunkFree{c.cap});
    } else {
      c.cap = kChunkSize;
      c.data =
          std::unique_ptr<char[], ChunkFree>(new char[c.cap](), ChunkFree());
    }
    chunks_.push_back(std::move(c));
  }
  return chunks_.back().data.get() + chunks_.back().len;
}

void Batch::compact() {
  for (Chunk &c : chunks_) {
    if (c.cap == c.len)
      continue;
    std::unique_ptr<char[], ChunkFree> copy(new char[c.len], ChunkFree());
    std::memcpy(copy.get(), c.data.get(), c.len);
    c.data = std::move(copy);
    c.cap = c.len;
  }
}

nlmsghdr *Batch::next_header(uint16_t msg_type, uint16_t flags) {
  return nftnl_nlmsg_build_hdr(reserve(), msg_type,
                               static_cast<uint16_t>(family_), flags, ++seq_);
}

uint32_t Batch::name_id(const std::string &name) {
  // Consecutive messages mostly name the same chain.
  if (!names_.empty() && names_[last_name_] == name)
    return last_name_;
  auto it = name_ids_.find(name);
  if (it != name_ids_.end())
    return last_name_ = it->second;
  uint32_t id = static_cast<uint32_t>(names_.size());
  names_.push_back(name);
  name_ids_.emplace(name, id);
  return last_name_ = id;
}

void Batch::commit_message(const nlmsghdr *nlh, const Location &loc,
                           const char *kind, const std::string &name) {
  size_t len = NLMSG_ALIGN(nlh->nlmsg_len);
  chunks_.back().len += len;
  size_ += len;
  info_.push_back(Info{loc, kind, name_id(name)});
}

void Batch::add_table(uint16_t msg_type, uint16_t flags,
                      const std::string &table, const Location &loc) {
  nftnl_table *t = nftnl_table_alloc();
  if (t == nullptr)
    throw std::bad_alloc();
  nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, family_);
  nftnl_table_set_str(t, NFTNL_TABLE_NAME, table.c_str());
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_table_nlmsg_build_payload(nlh, t);
  nftnl_table_free(t);
  commit_message(nlh, loc, "table", table);
}

void Batch::add_chain(uint16_t msg_type, uint16_t flags, nftnl_chain *c,
                      const std::string &name, const Location &loc) {
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_chain_nlmsg_build_payload(nlh, c);
  commit_message(nlh, loc, "chain", name);
}

void Batch::add_rule(uint16_t flags, const Rule &rule, Family family,
                     const std::string &table, const std::string &chain,
                     const Placement &where) {
  std::vector<uint32_t> sets;
  if (family == Family::bridge)
    sets = add_among_sets(rule, table);
  nlmsghdr *nlh = next_header(NFT_MSG_NEWRULE, flags);
  encode_rule(nlh, rule, family, table, chain, where, &sets);
  if (where.id)
    rule_ids_[where.id] = {chunks_.size() - 1, chunks_.back().len};
  commit_message(nlh, rule.loc, "rule in chain", chain);
  info_.back().counters = rule.counters_set;
}

std::vector<uint32_t> Batch::add_among_sets(const Rule &rule,
                                            const std::string &table) {
  // nftables' datatypes (TYPE_BITS 6): ether_addr, and ipv4_addr.
  constexpr uint32_t kEther = 9, kIpv4 = 7, kTypeBits = 6;
  std::vector<uint32_t> ids;
  for (const auto &m : rule.matches) {
    AmongSide src, dst;
    if (m.watcher || m.name != "among" || !parse_among(m, src, dst))
      continue;
    for (const AmongSide *side : {&src, &dst}) {
      if (side->count == 0)
        continue;
      const uint32_t len = side->ip ? kAmongPairSize : 6;
      nftnl_set *s = nftnl_set_alloc();
      if (s == nullptr)
        throw std::bad_alloc();
      const uint32_t id = ++set_id_;
      nftnl_set_set_u32(s, NFTNL_SET_FAMILY, family_);
      nftnl_set_set_str(s, NFTNL_SET_TABLE, table.c_str());
      nftnl_set_set_str(s, NFTNL_SET_NAME, "__set%d");
      nftnl_set_set_u32(s, NFTNL_SET_ID, id);
      nftnl_set_set_u32(s, NFTNL_SET_FLAGS,
                        NFT_SET_ANONYMOUS | NFT_SET_CONSTANT |
                            (side->ip ? NFT_SET_INTERVAL | NFT_SET_CONCAT : 0));
      nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE,
                        side->ip ? kEther << kTypeBits | kIpv4 : kEther);
      nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, len);
      nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE,
                        static_cast<uint32_t>(side->count));
      if (side->ip) {
        const uint8_t fields[2] = {6, 4};
        nftnl_set_set_data(s, NFTNL_SET_DESC_CONCAT, fields, sizeof(fields));
      }
      nlmsghdr *nlh = next_header(NFT_MSG_NEWSET, NLM_F_CREATE);
      nftnl_set_nlmsg_build_payload(nlh, s);
      commit_message(nlh, rule.loc, "set for the among match of a rule", table);
      // The elements, in messages of at most 1000 (an attribute nest holds
      // 64 KiB).
      for (size_t first = 0; first < side->count; first += 1000) {
        nftnl_set *part = nftnl_set_alloc();
        if (part == nullptr)
          throw std::bad_alloc();
        nftnl_set_set_u32(part, NFTNL_SET_FAMILY, family_);
        nftnl_set_set_str(part, NFTNL_SET_TABLE, table.c_str());
        nftnl_set_set_str(part, NFTNL_SET_NAME, "__set%d");
        nftnl_set_set_u32(part, NFTNL_SET_ID, id);
        for (size_t i = first; i < side->count && i < first + 1000; ++i) {
          nftnl_set_elem *e = nftnl_set_elem_alloc();
          if (e == nullptr)
            throw std::bad_alloc();
          uint8_t key[kAmongPairSize];
          std::memcpy(key, side->pairs + i * kAmongPairSize, kAmongPairSize);
          nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, len);
          if (side->ip) {
            // A MAC without an address matches every address.
            static const uint8_t any[4] = {0, 0, 0, 0};
            if (std::memcmp(key + 8, any, 4) == 0)
              std::memset(key + 8, 0xff, 4);
            nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY_END, key, len);
          }
          nftnl_set_elem_add(part, e);
        }
        nlh = next_header(NFT_MSG_NEWSETELEM, NLM_F_CREATE);
        nftnl_set_elems_nlmsg_build_payload(nlh, part);
        commit_message(nlh, rule.loc, "elements for the among match of a rule",
                       table);
        nftnl_set_free(part);
      }
      nftnl_set_free(s);
      ids.push_back(id);
    }
  }
  return ids;
}

std::string_view Batch::rule_message(uint32_t id) const {
  auto it = rule_ids_.find(id);
  if (it == rule_ids_.end())
    return {};
  const char *p = chunks_[it->second.first].data.get() + it->second.second;
  return std::string_view(p, reinterpret_cast<const nlmsghdr *>(p)->nlmsg_len);
}

void Batch::add_rule(uint16_t msg_type, uint16_t flags, nftnl_rule *r,
                     const std::string &chain, const Location &loc) {
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_rule_nlmsg_build_payload(nlh, r);
  commit_message(nlh, loc, "rule in chain", chain);
}

void Batch::add_delrule(const std::string &table, const std::string &chain,
                        uint64_t handle, uint32_t id, const Location &loc,
                        const char *kind) {
  nftnl_rule *r = nftnl_rule_alloc();
  if (r == nullptr)
    throw std::bad_alloc();
  nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, family_);
  nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain.c_str());
  if (handle)
    nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
  else if (id)
    nftnl_rule_set_u32(r, NFTNL_RULE_ID, id);
  nlmsghdr *nlh = next_header(NFT_MSG_DELRULE, 0);
  nftnl_rule_nlmsg_build_payload(nlh, r);
  nftnl_rule_free(r);
  commit_message(nlh, loc, kind, chain);
}

void Batch::add_flush(const std::string &table, const std::string &chain,
                      const Location &loc) {
  add_delrule(table, chain, 0, 0, loc, "flush of chain");
}

void Batch::add_rule_delete(const std::string &table, const std::string &chain,
                            uint64_t handle, uint32_t id, const Location &loc) {
  add_delrule(table, chain, handle, id, loc, "rule deletion in chain");
}

void Batch::add_copy(std::string_view message, uint16_t flags,
                     const Location &loc, const char *kind,
                     const std::string &name,
                     const std::function<void(nlmsghdr *)> &more) {
  char *p = reserve();
  std::memcpy(p, message.data(), message.size());
  auto *nlh = reinterpret_cast<nlmsghdr *>(p);
  nlh->nlmsg_len = static_cast<uint32_t>(message.size());
  nlh->nlmsg_flags = static_cast<uint16_t>(NLM_F_REQUEST | flags);
  nlh->nlmsg_seq = ++seq_;
  if (more)
    more(nlh);
  commit_message(nlh, loc, kind, name);
}

void Batch::each_message(
    const std::function<void(std::string_view, size_t)> &f) const {
  size_t index = 0;
  for (const auto &c : chunks_) {
    const char *p = c.data.get();
    const char *end = p + c.len;
    while (p < end) {
      const auto *nlh = reinterpret_cast<const nlmsghdr *>(p);
      const uint16_t type = nlh->nlmsg_type;
      if (type != NFNL_MSG_BATCH_BEGIN && type != NFNL_MSG_BATCH_END)
        f(std::string_view(p, nlh->nlmsg_len), index++);
      p += NLMSG_ALIGN(nlh->nlmsg_len);
    }
  }
}

void Batch::add_flags(size_t index, uint16_t flags) {
  size_t i = 0;
  for (auto &c : chunks_) {
    char *p = c.data.get();
    char *end = p + c.len;
    while (p < end) {
      auto *nlh = reinterpret_cast<nlmsghdr *>(p);
      const uint16_t type = nlh->nlmsg_type;
      if (type != NFNL_MSG_BATCH_BEGIN && type != NFNL_MSG_BATCH_END &&
          i++ == index) {
        nlh->nlmsg_flags |= flags;
        return;
      }
      p += NLMSG_ALIGN(nlh->nlmsg_len);
    }
  }
}

void Batch::finish() {
  if (finished_)
    return;
  nlmsghdr *nlh = nftnl_batch_end(reserve(), ++seq_);
  chunks_.back().len += nlh->nlmsg_len;
  size_ += nlh->nlmsg_len;
  finished_ = true;
}

std::vector<iovec> Batch::iov() const {
  std::vector<iovec> out;
  for (const auto &c : chunks_)
    if (c.len)
      out.push_back(iovec{c.data.get(), c.len});
  return out;
}

std::string Batch::bytes() const {
  std::string out;
  out.reserve(size_);
  for (const auto &c : chunks_)
    out.append(c.data.get(), c.len);
  return out;
}

namespace {

// Whether an nf_tables message (after its nfgenmsg) carries attribute
// `type` at its top level.
bool has_attr(const nlmsghdr *nlh, uint16_t type) {
  const char *p = static_cast<const char *>(
      mnl_nlmsg_get_payload_offset(nlh, sizeof(nfgenmsg)));
  const char *end = reinterpret_cast<const char *>(nlh) + nlh->nlmsg_len;
  while (p + sizeof(nlattr) <= end) {
    const auto *attr = reinterpret_cast<const nlattr *>(p);
    if (attr->nla_len < sizeof(nlattr))
      break;
    if (mnl_attr_get_type(attr) == type)
      return true;
    p += MNL_ALIGN(attr->nla_len);
  }
  return false;
}

const char *operation_of(const nlmsghdr *nlh) {
  switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
  case NFT_MSG_NEWTABLE:
    return "TABLE_ADD";
  case NFT_MSG_DELTABLE:
    return "TABLE_FLUSH";
  case NFT_MSG_NEWCHAIN:
    if (has_attr(nlh, NFTA_CHAIN_HANDLE))
      return "CHAIN_RENAME";
    if (has_attr(nlh, NFTA_CHAIN_HOOK))
      return "CHAIN_ADD";
    return has_attr(nlh, NFTA_CHAIN_POLICY) ? "CHAIN_UPDATE" : "CHAIN_USER_ADD";
  case NFT_MSG_DELCHAIN:
    return "CHAIN_DEL";
  case NFT_MSG_NEWRULE:
    if (nlh->nlmsg_flags & NLM_F_REPLACE)
      return "RULE_REPLACE";
    return (nlh->nlmsg_flags & NLM_F_APPEND) ? "RULE_APPEND" : "RULE_INSERT";
  case NFT_MSG_DELRULE:
    return has_attr(nlh, NFTA_RULE_HANDLE) || has_attr(nlh, NFTA_RULE_ID)
               ? "RULE_DELETE"
               : "RULE_FLUSH";
  case NFT_MSG_NEWSET:
  case NFT_MSG_NEWSETELEM:
    return "SET_ADD";
  default:
    return nullptr;
  }
}

} // namespace

std::vector<const char *>
Batch::operations(const std::vector<uint32_t> &seqs) const {
  std::vector<const char *> ops(seqs.size(), nullptr);
  // seq 1 is BATCH_BEGIN; object messages start at 2.
  size_t next = 0;
  while (next < seqs.size() && seqs[next] < 2)
    ++next;
  if (next < seqs.size())
    each_message([&](std::string_view m, size_t index) {
      for (; next < seqs.size() && seqs[next] - 2 == index; ++next)
        ops[next] = operation_of(reinterpret_cast<const nlmsghdr *>(m.data()));
    });
  return ops;
}

bool Batch::describe(uint32_t seq, Location &loc, std::string &what) const {
  // seq 1 is BATCH_BEGIN; object messages start at 2.
  if (seq < 2 || seq - 2 >= info_.size())
    return false;
  const Info &i = info_[seq - 2];
  loc = i.loc;
  what = std::string(i.kind) + " " + names_[i.name];
  return true;
}

} // namespace fastrestore::nft
