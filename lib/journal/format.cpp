// The journal's two kinds of file as bytes (journal.h). Each starts with
// a magic and a version and ends with a hash64 of all bytes before it, so
// that a truncated or altered file is refused as a whole.
//
// Table record: "FRJT" u32:version u32:head_len, the head, u64:head_hash
// (hash64 of every byte before it), the chains' bodies, u64:hash. The head
// is str:boot u64:cookie u32:family str:table u64:serial u64:fingerprint
// u64:block u64:next_handle, varint:chains, per chain str:name u8:flags (1
// base, 2 has a policy, 4 hook and type follow, 8 policy follows), [u32:hook
// u32:prio str:type] [u32:policy] varint:rules varint:body_len
// [u32:body_hash, the low bits of the body's hash64, when body_len is not
// 0] (a user chain, most of a kube-proxy table's 40,000, has neither hook
// nor policy: 13 bytes less each), then varint:sets and per set str:name
// u64:digest u64:members. A chain's body is per rule u64:key u64:line
// varint:zigzag(handle - previous handle of the chain), in chain order, the
// bodies in the head's order: one chain is read with the head and its body
// alone (each with its own hash), and a chain's edit copies the other
// bodies as they are.
// Index: "FRJI" u32:version str:boot u64:cookie u32:generation
// varint:tables, per table u32:family str:table u64:serial; u64:hash.
#include <cstring>
#include <deque>

#include "bytes.h"
#include "journal/journal.h"
#include "sys/hash64.h"

namespace fastrestore {
namespace {

constexpr uint32_t kVersion = 8; // 8: hash64 in four lanes
constexpr size_t kMaxName = 256;
constexpr uint64_t kMaxBody = uint64_t(512) << 20; // a record's most

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

// What a record says besides its chains' rules.
struct RecordHead {
  uint64_t fingerprint = 0, block = 0, next_handle = 0;
  struct Chain {
    StateChainHead head;
    uint64_t rules = 0;
    uint64_t body_len = 0;
    uint32_t body_hash = 0;   // hash64 of the body, its low 32 bits
    uint64_t body_offset = 0; // from the first body's start
  };
  std::vector<Chain> chains;
  std::vector<StateSet> sets;
};

// The fixed start of a record: magic, version, head_len.
constexpr size_t kStart = 4 + 4 + 4;

void put_rules(journal::Writer &w, const std::vector<StateRule> &rules) {
  uint64_t prev = 0;
  for (const StateRule &r : rules) {
    w.u64(r.key);
    w.u64(r.line);
    w.varint(zigzag(static_cast<int64_t>(r.handle - prev)));
    prev = r.handle;
  }
}

// Each of a chain's `count` rules in its body, in order, given to
// `f(key, line, handle)` until it says false (then true); false when the
// body is not that many rules.
template <typename F>
bool each_rule(std::string_view body, uint64_t count, F &&f) {
  journal::Reader r(body);
  if (count > body.size() / 17)
    return false;
  uint64_t handle = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t key = r.u64();
    const uint64_t line = r.u64();
    handle += static_cast<uint64_t>(unzigzag(r.varint()));
    if (!r.ok())
      return false;
    if (!f(key, line, handle))
      return true;
  }
  return r.left() == 0;
}

// A chain's `count` rules from its body; false when the body is not that.
bool get_rules(std::string_view body, uint64_t count,
               std::vector<StateRule> &rules) {
  rules.clear();
  rules.reserve(body.size() / 17 < count ? 0 : count);
  return each_rule(body, count,
                   [&](uint64_t key, uint64_t line, uint64_t handle) {
                     StateRule &rule = rules.emplace_back();
                     rule.key = key;
                     rule.line = line;
                     rule.handle = handle;
                     return true;
                   });
}

// A chain's entry in the head: its own attributes, its rules' count and
// its body's length and hash.
void describe(RecordHead::Chain &entry, const StateChain &chain,
              std::string_view body) {
  entry.head = chain;
  entry.rules = chain.rules.size();
  entry.body_len = body.size();
  entry.body_hash = static_cast<uint32_t>(hash64(body));
}

// The length of a record's head, from its fixed start.
uint32_t head_length(std::string_view start) {
  return journal::Reader(start.substr(8, 4)).u32();
}

// A head's fields before its chains' entries (their count included).
void put_head_start(journal::Writer &h, const JournalKey &key, uint64_t serial,
                    const RecordHead &head, uint64_t chains) {
  put_ns(h, key.ns);
  h.u32(key.family);
  h.str(key.table);
  h.u64(serial);
  h.u64(head.fingerprint);
  h.u64(head.block);
  h.u64(head.next_handle);
  h.varint(chains);
}

// A chain's entry in the head.
void put_chain_entry(journal::Writer &h, const RecordHead::Chain &chain) {
  const StateChainHead &c = chain.head;
  h.str(c.name);
  const bool hooked = c.hook != 0 || c.prio != 0 || !c.type.empty();
  const bool policy = c.has_policy || c.policy != 0;
  h.u8(static_cast<uint8_t>((c.base ? 1 : 0) | (c.has_policy ? 2 : 0) |
                            (hooked ? 4 : 0) | (policy ? 8 : 0)));
  if (hooked) {
    h.u32(c.hook);
    h.u32(static_cast<uint32_t>(c.prio));
    h.str(c.type);
  }
  if (policy)
    h.u32(c.policy);
  h.varint(chain.rules);
  h.varint(chain.body_len);
  if (chain.body_len != 0)
    h.u32(static_cast<uint32_t>(chain.body_hash));
}

// A head's sets, after its chains' entries.
void put_sets(journal::Writer &h, const std::vector<StateSet> &sets) {
  h.varint(sets.size());
  for (const StateSet &set : sets) {
    h.str(set.name);
    h.u64(set.digest);
    h.u64(set.members);
  }
}

// A record's start: magic, version, the head's length, `head_bytes` and
// the head's hash.
std::string record_start(std::string_view head_bytes) {
  journal::Writer w;
  w.reserve(kStart + head_bytes.size() + 8);
  w.raw("FRJT");
  w.u32(kVersion);
  w.u32(static_cast<uint32_t>(head_bytes.size()));
  w.raw(head_bytes);
  seal(w); // the head's hash
  return w.take();
}

// The record of the head `head_bytes` whose chains' bodies are `bodies`.
std::string seal_record(std::string_view head_bytes,
                        const std::vector<std::string_view> &bodies) {
  journal::Writer w;
  size_t total = kStart + head_bytes.size() + 16;
  for (std::string_view b : bodies)
    total += b.size();
  w.reserve(total);
  w.raw(record_start(head_bytes));
  for (std::string_view b : bodies)
    w.raw(b);
  seal(w);
  return w.take();
}

// The record of `head` whose chains' bodies are `bodies` (in order).
std::string assemble(const JournalKey &key, uint64_t serial,
                     const RecordHead &head,
                     const std::vector<std::string_view> &bodies) {
  journal::Writer h;
  size_t size = 64;
  for (const auto &c : head.chains)
    size += c.head.name.size() + c.head.type.size() + 40;
  h.reserve(size);
  put_head_start(h, key, serial, head, head.chains.size());
  for (const auto &chain : head.chains)
    put_chain_entry(h, chain);
  put_sets(h, head.sets);
  return seal_record(h.written(), bodies);
}

// The head of a record, from its first bytes (`start`: at least kStart
// plus the head and its hash); nullopt, with the reason, when it is not
// the head of `key`'s record with this serial. With `only`, the head's
// chains are that chain alone (none when the record lacks it), the others
// parsed and passed over: a command on one chain of kube-proxy's 40,000
// makes no entry for the others.
// With `entries`, the chains are not made at all: each chain's entry is
// put there as the bytes it is in the head, with its name and its body's
// place, for an edit that copies them.
struct EntryView {
  std::string_view name, entry;
  uint64_t body_offset = 0, body_len = 0;
};
std::optional<RecordHead>
read_head(std::string_view start, const JournalKey &key, uint64_t serial,
          std::string *why, std::optional<std::string_view> only = std::nullopt,
          std::vector<EntryView> *entries = nullptr) {
  auto broken = [&]() -> std::optional<RecordHead> {
    *why = "its contents do not parse";
    return std::nullopt;
  };
  journal::Reader s(start);
  if (s.raw(4) != "FRJT") {
    *why = "not a journal file";
    return std::nullopt;
  }
  if (s.u32() != kVersion) {
    *why = "written by another version";
    return std::nullopt;
  }
  const uint32_t head_len = s.u32();
  const std::string_view head_bytes = s.raw(head_len);
  const uint64_t head_hash = s.u64();
  if (!s.ok()) {
    *why = "it is truncated";
    return std::nullopt;
  }
  if (head_hash != hash64(start.substr(0, kStart + head_len))) {
    *why = "its checksum does not match (truncated or altered)";
    return std::nullopt;
  }
  journal::Reader r(head_bytes);
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
  RecordHead head;
  head.fingerprint = r.u64();
  head.block = r.u64();
  head.next_handle = r.u64();
  const uint64_t chains = r.varint();
  if (!r.ok() || chains > r.left())
    return broken();
  if (entries != nullptr)
    entries->reserve(chains);
  else
    head.chains.reserve(only ? 1 : chains);
  uint64_t body_offset = 0;
  for (uint64_t i = 0; i < chains && r.ok(); ++i) {
    const size_t entry_start = r.pos();
    const std::string_view name = r.str(kMaxName);
    const uint8_t flags = r.u8();
    uint32_t hook = 0, prio = 0, policy = 0;
    std::string_view type;
    if (flags & 4) {
      hook = r.u32();
      prio = r.u32();
      type = r.str(kMaxName);
    }
    if (flags & 8)
      policy = r.u32();
    const uint64_t rules = r.varint();
    const uint64_t body_len = r.varint();
    const uint32_t body_hash = body_len != 0 ? r.u32() : 0;
    if (body_len > kMaxBody)
      return broken();
    body_offset += body_len;
    if (entries != nullptr) {
      entries->push_back(
          EntryView{name, head_bytes.substr(entry_start, r.pos() - entry_start),
                    body_offset - body_len, body_len});
      continue;
    }
    if (only && name != *only)
      continue;
    RecordHead::Chain chain;
    chain.rules = rules;
    chain.body_len = body_len;
    chain.body_hash = body_hash;
    chain.body_offset = body_offset - body_len;
    StateChainHead &c = chain.head;
    c.name = name;
    c.base = flags & 1;
    c.has_policy = flags & 2;
    if (flags & 4) {
      c.hook = hook;
      c.prio = static_cast<int32_t>(prio);
      c.type = type;
    }
    if (flags & 8)
      c.policy = policy;
    head.chains.push_back(std::move(chain));
  }
  const uint64_t sets = r.varint();
  if (!r.ok() || sets > r.left() / 17)
    return broken();
  head.sets.resize(sets);
  for (StateSet &set : head.sets) {
    set.name = r.str(kMaxName);
    set.digest = r.u64();
    set.members = r.u64();
  }
  if (!r.ok() || r.left() != 0)
    return broken();
  return head;
}

// A whole record's head and its chains' bodies (in order), its hash
// checked.
std::optional<RecordHead> read_record(std::string_view bytes,
                                      const JournalKey &key, uint64_t serial,
                                      std::vector<std::string_view> &bodies,
                                      std::string *why) {
  if (!unseal(bytes, "FRJT", why))
    return std::nullopt;
  std::optional<RecordHead> head = read_head(bytes, key, serial, why);
  if (!head)
    return std::nullopt;
  journal::Reader r(bytes.substr(0, bytes.size() - 8));
  r.raw(kStart);
  r.raw(head_length(bytes) + 8);
  bodies.clear();
  bodies.reserve(head->chains.size());
  for (const auto &c : head->chains)
    bodies.push_back(r.raw(c.body_len));
  if (!r.ok() || r.left() != 0) {
    *why = "its contents do not parse";
    return std::nullopt;
  }
  return head;
}

StateChain chain_of(const RecordHead::Chain &c) {
  StateChain chain;
  static_cast<StateChainHead &>(chain) = c.head;
  return chain;
}

} // namespace

std::string encode_table_record(const JournalKey &key, uint64_t serial,
                                const TableState &state) {
  RecordHead head;
  head.fingerprint = state.fingerprint;
  head.block = state.block;
  head.next_handle = state.next_handle;
  head.sets = state.sets;
  head.chains.resize(state.chains.size());
  journal::Writer all;
  all.reserve(state.rule_count() * 18);
  std::vector<size_t> ends;
  ends.reserve(state.chains.size());
  for (size_t i = 0; i < state.chains.size(); ++i) {
    const StateChain &c = state.chains[i];
    const size_t begin = all.written().size();
    put_rules(all, c.rules);
    ends.push_back(all.written().size());
    describe(head.chains[i], c, all.written().substr(begin));
  }
  std::vector<std::string_view> bodies;
  bodies.reserve(ends.size());
  size_t begin = 0;
  for (size_t end : ends) {
    bodies.push_back(all.written().substr(begin, end - begin));
    begin = end;
  }
  return assemble(key, serial, head, bodies);
}

std::optional<TableState> decode_table_record(std::string_view bytes,
                                              const JournalKey &key,
                                              uint64_t serial,
                                              std::string *why) {
  std::vector<std::string_view> bodies;
  std::optional<RecordHead> head = read_record(bytes, key, serial, bodies, why);
  if (!head)
    return std::nullopt;
  TableState state;
  state.fingerprint = head->fingerprint;
  state.block = head->block;
  state.next_handle = head->next_handle;
  state.sets = std::move(head->sets);
  state.chains.reserve(head->chains.size());
  for (size_t i = 0; i < head->chains.size(); ++i) {
    state.chains.push_back(chain_of(head->chains[i]));
    if (!get_rules(bodies[i], head->chains[i].rules,
                   state.chains.back().rules)) {
      *why = "its contents do not parse";
      return std::nullopt;
    }
  }
  return state;
}

namespace {

// The head of the record `read` reads, and the body of its chain `name`
// (hash checked) when it has one (`chain` null when not).
struct ChainPart {
  RecordHead head;
  const RecordHead::Chain *chain = nullptr;
  std::string_view body;
};
std::optional<ChainPart> read_chain_part(const ReadAt &read,
                                         const JournalKey &key, uint64_t serial,
                                         std::string_view name,
                                         std::string *why) {
  std::string_view start;
  if (!read(0, kStart, start)) {
    *why = "it is truncated";
    return std::nullopt;
  }
  const uint32_t head_len = head_length(start);
  if (!read(0, kStart + head_len + 8, start)) {
    *why = "it is truncated";
    return std::nullopt;
  }
  std::optional<RecordHead> head = read_head(start, key, serial, why, name);
  if (!head)
    return std::nullopt;
  ChainPart out{std::move(*head), nullptr, {}};
  for (const auto &c : out.head.chains) {
    if (!read(kStart + head_len + 8 + c.body_offset, c.body_len, out.body)) {
      *why = "it is truncated";
      return std::nullopt;
    }
    if (c.body_len != 0 &&
        static_cast<uint32_t>(hash64(out.body)) != c.body_hash) {
      *why = "its checksum does not match (truncated or altered)";
      return std::nullopt;
    }
    out.chain = &c;
    break;
  }
  return out;
}

} // namespace

std::optional<ChainRecord>
decode_chain_record(const ReadAt &read, const JournalKey &key, uint64_t serial,
                    std::string_view name, std::string *why) {
  std::optional<ChainPart> part = read_chain_part(read, key, serial, name, why);
  if (!part)
    return std::nullopt;
  ChainRecord out;
  out.fingerprint = part->head.fingerprint;
  out.next_handle = part->head.next_handle;
  if (part->chain != nullptr) {
    out.chain = chain_of(*part->chain);
    if (!get_rules(part->body, part->chain->rules, out.chain->rules)) {
      *why = "its contents do not parse";
      return std::nullopt;
    }
  }
  return out;
}

std::optional<RuleLookup>
find_chain_rule(const ReadAt &read, const JournalKey &key, uint64_t serial,
                std::string_view name, std::pair<uint64_t, uint64_t> keys,
                std::string *why) {
  std::optional<ChainPart> part = read_chain_part(read, key, serial, name, why);
  if (!part)
    return std::nullopt;
  RuleLookup out;
  if (part->chain == nullptr)
    return out;
  out.chain = true;
  if (each_rule(part->body, part->chain->rules,
                [&](uint64_t k, uint64_t, uint64_t handle) {
                  if (k == keys.first || k == keys.second)
                    out.handle = handle;
                  return !out.handle;
                }))
    return out;
  *why = "its contents do not parse";
  return std::nullopt;
}

std::string RecordPieces::joined() const {
  std::string out;
  size_t total = 0;
  for (std::string_view p : pieces)
    total += p.size();
  out.reserve(total);
  for (std::string_view p : pieces)
    out.append(p);
  return out;
}

std::optional<RecordPieces>
edit_table_record(std::string_view bytes, const JournalKey &key,
                  uint64_t serial, uint64_t new_serial,
                  const std::vector<ChainEdit> &edits, uint64_t next_handle,
                  std::string *why) {
  // The other chains' entries and bodies are copied as bytes: a command
  // on one of kube-proxy's 40,000 chains makes no entry for the others,
  // and their bodies are written from `bytes` as they are.
  if (!unseal(bytes, "FRJT", why))
    return std::nullopt;
  std::vector<EntryView> entries;
  std::optional<RecordHead> head =
      read_head(bytes, key, serial, why, std::nullopt, &entries);
  if (!head)
    return std::nullopt;
  const uint32_t head_len = head_length(bytes);
  const std::string_view all_bodies = bytes.substr(
      kStart + head_len + 8, bytes.size() - 8 - kStart - head_len - 8);
  struct Part {
    std::string_view name, entry, body;
  };
  const uint64_t bodies_len =
      entries.empty() ? 0
                      : entries.back().body_offset + entries.back().body_len;
  if (bodies_len != all_bodies.size()) {
    *why = "its contents do not parse";
    return std::nullopt;
  }
  std::vector<Part> parts;
  parts.reserve(entries.size() + edits.size());
  for (const EntryView &e : entries)
    parts.push_back(
        Part{e.name, e.entry, all_bodies.substr(e.body_offset, e.body_len)});
  // The edited chains' names, entries and bodies, written anew (deques:
  // each stays put).
  RecordPieces out;
  std::deque<std::string> names;
  std::deque<std::string> &written = out.owned;
  auto put = [&](const StateChain &chain) {
    journal::Writer w;
    put_rules(w, chain.rules);
    written.push_back(w.take());
    const std::string_view body = written.back();
    RecordHead::Chain c;
    describe(c, chain, body);
    journal::Writer h;
    put_chain_entry(h, c);
    written.push_back(h.take());
    names.push_back(chain.name);
    return Part{names.back(), written.back(), body};
  };
  for (const ChainEdit &e : edits) {
    size_t i = 0;
    while (i < parts.size() && parts[i].name != e.name)
      ++i;
    if (i == parts.size()) {
      if (e.chain)
        parts.push_back(put(*e.chain));
      // (else deleted, and not recorded)
    } else if (!e.chain) {
      parts.erase(parts.begin() + static_cast<ptrdiff_t>(i));
    } else {
      parts[i] = put(*e.chain);
    }
  }
  // The table is no longer what a block made.
  head->block = 0;
  head->next_handle = next_handle;
  journal::Writer h;
  h.reserve(kStart + head_len + 64 * (edits.size() + 1));
  put_head_start(h, key, new_serial, *head, parts.size());
  for (const Part &p : parts)
    h.raw(p.entry);
  put_sets(h, head->sets);
  // The start, the bodies (those next to each other in one piece) and
  // the hash of them all.
  written.push_back(record_start(h.written()));
  out.pieces.reserve(parts.size() + 2);
  out.pieces.push_back(written.back());
  uint64_t total = written.back().size();
  for (const Part &p : parts) {
    total += p.body.size();
    std::string_view &last = out.pieces.back();
    if (out.pieces.size() > 1 && last.data() + last.size() == p.body.data())
      last = std::string_view(last.data(), last.size() + p.body.size());
    else if (!p.body.empty())
      out.pieces.push_back(p.body);
  }
  Hash64Pieces hash(total);
  for (std::string_view p : out.pieces)
    hash.add(p);
  journal::Writer tail;
  tail.u64(hash.value());
  written.push_back(tail.take());
  out.pieces.push_back(written.back());
  return out;
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
