#include <catch2/catch.hpp>

#include "helpers.h"

using namespace fastrestore;
using test::parse_error;
using test::parse_line;

TEST_CASE("commands and their chains", "[xt_parser]") {
  CHECK(parse_line("-A INPUT -j ACCEPT").kind == CommandKind::append);
  CHECK(parse_line("--append INPUT -j ACCEPT").chain == "INPUT");
  auto ins = parse_line("-I FORWARD 3 -j DROP");
  CHECK(ins.kind == CommandKind::insert);
  CHECK(ins.rulenum == 3);
  CHECK(parse_line("-I FORWARD -j DROP").rulenum == 1);
  CHECK(parse_line("-D INPUT 2").kind == CommandKind::remove_num);
  CHECK(parse_line("-D INPUT -j ACCEPT").kind == CommandKind::remove);
  CHECK(parse_line("-F").chain.empty());
  CHECK(parse_line("-F x").kind == CommandKind::flush);
  CHECK(parse_line("-X x").kind == CommandKind::delete_chain);
  auto ren = parse_line("-E old new");
  CHECK(ren.kind == CommandKind::rename_chain);
  CHECK(ren.arg == "new");
  auto pol = parse_line("-P INPUT DROP");
  CHECK(pol.kind == CommandKind::policy);
  CHECK(pol.arg == "DROP");
}

TEST_CASE("verdicts, jumps and gotos", "[xt_parser]") {
  CHECK(parse_line("-A INPUT -j ACCEPT").rules[0].verdict == Verdict::accept);
  CHECK(parse_line("-A INPUT -j DROP").rules[0].verdict == Verdict::drop);
  CHECK(parse_line("-A INPUT -j RETURN").rules[0].verdict == Verdict::ret);
  auto j = parse_line("-A INPUT -j mychain").rules[0];
  CHECK(j.verdict == Verdict::jump);
  CHECK(j.jump_chain == "mychain");
  auto g = parse_line("-A INPUT -g other").rules[0];
  CHECK(g.verdict == Verdict::go);
  CHECK(g.jump_chain == "other");
  auto t = parse_line("-A INPUT -j LOG --log-prefix x").rules[0];
  CHECK(t.verdict == Verdict::target);
  CHECK(t.target->name == "LOG");
  CHECK(parse_line("-A INPUT").rules[0].verdict == Verdict::none);
}

TEST_CASE("several addresses expand to one rule per pair", "[xt_parser]") {
  auto c = parse_line("-A INPUT -s 10.0.0.1,10.0.0.2 -d 10.1.0.0/16,10.2.0.0/"
                      "16,10.3.0.0/16 -j ACCEPT");
  REQUIRE(c.rules.size() == 6);
  // Sources outer, destinations inner, as iptables adds them.
  CHECK(c.rules[0].src[3] == 1);
  CHECK(c.rules[0].dst[1] == 1);
  CHECK(c.rules[1].dst[1] == 2);
  CHECK(c.rules[3].src[3] == 2);
}

TEST_CASE("addresses are masked and masks kept", "[xt_parser]") {
  auto r = parse_line("-A INPUT -s 10.1.2.3/8").rules[0];
  CHECK(r.src[0] == 10);
  CHECK(r.src[1] == 0);
  CHECK(r.smsk[0] == 0xff);
  CHECK(r.smsk[1] == 0);
}

TEST_CASE("protocol names, numbers and case", "[xt_parser]") {
  CHECK(parse_line("-A INPUT -p tcp").rules[0].proto == 6);
  CHECK(parse_line("-A INPUT -p UDP").rules[0].proto == 17);
  CHECK(parse_line("-A INPUT -p 47").rules[0].proto == 47);
  CHECK(parse_line("-A INPUT -p gre").rules[0].proto == 47);
  CHECK(parse_line("-A INPUT -p all").rules[0].proto == 0);
  CHECK(parse_line("-A INPUT ! -p icmp").rules[0].inv_proto);
}

TEST_CASE("option -p loads the protocol match on demand", "[xt_parser]") {
  auto r = parse_line("-A INPUT -p tcp --dport 22").rules[0];
  REQUIRE(r.matches.size() == 1);
  CHECK(r.matches[0].name == "tcp");
  auto n = parse_line("-A INPUT -p 6 --sport 1").rules[0];
  REQUIRE(n.matches.size() == 1);
  CHECK(n.matches[0].name == "tcp");
}

TEST_CASE("counters from -c and from the restore prefix", "[xt_parser]") {
  auto r = parse_line("-A INPUT -c 5 50 -j ACCEPT").rules[0];
  CHECK(r.packets == 5);
  CHECK(r.bytes == 50);
  auto r2 = parse_line("-A INPUT --set-counters 7,70").rules[0];
  CHECK(r2.packets == 7);
  CHECK(r2.bytes == 70);
}

TEST_CASE("options -4 and -6 skip lines of the other family", "[xt_parser]") {
  CHECK(parse_line("-6 -A INPUT -j ACCEPT").kind == CommandKind::none);
  CHECK(parse_line("-4 -A INPUT -j ACCEPT").kind == CommandKind::append);
  CHECK(parse_line("-4 -A INPUT -j ACCEPT", Family::ipv6).kind ==
        CommandKind::none);
}

TEST_CASE("errors carry iptables' text, status and the word's columns",
          "[xt_parser]") {
  auto d = parse_error("-A INPUT -p tcp --bogus 22 -j ACCEPT");
  CHECK(d.message == "unknown option \"--bogus\"");
  CHECK(d.code == ExitCode::parameter);
  CHECK(d.loc.line == 1);
  CHECK(d.loc.col_begin == 17);
  CHECK(d.loc.col_end == 23);

  auto m = parse_error("-A INPUT -m nosuchmatch");
  CHECK(m.message.find("Couldn't load match `nosuchmatch'") == 0);
  CHECK(m.loc.col_begin == 10);

  auto a = parse_error("-A INPUT -s 1.2.3.400 -j ACCEPT");
  CHECK(a.message == "host/network `1.2.3.400' not found");
  CHECK(a.loc.col_begin == 10);
  CHECK(a.loc.col_end == 21);

  auto v = parse_error("-A INPUT -m conntrack --ctstate BOGUS");
  CHECK(v.message == "Bad ctstate \"BOGUS\"");
  CHECK(v.loc.col_begin == 23);
}

TEST_CASE("checks iptables makes after the options", "[xt_parser]") {
  CHECK(parse_error("-A INPUT -j ACCEPT extra").message ==
        "Bad argument `extra'");
  CHECK(parse_error("-s 1.2.3.4").message == "no command specified");
  CHECK(parse_error("-A INPUT -D INPUT").message == "Cannot use -D with -A");
  CHECK(parse_error("-A INPUT ! ! -s 1.2.3.4").message ==
        "multiple consecutive ! not allowed");
  CHECK(parse_error("-A INPUT -o eth0").message == "Can't use -o with INPUT");
  CHECK(parse_error("-A OUTPUT -i eth0").message == "Can't use -i with OUTPUT");
  CHECK(parse_error("-A INPUT -s 1.1.1.1 -s 2.2.2.2").message ==
        "multiple -s flags not allowed");
  CHECK(parse_error("-A INPUT ! -j ACCEPT").message ==
        "cannot have ! before -j");
  CHECK(parse_error("-A INPUT ! -s 1.1.1.1,2.2.2.2").message ==
        "! not allowed with multiple source or destination IP addresses");
  CHECK(parse_error("-A INPUT -p tcp --dport").message ==
        "option \"--dport\" requires an argument");
  CHECK(parse_error("-A PREROUTING -j DROP", Family::ipv4, "nat")
            .message.find("not intended for filtering") != std::string::npos);
  CHECK(parse_error("-A INPUT -f", Family::ipv6).message ==
        "`-f' is not supported in IPv6, use -m frag instead");
  CHECK(parse_error("-F INPUT -s 1.2.3.4").message ==
        "Illegal option `-s' with this command");
  CHECK(parse_error("-A INPUT -t nat").message ==
        "The -t option cannot be used in fastrestore.");
}

TEST_CASE("a final check of an extension points at its -m", "[xt_parser]") {
  auto d = parse_error("-A INPUT -p tcp -m multiport");
  CHECK(d.message.find("multiport") != std::string::npos);
  CHECK(d.loc.col_begin == 17);
}

TEST_CASE("the same match twice in a rule", "[xt_parser]") {
  auto r = parse_line("-A INPUT -m comment --comment a -m comment --comment b")
               .rules[0];
  REQUIRE(r.matches.size() == 2);
  CHECK(r.matches[0].name == "comment");
  CHECK(r.matches[1].name == "comment");
  CHECK(r.matches[0].data != r.matches[1].data);
}

TEST_CASE("state is reset between lines", "[xt_parser]") {
  parse_line("-A INPUT -m conntrack --ctstate NEW");
  // A second --ctstate would be refused if flags leaked.
  CHECK_NOTHROW(parse_line("-A INPUT -m conntrack --ctstate NEW"));
  CHECK(parse_error("-A INPUT -m nosuch").code == ExitCode::parameter);
  CHECK_NOTHROW(parse_line("-A INPUT -p tcp --dport 1"));
}
