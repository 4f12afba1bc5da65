// The binary snapshot file (docs/SNAPSHOT.md): a fixed header, the objects,
// then a table directory. The objects are, for nf_tables, the batch
// messages themselves (NEWTABLE, NEWCHAIN, ... NEWRULE, each a complete
// netlink message), so a commit is framing plus one send; for legacy
// x_tables, one record per table holding its replacement blob.
//
// This unit knows the layout only: it writes a header and directory and
// checks a file's bytes (magic, version, sizes, checksums) without any
// kernel. Errors are thrown as SnapshotError with a one-line reason.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/backend.h"
#include "fastrestore/snapshot.h"

namespace fastrestore::snapshot {

// The snapshot's backend byte is a fastrestore::Backend.

constexpr uint32_t kVersion = 1;
constexpr uint32_t kByteOrder = 0x01020304;
constexpr uint8_t kFlagCounters = 1;

// All fields in the writing host's byte order (recorded in byte_order).
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint32_t byte_order;
  uint8_t backend;
  uint8_t family; // NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_BRIDGE
  uint8_t flags;
  uint8_t reserved0;
  uint64_t created; // seconds since the epoch
  uint64_t objects_size;
  uint32_t tables;
  uint32_t chains, sets, elements, rules, objects;
  uint32_t messages;      // nf_tables: netlink messages in the objects
  uint32_t first_seq;     // nf_tables: sequence number of the first message
  uint32_t objects_crc;   // zlib crc32 of the objects
  char producer[32];      // "fastrestore 0.1.0"
  uint32_t header_crc;    // zlib crc32 of the bytes before this field
  uint32_t directory_crc; // zlib crc32 of the table directory
};
static_assert(sizeof(Header) % 8 == 0, "header keeps 8-byte alignment");

struct TableEntry {
  char name[32];
  uint32_t chains, sets, elements, rules;
};
static_assert(sizeof(TableEntry) == 48, "directory entries are 48 bytes");

// One legacy table: the IPT_SO_GET_INFO answer's layout, then `size` bytes
// of entries (padded to 8).
struct LegacyTable {
  char name[32];
  uint32_t valid_hooks;
  uint32_t hook_entry[5];
  uint32_t underflow[5];
  uint32_t num_entries;
  uint32_t size;
  uint32_t reserved;
};
static_assert(sizeof(LegacyTable) % 8 == 0, "legacy records stay aligned");

inline constexpr char kMagic[8] = {'\x89', 'F', 'R', 'S', 'N', 'A', 'P', '\n'};

// A zero-filled header with magic, version and producer set.
Header new_header(Backend backend, uint8_t family, bool counters);
// crc32 over a byte range, continuing `crc` (0 to start).
uint32_t crc32_of(uint32_t crc, const void *data, size_t len);
// Fills header_crc.
void seal_header(Header &h);
// The crc32 of A then B from those of A and B (zlib's crc32_combine): a
// file grows without reading it again.
uint32_t crc32_join(uint32_t first, uint32_t second, uint64_t second_len);

// A checked view of a whole snapshot file's bytes.
class View {
public:
  // Throws SnapshotError: empty, truncated, bad magic, other version or
  // byte order, header or payload checksum mismatch, bad directory.
  explicit View(std::string_view file);

  const Header &header() const { return header_; }
  std::string_view objects() const { return objects_; }
  const std::vector<TableEntry> &tables() const { return tables_; }

private:
  Header header_;
  std::string_view objects_;
  std::vector<TableEntry> tables_;
};

const char *family_name(uint8_t family); // "ipv4", "ipv6", "bridge"
const char *backend_name(Backend b);     // "nf_tables", "legacy"

} // namespace fastrestore::snapshot
