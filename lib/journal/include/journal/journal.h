// The state journal of the incremental restore: after each commit,
// fastrestore records per network namespace, family and table what it
// committed (each rule's key and kernel handle, each chain's kind and
// policy: a TableState), so that the next --incremental load knows what
// the kernel holds without reading it.
//
// A record is trusted only while the ruleset's generation is the one the
// namespace's index names: any commit by another tool moves the
// generation and makes every record of the namespace stale; a commit by
// fastrestore moves the index forward with it, so its other tables'
// records stay current. Files live in one root-only directory
// (/run/fastrestore unless $FASTRESTORE_JOURNAL_DIR says otherwise; an
// empty value turns the journal off): `<boot>-<cookie>.index` and
// `<boot>-<cookie>-<family>-<table>.table`. A file that is corrupt,
// truncated, of another namespace or boot, not a regular file owned by
// root and writable by root alone, or reached through a symlink, is
// ignored. The directory is pruned: other boots' files at once, then the
// oldest files of other namespaces beyond 1024 files or 256 MiB. Pruning
// removes only regular files named as the journal names its own; any
// other file, directory, link or FIFO there is left alone.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/table_state.h"
#include "sys/netns_id.h"

namespace fastrestore {

class DirLock;     // journal.cpp: the directory's lock, held while it lives
class TrustedFile; // journal.cpp: a record or index file, mapped

// Which table a record is of.
struct JournalKey {
  NetnsId ns;
  uint32_t family = 0; // NFPROTO_*
  std::string table;
};

// A table's record as bytes, and back (nullopt, with the reason, for bytes
// that are not a whole record of `key` with this serial). Counters are not
// recorded: a kernel side read from a journal has none (StateRule::counters
// false).
std::string encode_table_record(const JournalKey &key, uint64_t serial,
                                const TableState &state);
std::optional<TableState> decode_table_record(std::string_view bytes,
                                              const JournalKey &key,
                                              uint64_t serial,
                                              std::string *why);

// One chain of a table's record, read with the record's head and that
// chain's rules alone: `chain` is nullopt when the record has no chain of
// that name.
struct ChainRecord {
  std::optional<StateChain> chain;
  uint64_t fingerprint = 0; // TableState::fingerprint
  uint64_t next_handle = 0; // TableState::next_handle
};

// Views `len` bytes at `offset` of a record in `out` (valid while the
// reader is); false when the record has fewer.
using ReadAt =
    std::function<bool(uint64_t offset, size_t len, std::string_view &out)>;

// The chain `name` of the record `read` reads (nullopt, with the reason, as
// for decode_table_record; the head and the chain's rules are checked by
// hashes of their own, the other chains are not read).
std::optional<ChainRecord>
decode_chain_record(const ReadAt &read, const JournalKey &key, uint64_t serial,
                    std::string_view name, std::string *why);

// What a record holds of one rule (find_chain_rule): whether it has the
// chain, and the handle of the chain's first rule with a key asked for.
struct RuleLookup {
  bool chain = false;
  std::optional<uint64_t> handle;
};

// The first rule of the chain `name` in the record `read` reads whose key
// is either of `keys`, found in that chain's part without decoding it into
// rules (the head and the part checked as decode_chain_record checks
// them); nullopt, with the reason, as decode_chain_record.
std::optional<RuleLookup>
find_chain_rule(const ReadAt &read, const JournalKey &key, uint64_t serial,
                std::string_view name, std::pair<uint64_t, uint64_t> keys,
                std::string *why);

// What a single command did to one chain of a recorded table: `chain` is
// the chain as the command left it (its head and rules, each rule's key
// and handle; another name than `name`: renamed), nullopt when deleted. A
// chain the record lacks is added last, as the kernel lists a new chain.
struct ChainEdit {
  std::string name;
  std::optional<StateChain> chain;
};

// A record as the pieces it is written from, in order: views into the
// record it was made from (which must outlive them) and into `owned`.
struct RecordPieces {
  std::vector<std::string_view> pieces;
  std::deque<std::string> owned;
  std::string joined() const;
};

// The record `bytes` (of `key`, with `serial`) with `edits` made, under
// `new_serial`: the other chains' rules are copied as they are (views into
// `bytes`); the table no longer counts as made by a block
// (TableState::block 0), and the kernel's next handle is `next_handle`.
// nullopt, with the reason, when `bytes` is not that record.
std::optional<RecordPieces>
edit_table_record(std::string_view bytes, const JournalKey &key,
                  uint64_t serial, uint64_t new_serial,
                  const std::vector<ChainEdit> &edits, uint64_t next_handle,
                  std::string *why);

// A namespace's index: the generation its records are current at, and the
// serial of each table's current record.
struct JournalIndex {
  uint32_t generation = 0;
  struct Entry {
    uint32_t family = 0;
    std::string table;
    uint64_t serial = 0;
  };
  std::vector<Entry> tables;
};
std::string encode_index(const NetnsId &ns, const JournalIndex &index);
std::optional<JournalIndex> decode_index(std::string_view bytes,
                                         const NetnsId &ns, std::string *why);

class Journal {
public:
  // The directory in use: $FASTRESTORE_JOURNAL_DIR when set (empty: none),
  // else /run/fastrestore.
  static std::string default_dir();

  Journal(std::string dir, NetnsId ns);

  // The table's record when it is current at `generation` (the ruleset's
  // generation now); nullopt with the reason otherwise.
  std::optional<TableState> load(uint32_t family, const std::string &table,
                                 uint32_t generation, std::string *why) const;

  // One chain of the table's record (decode_chain_record) when the record
  // is current at `generation`; nullopt with the reason otherwise.
  std::optional<ChainRecord> load_chain(uint32_t family,
                                        const std::string &table,
                                        const std::string &chain,
                                        uint32_t generation,
                                        std::string *why) const;

  // The chain's first rule with either of `keys` (find_chain_rule) when
  // the table's record is current at `generation`; nullopt with the reason
  // otherwise.
  std::optional<RuleLookup> find_rule(uint32_t family, const std::string &table,
                                      const std::string &chain,
                                      std::pair<uint64_t, uint64_t> keys,
                                      uint32_t generation,
                                      std::string *why) const;

  // After this process's command moved the ruleset from generation
  // `before` to `after`: the table's record, current at `before`, with
  // `edits` made (edit_table_record), and the namespace's other records
  // kept current, as record() does. When the table has no record current
  // at `before`, its record is forgotten and false returned; false, with
  // the reason, too when nothing could be written.
  bool edit(uint32_t family, const std::string &table, uint32_t before,
            uint32_t after, const std::vector<ChainEdit> &edits,
            uint64_t next_handle,
            const std::function<uint32_t()> &generation_now, std::string *why);

  // A table's record under a new serial, made by encode() (on another
  // thread while the kernel takes a batch, or right before record()).
  struct Encoded {
    uint64_t serial = 0;
    std::string bytes;
  };
  Encoded encode(uint32_t family, const std::string &table,
                 const TableState &state) const;

  // After this process's commit moved the ruleset from generation `before`
  // to `after`: writes `record` for the table (none: forgets it), and keeps
  // the namespace's other records current when they were at `before`.
  // Nothing is written unless `generation_now` (asked under the journal's
  // lock) is still `after`. False, with the reason, when nothing could be
  // written; a restore goes on either way.
  bool record(uint32_t family, const std::string &table, uint32_t before,
              uint32_t after, const Encoded *record,
              const std::function<uint32_t()> &generation_now,
              std::string *why);

  const std::string &dir() const { return dir_; }

private:
  std::string prefix() const; // "<boot>-<cookie>"
  std::string table_path(uint32_t family, const std::string &table) const;
  std::string index_path() const;
  // The serial of the table's record when the index is current at
  // `generation`; nullopt with the reason otherwise.
  std::optional<uint64_t> current_serial(uint32_t family,
                                         const std::string &table,
                                         uint32_t generation,
                                         std::string *why) const;
  // `decode` given a reader of the table's record, its key and serial,
  // when the record is current at `generation`; false with the reason
  // otherwise or when `decode` says false ("record " put before its
  // reason).
  bool read_parts(uint32_t family, const std::string &table,
                  uint32_t generation, std::string *why,
                  const std::function<bool(const ReadAt &, const JournalKey &,
                                           uint64_t)> &decode) const;
  // The table's record (mapped) and its serial when the index is current
  // at `generation`; null with the reason otherwise.
  std::unique_ptr<TrustedFile>
  current_file(uint32_t family, const std::string &table, uint32_t generation,
               uint64_t &serial, std::string *why) const;
  // The directory (made when missing, trusted) locked (`lock` held) when the
  // ruleset is still at `after` after this process's commit, for `table`'s
  // record.
  bool lock_at(const std::string &table, uint32_t after,
               const std::function<uint32_t()> &generation_now,
               std::optional<DirLock> &lock, std::string *why);
  // Under the lock: the table's record with `serial` written from
  // `pieces` (no serial: the record forgotten), then the index
  // (write_index).
  bool put_record(uint32_t family, const std::string &table, uint32_t before,
                  uint32_t after, std::optional<uint64_t> serial,
                  const std::vector<std::string_view> &pieces,
                  std::string *why);
  // Under the directory's lock, after a commit from `before` to `after`:
  // the index (other tables' records kept when it was current at
  // `before`) with `table`'s entry set to `serial` (nullopt: removed),
  // written.
  bool write_index(uint32_t family, const std::string &table, uint32_t before,
                   uint32_t after, std::optional<uint64_t> serial,
                   std::string *why);
  void prune() const;

  std::string dir_;
  NetnsId ns_;
};

} // namespace fastrestore
