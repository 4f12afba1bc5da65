// The state journal (journal.h) without a kernel: records round-trip,
// and every file it should not trust is ignored.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "journal/journal.h"
#include "journal_samples.h"

using namespace fastrestore;
using namespace fastrestore::test;

TEST_CASE("journal: a table record round-trips, and only for its own key",
          "[journal]") {
  const JournalKey key{ns(), 2, "filter"};
  const std::string bytes = encode_table_record(key, 99, sample());
  std::string why;
  auto back = decode_table_record(bytes, key, 99, &why);
  REQUIRE(back);
  CHECK(same(*back, sample()));
  // At most 32 bytes a rule: a key, a line hash and a varint handle.
  const std::string big = encode_table_record(key, 1, sample(100000));
  CHECK(big.size() < 100000 * 20);
  // A user chain (a kube-proxy table has 40,000) is its name, a flags
  // byte, its count of rules and the length of their bytes: hook,
  // priority, type and policy are left out when they are nothing, and so
  // is the hash of no rules.
  TableState users;
  users.chains.resize(2);
  users.chains[0].name = "KUBE-SEP-0123456789ABCDEF";
  users.chains[1].name = "KUBE-SEP-0123456789ABCDEG";
  const std::string one_more = encode_table_record(key, 1, users);
  users.chains.pop_back();
  CHECK(one_more.size() - encode_table_record(key, 1, users).size() ==
        1 + 25 + 1 + 1 + 1);

  CHECK_FALSE(decode_table_record(bytes, key, 98, &why));
  CHECK(why == "not the record the index names");
  CHECK_FALSE(
      decode_table_record(bytes, JournalKey{ns(43), 2, "filter"}, 99, &why));
  CHECK(why == "of another network namespace");
  JournalKey other_boot = key;
  other_boot.ns.boot[0] = 'f';
  CHECK_FALSE(decode_table_record(bytes, other_boot, 99, &why));
  CHECK(why == "written in another boot");
  CHECK_FALSE(
      decode_table_record(bytes, JournalKey{ns(), 10, "filter"}, 99, &why));
  CHECK(why == "of another table");
}

TEST_CASE("journal: truncated or altered bytes are refused", "[journal]") {
  const JournalKey key{ns(), 2, "filter"};
  const std::string bytes = encode_table_record(key, 5, sample());
  std::string why;
  for (size_t n = 0; n < bytes.size(); ++n)
    CHECK_FALSE(decode_table_record(bytes.substr(0, n), key, 5, &why));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x20;
    CHECK_FALSE(decode_table_record(bad, key, 5, &why));
  }
  JournalIndex index;
  index.generation = 7;
  index.tables.push_back({2, "filter", 5});
  const std::string ib = encode_index(ns(), index);
  REQUIRE(decode_index(ib, ns(), &why));
  CHECK(decode_index(ib, ns(), &why)->generation == 7);
  CHECK_FALSE(decode_index(ib.substr(0, ib.size() - 1), ns(), &why));
  CHECK_FALSE(decode_index(ib, ns(1), &why));
}

TEST_CASE("journal: a record is current at its generation only", "[journal]") {
  Dir d;
  Journal j(d.path, ns());
  const TableState t = sample();
  std::string why;
  REQUIRE(keep(j, 2, "filter", 10, 11, &t, 11, &why));
  auto got = j.load(2, "filter", 11, &why);
  REQUIRE(got);
  CHECK(same(*got, t));
  CHECK_FALSE(j.load(2, "filter", 12, &why));
  CHECK(why.rfind("stale", 0) == 0);
  CHECK_FALSE(j.load(2, "nat", 11, &why));
  CHECK(why == "no record of this table");
  // Another namespace sees nothing of it.
  CHECK_FALSE(Journal(d.path, ns(7)).load(2, "filter", 11, &why));
}

TEST_CASE("journal: a record encoded ahead is the one written", "[journal]") {
  Dir d;
  Journal j(d.path, ns());
  const TableState t = sample();
  std::string why;
  const Journal::Encoded ahead = j.encode(2, "filter", t);
  CHECK(ahead.bytes ==
        encode_table_record(JournalKey{ns(), 2, "filter"}, ahead.serial, t));
  REQUIRE(j.record(
      2, "filter", 10, 11, &ahead, [] { return gen(11); }, &why));
  auto got = j.load(2, "filter", 11, &why);
  REQUIRE(got);
  CHECK(same(*got, t));
}

TEST_CASE("journal: fastrestore's own commit keeps its other tables current",
          "[journal]") {
  Dir d;
  Journal j(d.path, ns());
  const TableState t = sample();
  std::string why;
  REQUIRE(keep(j, 2, "filter", 10, 11, &t, 11, &why));
  REQUIRE(keep(j, 2, "nat", 11, 12, &t, 12, &why));
  CHECK(j.load(2, "filter", 12, &why));
  CHECK(j.load(2, "nat", 12, &why));
  // A commit from a generation the index was not at (another tool came
  // between) keeps only the table it records.
  REQUIRE(keep(j, 10, "filter", 20, 21, &t, 21, &why));
  CHECK(j.load(10, "filter", 21, &why));
  CHECK_FALSE(j.load(2, "filter", 21, &why));
  // Forgetting a table drops its record.
  REQUIRE(keep(j, 10, "filter", 21, 22, nullptr, 22, &why));
  CHECK_FALSE(j.load(10, "filter", 22, &why));
  // Nothing is written when another commit came right after.
  CHECK_FALSE(keep(j, 2, "raw", 22, 23, &t, 24, &why));
  CHECK_FALSE(j.load(2, "raw", 23, &why));
}

TEST_CASE("journal: files it should not trust are ignored", "[journal]") {
  const TableState t = sample();
  std::string why;
  const std::string table_file =
      ns().boot + "-" + std::to_string(ns().cookie) + "-2-filter.table";
  const std::string index_file =
      ns().boot + "-" + std::to_string(ns().cookie) + ".index";
  auto fresh = [&](Dir &d) {
    Journal j(d.path, ns());
    REQUIRE(keep(j, 2, "filter", 1, 2, &t, 2, &why));
    REQUIRE(j.load(2, "filter", 2, &why));
    return j;
  };

  SECTION("a record reached through a symlink") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(rename(d.file(table_file).c_str(), d.file("elsewhere").c_str()) ==
            0);
    REQUIRE(symlink("elsewhere", d.file(table_file).c_str()) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
    CHECK(why.find("symlink") != std::string::npos);
  }
  SECTION("an index reached through a symlink") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(rename(d.file(index_file).c_str(), d.file("elsewhere").c_str()) ==
            0);
    REQUIRE(symlink("elsewhere", d.file(index_file).c_str()) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
  }
  SECTION("a record not owned by root") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(chown(d.file(table_file).c_str(), 1000, 1000) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
    CHECK(why.find("owned") != std::string::npos);
  }
  SECTION("a record others may write") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(chmod(d.file(table_file).c_str(), 0666) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
  }
  SECTION("a directory others may write") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(chmod(d.path.c_str(), 0777) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
    CHECK_FALSE(keep(j, 2, "filter", 2, 3, &t, 3, &why));
  }
  SECTION("a directory that is a symlink") {
    Dir d;
    fresh(d);
    const std::string link = d.path + ".link";
    REQUIRE(symlink(d.path.c_str(), link.c_str()) == 0);
    CHECK_FALSE(Journal(link, ns()).load(2, "filter", 2, &why));
    unlink(link.c_str());
  }
  SECTION("a truncated record") {
    Dir d;
    Journal j = fresh(d);
    REQUIRE(truncate(d.file(table_file).c_str(), 20) == 0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
  }
  SECTION("a corrupt index") {
    Dir d;
    Journal j = fresh(d);
    std::fstream f(d.file(index_file),
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('\x7f');
    f.close();
    CHECK_FALSE(j.load(2, "filter", 2, &why));
  }
  SECTION("another namespace's record copied in its place") {
    Dir d;
    Journal j = fresh(d);
    Dir other;
    Journal k(other.path, ns(9));
    REQUIRE(keep(k, 2, "filter", 1, 2, &t, 2, &why));
    const std::string theirs = ns().boot + "-9-2-filter.table";
    REQUIRE(rename(other.file(theirs).c_str(), d.file(table_file).c_str()) ==
            0);
    CHECK_FALSE(j.load(2, "filter", 2, &why));
  }
}

TEST_CASE("journal: pruning drops other boots' files and leftovers",
          "[journal]") {
  Dir d;
  const TableState t = sample();
  std::string why;
  Journal old_boot(d.path, NetnsId{std::string(32, 'e'), 1});
  REQUIRE(keep(old_boot, 2, "filter", 1, 2, &t, 2, &why));
  Journal other_ns(d.path, NetnsId{ns().boot, 77});
  REQUIRE(keep(other_ns, 2, "filter", 1, 2, &t, 2, &why));
  Journal j(d.path, ns());
  REQUIRE(keep(j, 2, "filter", 1, 2, &t, 2, &why));
  CHECK_FALSE(old_boot.load(2, "filter", 2, &why));
  CHECK(other_ns.load(2, "filter", 2, &why)); // may still be in use
  CHECK(j.load(2, "filter", 2, &why));
}

TEST_CASE("journal: pruning leaves every file it did not write", "[journal]") {
  Dir d;
  const TableState t = sample();
  std::string why;
  for (const char *name :
       {"rules.v4.snap", "rules.v6.snap", "app.pid", "state.db",
        // journal-like names that the journal never writes
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-1.index.bak",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-x.index", ".tmp.notes"}) {
    std::ofstream(d.file(name)) << "keep me\n";
  }
  REQUIRE(symlink("/etc/hostname", d.file("link").c_str()) == 0);
  // A link and a FIFO named as another boot's files.
  REQUIRE(symlink("/etc/hostname",
                  d.file(std::string(32, 'e') + "-9.index").c_str()) == 0);
  REQUIRE(mkfifo(d.file(std::string(32, 'e') + "-2-2-filter.table").c_str(),
                 0600) == 0);
  REQUIRE(mkfifo(d.file("fifo").c_str(), 0600) == 0);
  REQUIRE(mkdir(d.file("sub").c_str(), 0700) == 0);
  // Another boot's real record goes.
  Journal old_boot(d.path, NetnsId{std::string(32, 'e'), 1});
  REQUIRE(keep(old_boot, 2, "filter", 1, 2, &t, 2, &why));
  const std::string old_index =
      d.file(std::string(32, 'e') + "-1-2-filter.table");
  REQUIRE(std::filesystem::exists(old_index));
  Journal j(d.path, ns());
  REQUIRE(keep(j, 2, "filter", 1, 2, &t, 2, &why));
  CHECK_FALSE(std::filesystem::exists(old_index));
  for (const char *name :
       {"rules.v4.snap", "rules.v6.snap", "app.pid", "state.db",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-1.index.bak",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-x.index", ".tmp.notes", "fifo",
        "sub"})
    CHECK(std::filesystem::exists(d.file(name)));
  CHECK(std::filesystem::is_symlink(d.file("link")));
  CHECK(std::filesystem::is_symlink(d.file(std::string(32, 'e') + "-9.index")));
  CHECK(std::filesystem::is_fifo(
      d.file(std::string(32, 'e') + "-2-2-filter.table")));
  std::string text;
  std::getline(std::ifstream(d.file("rules.v4.snap")), text);
  CHECK(text == "keep me");
  CHECK(j.load(2, "filter", 2, &why));
}
