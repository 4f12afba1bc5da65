// The reading thread: lines in order with their offsets and scans, a line
// handed over as soon as it arrives, errors where they happen, and a stop
// that does not wait for a quiet pipe.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../../lib/driver/prescan.h"
#include "fastrestore/diagnostic.h"
#include "sys/hash64.h"

using fastrestore::BasicAppend;
using fastrestore::Family;
using fastrestore::PreScanner;

TEST_CASE("a file's lines in order, with offsets and scans", "[prescan]") {
  char path[] = "/tmp/fastrestore-prescan-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  std::vector<std::string> lines;
  std::string text;
  for (int i = 0; i < 20000; ++i) { // several chunks
    std::string l = i % 5 == 0 ? "# comment " + std::to_string(i)
                    : i % 5 == 1
                        ? "-A INPUT -p tcp --dport " +
                              std::to_string(i % 60000 + 1) + " -j ACCEPT"
                    : i % 5 == 2 ? "-A INPUT -m comment --comment x"
                    : i % 5 == 3 ? std::string("-A INPUT -j ACCEPT\0x", 20)
                                 : "[1:2] -A INPUT -j ACCEPT";
    lines.push_back(l);
    text += l + "\n";
  }
  text += "COMMIT"; // no newline at the end
  lines.push_back("COMMIT");
  REQUIRE(write(fd, text.data(), text.size()) ==
          static_cast<ssize_t>(text.size()));
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);

  PreScanner p(fd, Family::ipv4, true);
  std::string_view line;
  BasicAppend *pre = nullptr;
  uint64_t offset = 0;
  size_t n = 0, scans = 0;
  while (p.next(line, pre)) {
    REQUIRE(n < lines.size());
    CHECK(line == lines[n]);
    CHECK(p.line_offset() == offset);
    CHECK(p.line_hash() == fastrestore::hash64(line));
    offset += line.size() + 1;
    // Only plain rule lines are scanned (not a NUL's, not a counter's),
    // and not in the chunks left to the main thread.
    CHECK((pre == nullptr || n % 5 == 1));
    if (pre != nullptr) {
      CHECK(pre->dpts[0] == n % 60000 + 1);
      ++scans;
    }
    ++n;
  }
  CHECK(n == lines.size());
  CHECK(scans > lines.size() / 5 / 2); // most of the rule lines
  CHECK_FALSE(p.next(line, pre));      // and stays at the end
  close(fd);
}

TEST_CASE("a pipe's lines are handed over as they arrive", "[prescan]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  PreScanner p(fds[0], Family::ipv6, false);
  std::string_view line;
  BasicAppend *pre = nullptr;
  for (int i = 0; i < 3; ++i) {
    // The writer stays open: the line must come without the end of input.
    std::string l = "-A INPUT -s 2001:db8::" + std::to_string(i + 1) + "\n";
    REQUIRE(write(fds[1], l.data(), l.size()) ==
            static_cast<ssize_t>(l.size()));
    REQUIRE(p.next(line, pre));
    CHECK(line == l.substr(0, l.size() - 1));
    // A chunk a line; the third is the main thread's to scan.
    CHECK((pre != nullptr) == (i != 2));
    if (pre != nullptr)
      CHECK(pre->src[15] == i + 1);
    CHECK(p.line_hash() == 0); // not asked for
  }
  close(fds[1]);
  CHECK_FALSE(p.next(line, pre));
  close(fds[0]);
}

TEST_CASE("stopping does not wait for a quiet pipe", "[prescan]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const auto start = std::chrono::steady_clock::now();
  {
    PreScanner p(fds[0], Family::ipv4, false);
    // Half a line, then nothing: the thread waits inside a line.
    REQUIRE(write(fds[1], "-A INPUT", 8) == 8);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  close(fds[0]);
  close(fds[1]);
}

TEST_CASE("a read error comes where it happened", "[prescan]") {
  int fd = open("/", O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  PreScanner p(fd, Family::ipv4, false);
  std::string_view line;
  BasicAppend *pre = nullptr;
  CHECK_THROWS_AS(p.next(line, pre), fastrestore::Error);
  close(fd);
}
