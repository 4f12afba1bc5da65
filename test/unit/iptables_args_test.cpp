// The iptables command line's words (tools/iptables_args.h): the command
// and its chain and numbers wherever they stand, the command line's own
// options taken out, every other word left to the rule in order, and
// the refusals iptables-nft 1.8.9 makes before it reads the kernel.
#include <catch2/catch.hpp>

#include "iptables_args.h"

using namespace fastrestore;

namespace {

using Words = std::vector<std::string>;

IptablesArgs read(const Words &w, Family family = Family::ipv4) {
  IptablesArgs a;
  auto e = read_iptables_args(w, family, a);
  INFO((e ? e->message : std::string()));
  REQUIRE_FALSE(e.has_value());
  return a;
}

std::string refusal(const Words &w, Family family = Family::ipv4) {
  IptablesArgs a;
  auto e = read_iptables_args(w, family, a);
  REQUIRE(e.has_value());
  return e->message;
}

} // namespace

TEST_CASE("iptables args: the command anywhere, the rule's words in order",
          "[iptables_args]") {
  IptablesArgs a = read({"-s", "10.0.0.1", "-t", "nat", "-A", "POSTROUTING",
                         "-j", "MASQUERADE", "-w", "5"});
  CHECK(a.table == "nat");
  CHECK(a.command == 'A');
  CHECK(a.chain == "POSTROUTING");
  CHECK(a.rule == Words{"-s", "10.0.0.1", "-j", "MASQUERADE"});
  CHECK(a.wait);
  CHECK(iptables_restore_line(a) == "-A POSTROUTING -s 10.0.0.1 -j MASQUERADE");
}

TEST_CASE("iptables args: optional chains and rule numbers",
          "[iptables_args]") {
  CHECK(read({"-D", "INPUT", "3"}).number == "3");
  // (Any base strtoul reads, as iptables' parse_rulenumber.)
  CHECK(read({"-D", "INPUT", "0x2"}).rulenum == 2);
  CHECK(refusal({"-D", "INPUT", "0"}) == "Invalid rule number `0'");
  CHECK(read({"-D", "INPUT", "-j", "ACCEPT"}).number.empty());
  CHECK(read({"-I", "INPUT", "2", "-j", "DROP"}).number == "2");
  IptablesArgs s = read({"-S", "f2b", "1"});
  CHECK(s.chain == "f2b");
  CHECK(s.number == "1");
  CHECK(read({"-F"}).chain.empty());
  CHECK(read({"-vF", "x"}).chain == "x");
}

TEST_CASE("iptables args: long options, bundles, attached values",
          "[iptables_args]") {
  IptablesArgs a =
      read({"--table=mangle", "--append", "OUTPUT", "-j", "ACCEPT"});
  CHECK(a.table == "mangle");
  CHECK(a.command == 'A');
  CHECK(read({"-tnat", "-AOUTPUT"}).chain == "OUTPUT");
  CHECK(read({"-vvS"}).verbose == 2);
  IptablesArgs e = read({"-E", "old", "new name"});
  CHECK(iptables_restore_line(e) == "-E old \"new name\"");
  CHECK(read({"-P", "INPUT", "DROP"}).second == "DROP");
}

TEST_CASE("iptables args: refusals before the kernel is read",
          "[iptables_args]") {
  CHECK(refusal({"-S", "-D", "INPUT"}) == "Cannot use -D with -S");
  // After a command whose line the rule parser reads, a second command
  // is its to refuse, in its turn.
  CHECK(read({"-A", "INPUT", "-D", "INPUT"}).rule == Words{"-D", "INPUT"});
  CHECK(refusal({"-L", "-A"}) == "option \"-A\" requires an argument");
  CHECK(refusal({"-R", "INPUT"}) == "-R requires a rule number");
  CHECK(refusal({"-S", "INPUT", "0"}) == "Invalid rule number `0'");
  CHECK(refusal({"-P", "INPUT"}) == "-P requires a chain and a policy");
  CHECK(refusal({"-E", "x"}) ==
        "-E requires old-chain-name and new-chain-name");
  CHECK(refusal({"-nvS"}) == "Illegal option `-n' with this command");
  CHECK(refusal({"--line-numbers", "-S"}) ==
        "Illegal option `-0' with this command");
  // Another command's line carries them, for the rule parser to refuse.
  CHECK(read({"-n", "-A", "INPUT", "-j", "ACCEPT"}).rule ==
        Words{"-n", "-j", "ACCEPT"});
  CHECK(refusal({"-F", "INPUT", "extra"}) == "Bad argument `extra'");
  CHECK(refusal({"-6", "-A", "INPUT"}).empty());
  CHECK(refusal({"-4", "-S"}, Family::ipv6).empty());
  CHECK(refusal({"-W", "5", "-S"}) ==
        "--wait-interval only makes sense with --wait\n");
  // -Z goes with -L.
  IptablesArgs lz = read({"-L", "-Z"});
  CHECK(lz.command == 'L');
  CHECK(lz.list_zero);
}

TEST_CASE("iptables args: a listing with -Z, and -Z of one rule",
          "[iptables_args]") {
  IptablesArgs l = read({"-L", "-v", "-Z", "INPUT"});
  CHECK(l.command == 'L');
  CHECK(l.list_zero);
  CHECK(l.chain == "INPUT"); // (the second command reads a chain too)
  IptablesArgs s = read({"-Z", "-S", "f2b"});
  CHECK(s.command == 'S');
  CHECK(s.list_zero);
  // -Z N after -L sets the command over it: no listing.
  IptablesArgs z = read({"-L", "-Z", "INPUT", "2"});
  CHECK(z.command == 'Z');
  CHECK_FALSE(z.list_zero);
  CHECK(z.zero_rule);
  IptablesArgs zl = read({"-Z", "INPUT", "2", "-L"});
  CHECK(zl.command == 'L');
  CHECK(zl.list_zero);
  CHECK(zl.zero_rule);
  IptablesArgs ln = read({"-L", "INPUT", "3", "-Z"});
  CHECK(ln.number == "3");
  CHECK_FALSE(ln.zero_rule);
  // A third command: the highest one given that does not go with it.
  CHECK(refusal({"-L", "-Z", "-L"}) == "Cannot use -L with -L");
  CHECK(refusal({"-Z", "-L", "-Z"}) == "Cannot use -Z with -Z");
  CHECK(refusal({"-L", "-Z", "-S"}) == "Cannot use -S with -L");
  CHECK(refusal({"-n", "-L", "-n"}) == "multiple -n flags not allowed");
  CHECK(refusal({"-L", "--line-numbers", "--line-numbers"}) ==
        "multiple -0 flags not allowed");
}

TEST_CASE("iptables args: words after a second command go to the rule",
          "[iptables_args]") {
  // iptables stops at the second command (once it has its argument): the
  // rule parser refuses it there, before a stray word or an own option.
  IptablesArgs a = read({"-F", "x", "-A", "b", "-x", "c", "-V"});
  CHECK(a.command == 'F');
  CHECK(a.rule == Words{"-A", "b", "-x", "c", "-V"});
  CHECK_FALSE(a.version);
  // A repeated -n after a rule word still to be checked: the parser
  // says which comes first.
  IptablesArgs n = read({"-A", "INPUT", "--bogus", "-n", "-n"});
  CHECK(n.rule == Words{"--bogus", "-n", "-n"});
}
