#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../../lib/driver/block_text.h"
#include "../../lib/driver/line_reader.h"

using fastrestore::BlockText;

namespace {
std::vector<std::pair<int, std::string>> all(const BlockText &t) {
  std::vector<std::pair<int, std::string>> out;
  t.each(t.first(), t.first() + t.count() - 1,
         [&](std::string_view l, int n) { out.emplace_back(n, l); });
  return out;
}
} // namespace

TEST_CASE("a small block stays in memory", "[block_text]") {
  BlockText t;
  t.add(7, "*filter");
  t.add(8, "-A INPUT -j ACCEPT");
  t.add(9, "COMMIT");
  CHECK_FALSE(t.spilled());
  CHECK(t.first() == 7);
  CHECK(t.count() == 3);
  CHECK(t.line(8) == "-A INPUT -j ACCEPT");
  CHECK(t.line(6).empty());
  CHECK(t.line(10).empty());
  CHECK(all(t) ==
        std::vector<std::pair<int, std::string>>{
            {7, "*filter"}, {8, "-A INPUT -j ACCEPT"}, {9, "COMMIT"}});
}

TEST_CASE("a large block spills to a file and reads back the same",
          "[block_text]") {
  BlockText t(64); // spill after 64 bytes
  std::vector<std::pair<int, std::string>> want;
  for (int i = 0; i < 5000; ++i) {
    std::string l = "-A INPUT -s 10.0." + std::to_string(i % 256) + "." +
                    std::to_string(i / 256) + " -j ACCEPT";
    if (i % 97 == 0)
      l.append(3000, 'x'); // lines across chunk boundaries
    if (i % 31 == 0)
      l.clear(); // empty lines
    t.add(i + 1, l);
    want.emplace_back(i + 1, l);
  }
  CHECK(t.spilled());
  CHECK(t.count() == 5000);
  CHECK(all(t) == want);
  CHECK(t.line(1) == want[0].second);
  CHECK(t.line(98) == want[97].second);
  CHECK(t.line(5000) == want[4999].second);
  // A prefix, as the legacy locator reads it.
  std::vector<std::pair<int, std::string>> prefix;
  t.each(1, 40, [&](std::string_view l, int n) { prefix.emplace_back(n, l); });
  CHECK(prefix == std::vector<std::pair<int, std::string>>(want.begin(),
                                                           want.begin() + 40));
}

TEST_CASE("reset starts a new block, in memory again", "[block_text]") {
  BlockText t(16);
  for (int i = 1; i <= 100; ++i)
    t.add(i, "-A OUTPUT -j DROP");
  CHECK(t.spilled());
  t.reset();
  t.add(200, "*nat");
  CHECK_FALSE(t.spilled());
  CHECK(t.first() == 200);
  CHECK(t.count() == 1);
  CHECK(t.line(200) == "*nat");
  CHECK(t.line(1).empty());
}

TEST_CASE("a file's lines are read back from the file itself", "[block_text]") {
  // Lines of every length (one longer than the reader's buffer), empty
  // lines, and a last line without its newline.
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    std::string l = "-A INPUT -s 10.0." + std::to_string(i % 256) + " -j DROP";
    if (i % 500 == 7)
      l.append(i == 507 ? (3u << 20) : 5000, 'y');
    if (i % 41 == 0)
      l.clear();
    lines.push_back(l);
  }
  char path[] = "/tmp/fastrestore-block-text-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  std::string skipped = "# read by someone else first\n";
  std::string all_text = skipped;
  for (size_t i = 0; i < lines.size(); ++i)
    all_text += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  REQUIRE(write(fd, all_text.data(), all_text.size()) ==
          static_cast<ssize_t>(all_text.size()));
  REQUIRE(lseek(fd, static_cast<off_t>(skipped.size()), SEEK_SET) >= 0);

  BlockText t;
  t.read_from(fd, skipped.size());
  fastrestore::LineReader reader(fd);
  std::string_view line;
  int n = 0;
  std::vector<std::pair<int, std::string>> want;
  while (reader.next(line)) {
    ++n;
    if (n == 400) { // a new block
      t.reset();
      want.clear();
    }
    t.add(n, line, reader.line_offset());
    want.emplace_back(n, std::string(line));
  }
  CHECK(n == 3000);
  CHECK_FALSE(t.spilled());
  CHECK(all(t) == want);
  CHECK(t.line(400) == lines[399]);
  CHECK(t.line(508) == lines[507]); // longer than the reader's buffer
  CHECK(t.line(399).empty());
  CHECK(t.line(1508) == lines[1507]);
  CHECK(t.line(3000) == lines[2999]);
  close(fd);
}
