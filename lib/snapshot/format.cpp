#include "format.h"

#include <linux/netfilter.h>
#include <zlib.h>

#include <cstddef>
#include <cstring>

#include "fastrestore/version.h"

namespace fastrestore::snapshot {

Header new_header(Backend backend, uint8_t family, bool counters) {
  Header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.header_size = sizeof(Header);
  h.byte_order = kByteOrder;
  h.backend = static_cast<uint8_t>(backend);
  h.family = family;
  h.flags = counters ? kFlagCounters : 0;
  std::string producer = std::string("fastrestore ") + fastrestore::kVersion;
  std::strncpy(h.producer, producer.c_str(), sizeof(h.producer) - 1);
  return h;
}

uint32_t crc32_of(uint32_t crc, const void *data, size_t len) {
  const auto *p = static_cast<const Bytef *>(data);
  uLong c = crc;
  while (len > 0) { // zlib takes lengths as uInt
    uInt n = len > (1u << 30) ? (1u << 30) : static_cast<uInt>(len);
    c = crc32(c, p, n);
    p += n;
    len -= n;
  }
  return static_cast<uint32_t>(c);
}

void seal_header(Header &h) {
  h.header_crc = crc32_of(0, &h, offsetof(Header, header_crc));
}

uint32_t crc32_join(uint32_t first, uint32_t second, uint64_t second_len) {
  return static_cast<uint32_t>(
      crc32_combine(first, second, static_cast<z_off_t>(second_len)));
}

View::View(std::string_view file) {
  if (file.empty())
    throw SnapshotError("empty file, not a snapshot");
  if (file.size() < sizeof(kMagic) ||
      std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
    throw SnapshotError("not a fastrestore snapshot (wrong magic)");
  if (file.size() < sizeof(Header))
    throw SnapshotError("truncated snapshot: the header is cut short");
  std::memcpy(&header_, file.data(), sizeof(Header));
  if (header_.byte_order != kByteOrder)
    throw SnapshotError("snapshot written on a machine of the other byte "
                        "order");
  if (header_.version != kVersion)
    throw SnapshotError("unsupported snapshot format version " +
                        std::to_string(header_.version) + " (this is " +
                        std::to_string(kVersion) + ")");
  if (header_.header_size != sizeof(Header) ||
      header_.header_crc != crc32_of(0, &header_, offsetof(Header, header_crc)))
    throw SnapshotError("snapshot header checksum mismatch");
  if (header_.backend != static_cast<uint8_t>(Backend::nft) &&
      header_.backend != static_cast<uint8_t>(Backend::legacy))
    throw SnapshotError("snapshot names an unknown backend");
  const uint64_t dir = uint64_t(header_.tables) * sizeof(TableEntry);
  const uint64_t want = sizeof(Header) + header_.objects_size + dir;
  if (header_.objects_size > file.size() || dir > file.size() ||
      want > file.size())
    throw SnapshotError("truncated snapshot: " + std::to_string(file.size()) +
                        " bytes, the header announces " + std::to_string(want));
  if (want < file.size())
    throw SnapshotError("snapshot has " + std::to_string(file.size() - want) +
                        " bytes of trailing garbage");
  std::string_view payload = file.substr(sizeof(Header));
  objects_ = payload.substr(0, header_.objects_size);
  std::string_view directory = payload.substr(header_.objects_size);
  if (crc32_of(0, objects_.data(), objects_.size()) != header_.objects_crc ||
      crc32_of(0, directory.data(), directory.size()) != header_.directory_crc)
    throw SnapshotError("snapshot checksum mismatch: the file is damaged");
  tables_.resize(header_.tables);
  if (dir > 0)
    std::memcpy(tables_.data(), payload.data() + header_.objects_size, dir);
  for (const auto &t : tables_)
    if (std::memchr(t.name, '\0', sizeof(t.name)) == nullptr ||
        t.name[0] == '\0')
      throw SnapshotError("snapshot directory holds a bad table name");
}

const char *family_name(uint8_t family) {
  switch (family) {
  case NFPROTO_IPV4:
    return "ipv4";
  case NFPROTO_IPV6:
    return "ipv6";
  case NFPROTO_BRIDGE:
    return "bridge";
  default:
    return "unknown";
  }
}

const char *backend_name(Backend b) {
  return b == Backend::legacy ? "legacy x_tables" : "nf_tables";
}

} // namespace fastrestore::snapshot
