// The --incremental engine (IncrementalBlock with its JournalKeeper and
// delta) through run_restore against a FakeKernel: a reload sends what
// changed and ends where a full restore ends; an unchanged reload sends
// nothing; another program's commit makes it read the table. (The
// journal trusts only a directory root owns: without root the journal is
// off, and only the end states are compared.)
#include <catch2/catch.hpp>

#include <unistd.h>

#include <sstream>

#include "fake_kernel.h"
#include "fastrestore/restore.h"
#include "helpers.h"

using namespace fastrestore;

namespace {

// With `stats`, --stats' lines go there.
int restore(test::FakeKernel &k, const std::string &text, bool incremental,
            bool noflush = false, std::string *stats = nullptr) {
  RestoreConfig cfg;
  cfg.incremental = incremental;
  cfg.noflush = noflush;
  cfg.stats = stats != nullptr;
  std::string err;
  const int rc = test::restore_text(k, text, cfg, &err);
  INFO(err);
  if (stats != nullptr)
    *stats = err;
  else
    CHECK(err.empty());
  return rc;
}

// Every table of the fake: its chains, their policies and their rules as
// set (no handles).
std::string state(const test::FakeKernel &k) {
  std::ostringstream out;
  for (const auto &[key, t] : k.tables()) {
    out << "table " << key.first << " " << key.second << "\n";
    for (const auto &c : t.chains) {
      out << " chain " << c.name << " policy " << c.has_policy << "/"
          << c.policy << "\n";
      for (const auto &r : c.rules)
        out << "  rule " << std::hash<std::string>()(r.message.substr(20))
            << "\n";
    }
  }
  return out.str();
}

std::string rules(int n, int changed_at = -1) {
  std::string text = "*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n"
                     ":OUTPUT ACCEPT [0:0]\n:web - [0:0]\n:ssh - [0:0]\n"
                     "-A INPUT -p tcp --dport 80 -j web\n"
                     "-A INPUT -p tcp --dport 22 -j ssh\n";
  for (int i = 0; i < n; ++i)
    text += "-A web -s 10.0." + std::to_string(i / 250) + "." +
            std::to_string(i % 250) + " -j " +
            (i == changed_at ? "DROP" : "ACCEPT") + "\n";
  text += "-A ssh -s 192.0.2.1 -j ACCEPT\nCOMMIT\n";
  return text;
}

} // namespace

TEST_CASE("incremental: a reload sends what changed and ends as a full "
          "restore",
          "[incremental]") {
  test::JournalDir dir;
  const bool journal = geteuid() == 0;
  test::FakeKernel k;
  REQUIRE(restore(k, rules(300), true) == 0);
  const int reads = k.table_reads;
  // One rule changed, and one more at the end.
  const std::string next = rules(301, 150);
  std::string stats;
  REQUIRE(restore(k, next, true, false, &stats) == 0);
  test::FakeKernel full;
  REQUIRE(restore(full, next, false) == 0);
  CHECK(state(k) == state(full));
  if (journal) {
    // The changed rule out and in, the new one: a handful of messages.
    CHECK(k.last_messages < 10);
    CHECK(k.table_reads == reads);
    // Every line the journal knew was taken before the parser: all but
    // the changed rule and the new one.
    CHECK(stats.find(", 304 lines unparsed;") != std::string::npos);
  }
  // Unchanged: nothing sent.
  const int batches = k.batches;
  REQUIRE(restore(k, next, true) == 0);
  if (journal)
    CHECK(k.batches == batches);
  CHECK(state(k) == state(full));
  // Another program committed: the journal's record is stale, the table
  // is read, and still only the change goes.
  k.commit_elsewhere();
  const std::string third = rules(299);
  REQUIRE(restore(k, third, true) == 0);
  test::FakeKernel full3;
  REQUIRE(restore(full3, third, false) == 0);
  CHECK(state(k) == state(full3));
  if (journal) {
    CHECK(k.table_reads == reads + 1);
    CHECK(k.last_messages < 10);
  }
}

TEST_CASE("incremental --noflush: commands against the journal end as "
          "without it",
          "[incremental]") {
  test::JournalDir dir;
  test::FakeKernel a, b;
  for (test::FakeKernel *k : {&a, &b})
    REQUIRE(restore(*k, rules(20), k == &a) == 0);
  const std::string commands = "*filter\n-D web 3\n-I web 2 -s 198.51.100.7 "
                               "-j DROP\n-R ssh 1 -s 192.0.2.9 -j ACCEPT\n"
                               "-A web -s 10.9.9.9 -j ACCEPT\nCOMMIT\n";
  REQUIRE(restore(a, commands, true, true) == 0);
  REQUIRE(restore(b, commands, false, true) == 0);
  CHECK(state(a) == state(b));
}

TEST_CASE("incremental --noflush: commands find their rules in the "
          "journal's record",
          "[incremental]") {
  test::JournalDir dir;
  const bool journal = geteuid() == 0;
  test::FakeKernel a, b;
  for (test::FakeKernel *k : {&a, &b})
    REQUIRE(restore(*k, rules(20), k == &a) == 0);
  const int tables = a.table_reads, chains = a.chain_reads;
  // By position, and -C of a rule the record holds: no read.
  const std::string commands = "*filter\n-D web 3\n-I web 2 -s 198.51.100.7 "
                               "-j DROP\n-R ssh 1 -s 192.0.2.9 -j ACCEPT\n"
                               "-C web -s 10.0.0.5/32 -j ACCEPT\nCOMMIT\n";
  REQUIRE(restore(a, commands, true, true) == 0);
  REQUIRE(restore(b, commands, false, true) == 0);
  CHECK(state(a) == state(b));
  if (journal) {
    CHECK(a.table_reads == tables);
    CHECK(a.chain_reads == chains);
  }
  // -D by rule, the rule found by its key: no read either.
  const std::string del = "*filter\n-D web -s 10.0.0.5/32 -j ACCEPT\nCOMMIT\n";
  REQUIRE(restore(a, del, true, true) == 0);
  REQUIRE(restore(b, del, false, true) == 0);
  CHECK(state(a) == state(b));
  if (journal) {
    CHECK(a.table_reads == tables);
    CHECK(a.chain_reads == chains);
  }
  // The record kept what those commands made: the next ones read nothing
  // either.
  const std::string more = "*filter\n-I web 3 -s 198.51.100.8 -j DROP\n"
                           "-R web 4 -s 10.0.0.44 -j ACCEPT\n-D web 3\n"
                           "COMMIT\n";
  REQUIRE(restore(a, more, true, true) == 0);
  REQUIRE(restore(b, more, false, true) == 0);
  CHECK(state(a) == state(b));
  if (journal) {
    CHECK(a.table_reads == tables);
    CHECK(a.chain_reads == chains);
  }
  // A rule the record does not hold: the chain read, and refused alike.
  auto refusal = [](test::FakeKernel &k, const std::string &text,
                    bool incremental) {
    RestoreConfig cfg;
    cfg.incremental = incremental;
    cfg.noflush = true;
    std::string err;
    const int rc = test::restore_text(k, text, cfg, &err);
    return std::to_string(rc) + " " + err;
  };
  const std::string missing =
      "*filter\n-C web -s 10.0.0.99/32 -j ACCEPT\nCOMMIT\n";
  CHECK(refusal(a, missing, true) == refusal(b, missing, false));
  if (journal)
    CHECK(a.chain_reads == chains + 1);
  // -Z needs the rules' messages, and so does -D by rule after a rule
  // the block put in the chain (which may be the first same one): read
  // after all.
  const std::string zero = "*filter\n-I web 1 -s 203.0.113.1 -j DROP\n"
                           "-D web -s 10.0.0.7/32 -j ACCEPT\n-Z web\n"
                           "-D web 2\nCOMMIT\n";
  REQUIRE(restore(a, zero, true, true) == 0);
  REQUIRE(restore(b, zero, false, true) == 0);
  CHECK(state(a) == state(b));
  // A -C that finds its rule changes nothing: nothing read, nothing sent,
  // and the record stays current (the next -C reads nothing either).
  const int batches = a.batches, chain_reads = a.chain_reads,
            table_reads = a.table_reads;
  for (int i = 0; i < 2; ++i)
    REQUIRE(restore(a, "*filter\n-C web -s 10.0.0.19/32 -j ACCEPT\nCOMMIT\n",
                    true, true) == 0);
  CHECK(a.batches == batches);
  CHECK(state(a) == state(b));
  if (journal) {
    CHECK(a.chain_reads == chain_reads);
    CHECK(a.table_reads == table_reads);
  }
}
