#include <catch2/catch.hpp>

#include <sstream>

#include "helpers.h"
#include "parse/restore_parser.h"

using namespace fastrestore;

namespace {

// Feeds text line by line; returns the committed blocks.
std::vector<Block> feed(const std::string &text, ParseOptions opts = {}) {
  std::vector<Block> blocks;
  BlockCollector sink([&](Block &&b) { blocks.push_back(std::move(b)); });
  test::ParserOfItsOwn parser(Family::ipv4);
  RestoreParser p(parser.get(), opts, sink);
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    p.feed(line, ++n);
  p.finish(n);
  return blocks;
}

Diagnostic feed_error(const std::string &text, ParseOptions opts = {}) {
  try {
    feed(text, opts);
  } catch (const Error &e) {
    return e.diag();
  }
  return {};
}

} // namespace

TEST_CASE("a block per COMMIT with declarations and commands in order",
          "[restore_parser]") {
  auto blocks = feed("# comment\n"
                     "*filter\n"
                     ":INPUT DROP [1:2]\n"
                     ":mine - [0:0]\n"
                     "-A INPUT -j mine\n"
                     "\n"
                     "COMMIT\n"
                     "*nat\n"
                     "COMMIT\n");
  REQUIRE(blocks.size() == 2);
  const Block &f = blocks[0];
  CHECK(f.table == "filter");
  CHECK(f.loc.line == 2);
  CHECK(f.commit_loc.line == 7);
  REQUIRE(f.entries.size() == 3);
  REQUIRE(f.entries[0].decl);
  CHECK(f.entries[0].decl->name == "INPUT");
  CHECK(f.entries[0].decl->builtin);
  CHECK(f.entries[0].decl->policy == "DROP");
  CHECK(f.entries[0].decl->packets == 0); // counters only with -c
  CHECK_FALSE(f.entries[1].decl->builtin);
  REQUIRE(f.entries[2].cmd);
  CHECK(f.entries[2].cmd->loc.line == 5);
  CHECK(blocks[1].table == "nat");
  CHECK(blocks[1].entries.empty());
}

TEST_CASE("counters are read with -c", "[restore_parser]") {
  ParseOptions o;
  o.counters = true;
  auto blocks =
      feed("*filter\n:INPUT ACCEPT [5:6]\n[7:8] -A INPUT\nCOMMIT\n", o);
  CHECK(blocks[0].entries[0].decl->packets == 5);
  CHECK(blocks[0].entries[0].decl->bytes == 6);
  CHECK(blocks[0].entries[1].cmd->rules[0].packets == 7);
  CHECK(blocks[0].entries[1].cmd->rules[0].bytes == 8);
}

TEST_CASE("option -T keeps one table", "[restore_parser]") {
  ParseOptions o;
  o.only_table = "nat";
  auto blocks = feed("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*nat\nCOMMIT\n", o);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].table == "nat");
  // A left-out table without COMMIT does not swallow the next one.
  auto more = feed("*filter\n-A INPUT\n*nat\n-A PREROUTING\nCOMMIT\n", o);
  REQUIRE(more.size() == 1);
  CHECK(more[0].entries.size() == 1);
}

TEST_CASE("format errors name the line", "[restore_parser]") {
  auto missing = feed_error("*filter\n-A INPUT -j ACCEPT\n");
  CHECK(missing.code == ExitCode::format);
  CHECK(missing.loc.line == 3);
  CHECK(missing.message.find("COMMIT expected") == 0);

  auto table = feed_error("*filtr\nCOMMIT\n");
  CHECK(table.code == ExitCode::parameter);
  CHECK(table.message == "table name 'filtr' invalid");
  CHECK(table.loc.col_begin == 2);

  auto outside = feed_error("-A INPUT -j ACCEPT\n");
  CHECK(outside.code == ExitCode::format);
  CHECK(outside.loc.line == 1);

  // A built-in chain's policy: iptables-legacy-restore refuses it at its
  // line; iptables-nft when it carries out the block (the planner).
  ParseOptions legacy;
  legacy.legacy = true;
  auto policy = feed_error("*filter\n:INPUT MAYBE [0:0]\nCOMMIT\n", legacy);
  CHECK(policy.code == ExitCode::format);
  CHECK(policy.loc.col_begin == 8);
  CHECK(feed("*filter\n:INPUT MAYBE [0:0]\nCOMMIT\n").size() == 1);

  auto bracket = feed_error("*filter\n[1:2 -A INPUT\nCOMMIT\n");
  CHECK(bracket.message == "Bad line 2: need ]");

  auto nested = feed_error("*filter\n*nat\nCOMMIT\n");
  CHECK(nested.code == ExitCode::parameter);
  CHECK(nested.loc.line == 2);
}

TEST_CASE("rule errors keep columns past a counter prefix",
          "[restore_parser]") {
  ParseOptions o;
  o.counters = true;
  auto d = feed_error("*filter\n[1:2] -A INPUT --bogus\nCOMMIT\n", o);
  CHECK(d.loc.line == 2);
  CHECK(d.loc.col_begin == 16);
  CHECK(d.loc.col_end == 22);
}

TEST_CASE("chain names the reference tools refuse", "[restore_parser]") {
  for (const char *v : {"ACCEPT", "DROP", "QUEUE", "RETURN"}) {
    auto e = feed_error(std::string("*filter\n:") + v + " - [0:0]\nCOMMIT\n");
    CHECK(e.code == ExitCode::parameter);
    CHECK(e.message == "chain name may not clash with target name");
    CHECK(e.loc.line == 2);
    CHECK(e.loc.col_begin == 2);
  }
  // Target plugins' names become chains once a chain line declares them.
  CHECK(feed("*filter\n:LOG - [0:0]\n:REJECT - [0:0]\nCOMMIT\n").size() == 1);
  for (const char *ws : {"\v", "\f", "\r"}) {
    auto e =
        feed_error(std::string("*filter\n:a") + ws + "b - [0:0]\nCOMMIT\n");
    CHECK(e.code == ExitCode::parameter);
    CHECK(e.message == std::string("Invalid chain name `a") + ws + "b'");
  }
  // iptables-legacy-restore leaves both to libiptc, which takes a\vb.
  ParseOptions legacy;
  legacy.legacy = true;
  CHECK(feed("*filter\n:a\vb - [0:0]\n:ACCEPT - [0:0]\nCOMMIT\n", legacy)
            .size() == 1);
}

TEST_CASE("a NUL ends the line, and a line of NULs is a command of no words",
          "[restore_parser]") {
  using namespace std::string_literals;
  auto in_table = feed_error("*filter\n\0\0\nCOMMIT\n"s);
  CHECK(in_table.code == ExitCode::parameter);
  CHECK(in_table.message == "no command specified");
  CHECK(in_table.loc.line == 2);
  auto outside = feed_error("\0\n*filter\nCOMMIT\n"s);
  CHECK(outside.code == ExitCode::format);
  CHECK(outside.loc.line == 1);
  // An empty line is no command at all.
  CHECK(feed("\n*filter\n\nCOMMIT\n").size() == 1);
  // Text after a NUL is not read: COMMIT\0x commits.
  CHECK(feed("*filter\nCOMMIT\0x\n"s).size() == 1);
}
