// EbParser without a kernel: ebtables rule lines to commands, the
// options ebtables-nft-restore takes (--concurrent, --check) and those it
// refuses in restore input, and ebtables' long option names as getopt_long
// resolves them.
#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include "fastrestore/eb_parser.h"
#include "fastrestore/xtables_bridge.h"
#include "lex/lexer.h"

using namespace fastrestore;

namespace {

EbParser &parser() {
  static EbParser p;
  return p;
}

Command parse_eb(const std::string &line) {
  LexResult lex = split_words(line);
  REQUIRE(lex.error.empty());
  return parser().parse(lex.tokens, "filter", 1, line, nullptr);
}

std::string eb_error(const std::string &line) {
  try {
    parse_eb(line);
  } catch (const Error &e) {
    return e.diag().message;
  }
  return "";
}

} // namespace

TEST_CASE("EbParser: a rule with protocol, interface and MAC", "[eb_parser]") {
  Command c =
      parse_eb("-A FORWARD -p IPv4 -i eth0 -s 00:11:22:33:44:55 -j DROP");
  CHECK(c.kind == CommandKind::append);
  CHECK(c.chain == "FORWARD");
  REQUIRE(c.rules.size() == 1);
  const Rule &r = c.rules[0];
  CHECK(r.verdict == Verdict::drop);
  CHECK(r.eb.ethproto == htons(0x0800));
  CHECK(r.eb.smac[5] == 0x55);
}

TEST_CASE("EbParser: --concurrent means nothing, --check is a command",
          "[eb_parser]") {
  Command a = parse_eb("-A FORWARD --concurrent -p ARP -j ACCEPT");
  CHECK(a.kind == CommandKind::append);
  CHECK(a.rules.size() == 1);
  Command c = parse_eb("--check FORWARD -p ARP -j ACCEPT");
  CHECK(c.kind == CommandKind::check);
  CHECK(c.chain == "FORWARD");
  CHECK(c.rules.size() == 1);
}

TEST_CASE("EbParser: restore input refuses listings and the table option",
          "[eb_parser]") {
  CHECK(eb_error("-L") == "Option \"-L\" is not supported in restore input");
  CHECK(eb_error("-t nat -A PREROUTING -j ACCEPT") ==
        "The -t option cannot be used in ebtables-restore.");
  CHECK(eb_error("-A FORWARD -j DROP extra") == "Bad argument : 'extra'");
  CHECK(eb_error("-A FORWARD -I FORWARD") ==
        "Multiple commands are not allowed");
}

TEST_CASE("EbParser: -D by number reads base 10", "[eb_parser]") {
  Command d = parse_eb("-D FORWARD 12");
  CHECK(d.kind == CommandKind::remove_num);
  CHECK(d.rulenum == 12);
  CHECK(eb_error("-D FORWARD 0x10") ==
        "Problem with the specified rule number(s) '0x10'");
}

TEST_CASE("ebtables_long_option: exact names and unique abbreviations",
          "[eb_parser]") {
  CHECK(ebtables_long_option("list") == "list");
  CHECK(ebtables_long_option("lis") == "list");
  CHECK(ebtables_long_option("concur") == "concurrent");
  CHECK(ebtables_long_option("tab") == "table");
  // in-if and in-interface are one option: no ambiguity.
  CHECK(ebtables_long_option("in-i") == "in-interface");
  CHECK(ebtables_long_option("in") == ""); // insert, init-table, ...
  // logical-in and logical-out are two.
  CHECK(ebtables_long_option("logical") == "");
  CHECK(ebtables_long_option("nosuch") == "");
}
