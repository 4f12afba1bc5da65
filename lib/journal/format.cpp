// The journal's two kinds of file as bytes (journal.h). Each starts with
// a magic and a version and ends with a hash64 of all bytes before it, so
// that a truncated or altered file is refused as a whole.
//
// Table record: "FRJT" u32:version, str:boot u64:cookie u32:family
// str:table u64:serial u64:fingerprint u64:block u64:next_handle,
// varint:chains, then per chain str:name u8:flags (1 base, 2 has a
// policy, 4 hook and type follow, 8 policy follows), [u32:hook u32:prio
// str:type] [u32:policy] varint:rules (a user chain, most of a
// kube-proxy table's 40,000, has neither: 13 bytes less each), and per
// rule u64:key u64:line varint:zigzag(handle - previous handle), then
// varint:sets and per set str:name u64:digest u64:members; u64:hash.
// Index: "FRJI" u32:version str:boot u64:cookie u32:generation
// varint:tables, per table u32:family str:table u64:serial; u64:hash.
#include <cstring>

#include "bytes.h"
#include "journal/journal.h"
#include "sys/hash64.h"

namespace fastrestore {
namespace {

constexpr uint32_t kVersion = 6;
constexpr size_t kMaxName = 256;

void seal(journal::Writer &w) {
  const uint64_t h = hash64(w.written());
  w.u64(h);
}

// The bytes before the trailing hash, when it matches.
std::optional<std::string_view>
unseal(std::string_view bytes, std::string_view magic, std::string *why) {
  if (bytes.size() < magic.size() + 4 + 8 ||
      bytes.substr(0, magic.size()) != magic) {
    *why = "not a journal file";
    return std::nullopt;
  }
  std::string_view body = bytes.substr(0, bytes.size() - 8);
  journal::Reader tail(bytes.substr(bytes.size() - 8));
  if (tail.u64() != hash64(body)) {
    *why = "its checksum does not match (truncated or altered)";
    return std::nullopt;
  }
  journal::Reader head(body.substr(magic.size()));
  if (head.u32() != kVersion) {
    *why = "written by another version";
    return std::nullopt;
  }
  return body.substr(magic.size() + 4);
}

void put_ns(journal::Writer &w, const NetnsId &ns) {
  w.str(ns.boot);
  w.u64(ns.cookie);
}

bool same_ns(journal::Reader &r, const NetnsId &ns, std::string *why) {
  const std::string_view boot = r.str(64);
  const uint64_t cookie = r.u64();
  if (!r.ok())
    return false;
  if (boot != ns.boot) {
    *why = "written in another boot";
    return false;
  }
  if (cookie != ns.cookie) {
    *why = "of another network namespace";
    return false;
  }
  return true;
}

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

} // namespace

std::string encode_table_record(const JournalKey &key, uint64_t serial,
                                const TableState &state) {
  journal::Writer w;
  // (Each rule's key, line and handle; each chain's name and head.)
  size_t size = 64 + state.rule_count() * 18;
  for (const StateChain &c : state.chains)
    size += c.name.size() + c.type.size() + 16;
  w.reserve(size);
  w.raw("FRJT");
  w.u32(kVersion);
  put_ns(w, key.ns);
  w.u32(key.family);
  w.str(key.table);
  w.u64(serial);
  w.u64(state.fingerprint);
  w.u64(state.block);
  w.u64(state.next_handle);
  w.varint(state.chains.size());
  for (const StateChain &c : state.chains) {
    w.str(c.name);
    const bool head = c.hook != 0 || c.prio != 0 || !c.type.empty();
    const bool policy = c.has_policy || c.policy != 0;
    w.u8(static_cast<uint8_t>((c.base ? 1 : 0) | (c.has_policy ? 2 : 0) |
                              (head ? 4 : 0) | (policy ? 8 : 0)));
    if (head) {
      w.u32(c.hook);
      w.u32(static_cast<uint32_t>(c.prio));
      w.str(c.type);
    }
    if (policy)
      w.u32(c.policy);
    w.varint(c.rules.size());
    uint64_t prev = 0;
    for (const StateRule &r : c.rules) {
      w.u64(r.key);
      w.u64(r.line);
      w.varint(zigzag(static_cast<int64_t>(r.handle - prev)));
      prev = r.handle;
    }
  }
  w.varint(state.sets.size());
  for (const StateSet &set : state.sets) {
    w.str(set.name);
    w.u64(set.digest);
    w.u64(set.members);
  }
  seal(w);
  return w.take();
}

std::optional<TableState> decode_table_record(std::string_view bytes,
                                              const JournalKey &key,
                                              uint64_t serial,
                                              std::string *why) {
  std::optional<std::string_view> body = unseal(bytes, "FRJT", why);
  if (!body)
    return std::nullopt;
  journal::Reader r(*body);
  auto broken = [&]() -> std::optional<TableState> {
    *why = "its contents do not parse";
    return std::nullopt;
  };
  if (!same_ns(r, key.ns, why)) {
    if (!r.ok())
      return broken();
    return std::nullopt;
  }
  const uint32_t family = r.u32();
  const std::string_view table = r.str(kMaxName);
  const uint64_t got_serial = r.u64();
  if (!r.ok())
    return broken();
  if (family != key.family || table != key.table) {
    *why = "of another table";
    return std::nullopt;
  }
  if (got_serial != serial) {
    *why = "not the record the index names";
    return std::nullopt;
  }
  TableState state;
  state.fingerprint = r.u64();
  state.block = r.u64();
  state.next_handle = r.u64();
  const uint64_t chains = r.varint();
  if (!r.ok() || chains > r.left())
    return broken();
  state.chains.resize(chains);
  for (StateChain &c : state.chains) {
    c.name = r.str(kMaxName);
    const uint8_t flags = r.u8();
    c.base = flags & 1;
    c.has_policy = flags & 2;
    if (flags & 4) {
      c.hook = r.u32();
      c.prio = static_cast<int32_t>(r.u32());
      c.type = r.str(kMaxName);
    }
    if (flags & 8)
      c.policy = r.u32();
    const uint64_t rules = r.varint();
    if (!r.ok() || rules > r.left() / 17)
      return broken();
    c.rules.resize(rules);
    uint64_t prev = 0;
    for (StateRule &rule : c.rules) {
      rule.key = r.u64();
      rule.line = r.u64();
      rule.handle = prev + static_cast<uint64_t>(unzigzag(r.varint()));
      prev = rule.handle;
    }
  }
  const uint64_t sets = r.varint();
  if (!r.ok() || sets > r.left() / 17)
    return broken();
  state.sets.resize(sets);
  for (StateSet &set : state.sets) {
    set.name = r.str(kMaxName);
    set.digest = r.u64();
    set.members = r.u64();
  }
  if (!r.ok() || r.left() != 0)
    return broken();
  return state;
}

std::string encode_index(const NetnsId &ns, const JournalIndex &index) {
  journal::Writer w;
  w.raw("FRJI");
  w.u32(kVersion);
  put_ns(w, ns);
  w.u32(index.generation);
  w.varint(index.tables.size());
  for (const auto &e : index.tables) {
    w.u32(e.family);
    w.str(e.table);
    w.u64(e.serial);
  }
  seal(w);
  return w.take();
}

std::optional<JournalIndex> decode_index(std::string_view bytes,
                                         const NetnsId &ns, std::string *why) {
  std::optional<std::string_view> body = unseal(bytes, "FRJI", why);
  if (!body)
    return std::nullopt;
  journal::Reader r(*body);
  JournalIndex index;
  if (!same_ns(r, ns, why)) {
    if (!r.ok())
      *why = "its contents do not parse";
    return std::nullopt;
  }
  index.generation = r.u32();
  const uint64_t n = r.varint();
  if (r.ok() && n <= r.left()) {
    index.tables.resize(n);
    for (auto &e : index.tables) {
      e.family = r.u32();
      e.table = r.str(kMaxName);
      e.serial = r.u64();
    }
    if (r.ok() && r.left() == 0)
      return index;
  }
  *why = "its contents do not parse";
  return std::nullopt;
}

} // namespace fastrestore
