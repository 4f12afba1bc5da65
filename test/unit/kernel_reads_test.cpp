// What a block reads of the kernel, through run_restore against a
// FakeKernel: a command on one chain reads that chain, a command on every
// chain reads the table (once a block, whoever asks), and -v's lines of a
// replaced table read the chains alone.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>
#include <unistd.h>

#include <sstream>

#include "fake_kernel.h"
#include "fastrestore/restore.h"
#include "helpers.h"

using namespace fastrestore;

namespace {

int restore(test::FakeKernel &k, const std::string &text, bool noflush,
            int verbose = 0, bool incremental = false) {
  RestoreConfig cfg;
  cfg.noflush = noflush;
  cfg.verbose = verbose;
  cfg.incremental = incremental;
  std::string err;
  const int rc = test::restore_text(k, text, cfg, &err);
  INFO(err);
  return rc;
}

const char *const kTable = "*filter\n:INPUT ACCEPT [0:0]\n:big - [0:0]\n"
                           ":small - [0:0]\n-A big -s 10.0.0.1 -j ACCEPT\n"
                           "-A big -s 10.0.0.2 -j ACCEPT\n"
                           "-A small -s 10.0.0.3 -j DROP\n"
                           "-A small -s 10.0.0.4 -j DROP\nCOMMIT\n";

} // namespace

TEST_CASE("reads: a command on one chain reads that chain", "[reads]") {
  test::FakeKernel k;
  REQUIRE(restore(k, kTable, false) == 0);
  const int tables = k.table_reads;
  REQUIRE(restore(k,
                  "*filter\n-D small -s 10.0.0.3 -j DROP\n-I small 1 -s "
                  "10.0.0.5 -j DROP\n-C small -s 10.0.0.5 -j DROP\nCOMMIT\n",
                  true) == 0);
  CHECK(k.table_reads == tables);
  CHECK(k.chain_reads == 1);
  const auto &small = k.tables().at({NFPROTO_IPV4, "filter"}).chains[2];
  REQUIRE(small.name == "small");
  CHECK(small.rules.size() == 2);
  // Every chain: the table.
  REQUIRE(restore(k, "*filter\n-Z\nCOMMIT\n", true) == 0);
  CHECK(k.table_reads == tables + 1);
}

TEST_CASE("reads: -v of a replaced table reads its chains, not its rules",
          "[reads]") {
  test::FakeKernel k;
  REQUIRE(restore(k, kTable, false) == 0);
  const int tables = k.table_reads, lists = k.chain_list_reads;
  REQUIRE(restore(k, kTable, false, 1) == 0);
  CHECK(k.table_reads == tables);
  CHECK(k.chain_list_reads == lists + 1);
}

TEST_CASE("reads: a block reads the table whole once, however many ask",
          "[reads]") {
  test::JournalDir dir;
  test::FakeKernel k;
  REQUIRE(restore(k, kTable, false) == 0);
  const int tables = k.table_reads, chains = k.chain_reads;
  // -Z needs every chain (the planner reads the table); the twenty rules
  // make reading pay for --incremental, whose engine reads it too (to
  // record the table the commands make): one dump serves both.
  std::string text = "*filter\n-Z\n";
  for (int i = 0; i < 20; ++i)
    text += "-A small -s 10.1.0." + std::to_string(i) + " -j DROP\n";
  text += "COMMIT\n";
  REQUIRE(restore(k, text, true, 0, true) == 0);
  CHECK(k.table_reads == tables + 1);
  CHECK(k.chain_reads == chains);
  const auto &small = k.tables().at({NFPROTO_IPV4, "filter"}).chains[2];
  REQUIRE(small.name == "small");
  CHECK(small.rules.size() == 22);
}
