#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../../lib/driver/block_text.h"

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
