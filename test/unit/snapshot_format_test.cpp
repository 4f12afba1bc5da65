// The snapshot file format without a kernel: writing, reading back, and
// every way a file can be refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "../../lib/snapshot/file.h"
#include "../../lib/snapshot/format.h"

using namespace fastrestore::snapshot;

namespace {

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/fr-snapshot-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string path;
};

std::string read(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::string &p, const std::string &bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// A snapshot with `objects` and one table, written by FileWriter.
std::string make(const std::string &path, const std::string &objects) {
  FileWriter w(path);
  Header h = new_header(fastrestore::Backend::nft, 2, true);
  w.write(objects.data(), objects.size());
  h.objects_size = w.written();
  h.objects_crc = w.take_crc();
  TableEntry t{};
  std::strcpy(t.name, "filter");
  t.rules = 7;
  w.write(&t, sizeof(t));
  h.directory_crc = w.take_crc();
  h.tables = 1;
  h.rules = 7;
  w.finish(h);
  return read(path);
}

std::string refusal(const std::string &bytes) {
  try {
    View v(bytes);
  } catch (const SnapshotError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("the header layout is the documented one", "[snapshot]") {
  CHECK(sizeof(Header) == 120);
  CHECK(offsetof(Header, version) == 8);
  CHECK(offsetof(Header, objects_size) == 32);
  CHECK(offsetof(Header, objects_crc) == 72);
  CHECK(offsetof(Header, producer) == 76);
  CHECK(offsetof(Header, header_crc) == 108);
  CHECK(offsetof(Header, directory_crc) == 112);
}

TEST_CASE("a written snapshot reads back", "[snapshot]") {
  TempDir d;
  std::string bytes = make(d.path + "/s", std::string(1000, 'x'));
  View v(bytes);
  CHECK(v.header().backend == static_cast<uint8_t>(fastrestore::Backend::nft));
  CHECK(v.header().family == 2);
  CHECK(v.header().flags == kFlagCounters);
  CHECK(v.header().rules == 7);
  CHECK(std::string(v.header().producer).rfind("fastrestore ", 0) == 0);
  CHECK(v.objects() == std::string(1000, 'x'));
  REQUIRE(v.tables().size() == 1);
  CHECK(std::string(v.tables()[0].name) == "filter");
  MappedFile f(d.path + "/s");
  CHECK(f.bytes() == bytes);
}

TEST_CASE("bad files are refused with their reason", "[snapshot]") {
  TempDir d;
  const std::string good = make(d.path + "/s", std::string(4096, 'y'));
  CHECK(refusal("") == "empty file, not a snapshot");
  CHECK(refusal("hello, world") == "not a fastrestore snapshot (wrong magic)");
  CHECK(refusal(good.substr(0, 60)).find("header is cut short") !=
        std::string::npos);
  CHECK(refusal(good.substr(0, good.size() - 10)).find("truncated snapshot") !=
        std::string::npos);
  CHECK(refusal(good + "zz").find("trailing garbage") != std::string::npos);
  std::string v2 = good;
  v2[8] = 2;
  CHECK(refusal(v2) == "unsupported snapshot format version 2 (this is 1)");
  std::string flipped = good;
  flipped[200] ^= 1;
  CHECK(refusal(flipped) == "snapshot checksum mismatch: the file is damaged");
  std::string header = good;
  header[40] ^= 1; // the table count, under the header checksum
  CHECK(refusal(header) == "snapshot header checksum mismatch");
  CHECK(refusal(good).empty());
}

TEST_CASE("files that cannot be read are named", "[snapshot]") {
  TempDir d;
  auto open_error = [](const std::string &p) {
    try {
      MappedFile f(p);
    } catch (const SnapshotError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(open_error(d.path) == d.path + " is a directory, not a snapshot");
  CHECK(open_error(d.path + "/missing").find("cannot open") == 0);
  write(d.path + "/empty", "");
  CHECK(MappedFile(d.path + "/empty").bytes().empty());
}

TEST_CASE("a snapshot appears whole or not at all", "[snapshot]") {
  TempDir d;
  const std::string path = d.path + "/s";
  write(path, "the old file");
  {
    FileWriter w(path);
    w.write("partial", 7);
    // Dropped without finish(): as if the process died here.
  }
  CHECK(read(path) == "the old file");
  // No temporary file is left behind either.
  CHECK(std::system(("test $(ls -A '" + d.path + "' | wc -l) = 1").c_str()) ==
        0);
  make(path, "new");
  CHECK(View(read(path)).objects() == "new");
}
