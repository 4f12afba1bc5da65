// libFuzzer target: reading a snapshot file as fastrestore commit --test
// does (every check before anything is sent to the kernel; an ebtables
// atomic file is listed only after the kernel took it). The first byte, when
// odd, asks for the checksums to be made right first, so that the fuzzer gets
// past them to the objects; the rest is the file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "snapshot/format.h"
#include "snapshot/snapshot.h"

using namespace fastrestore;
namespace snap = fastrestore::snapshot;

namespace {

void fix_checksums(std::string &file) {
  if (file.size() < sizeof(snap::Header))
    return;
  snap::Header h;
  std::memcpy(&h, file.data(), sizeof(h));
  const uint64_t rest = file.size() - sizeof(h);
  if (h.objects_size <= rest) {
    h.objects_crc = snap::crc32_of(0, file.data() + sizeof(h), h.objects_size);
    h.directory_crc = snap::crc32_of(
        0, file.data() + sizeof(h) + h.objects_size, rest - h.objects_size);
  }
  snap::seal_header(h);
  std::memcpy(file.data(), &h, sizeof(h));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string file(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (data[0] & 1)
    fix_checksums(file);
  static int fd = memfd_create("snapshot-fuzz", MFD_CLOEXEC);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, file.data(), file.size(), 0) !=
                                   static_cast<ssize_t>(file.size()))
    return 0;
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  snap::Options opts;
  opts.test = true;
  std::ostringstream out;
  try {
    snap::commit(path, opts, out);
  } catch (const snap::SnapshotError &) {
  }
  return 0;
}
