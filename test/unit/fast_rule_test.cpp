// The native rule parser against libxtables: every line the fast path
// takes must give exactly the Command the libxtables path gives.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "helpers.h"
#include "legacy/legacy.h"
#include "lex/lexer.h"
#include "parse/fast_rule.h"

using namespace fastrestore;

namespace {

std::string hex(const uint8_t *p, size_t n) {
  static const char *d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

std::string describe(const Command &c) {
  std::ostringstream o;
  o << "kind=" << int(c.kind) << " chain=" << c.chain << " num=" << c.rulenum
    << " loc=" << c.loc.line << ":" << c.loc.col_begin << "-" << c.loc.col_end
    << "\n";
  for (const auto &r : c.rules) {
    o << " rule loc=" << r.loc.line << ":" << r.loc.col_begin << "-"
      << r.loc.col_end << " in=" << r.iniface << "/" << r.inv_iniface
      << " out=" << r.outiface << "/" << r.inv_outiface
      << " proto=" << int(r.proto) << "/" << r.inv_proto << "/" << r.proto_set
      << " src=" << hex(r.src.data(), 16) << "/" << hex(r.smsk.data(), 16)
      << "/" << r.inv_src << " dst=" << hex(r.dst.data(), 16) << "/"
      << hex(r.dmsk.data(), 16) << "/" << r.inv_dst << " frag=" << r.frag
      << r.inv_frag << " verdict=" << int(r.verdict) << " jump=" << r.jump_chain
      << " counters=" << r.packets << ":" << r.bytes << "\n";
    for (const auto &m : r.matches)
      o << "  match " << m.name << " rev " << int(m.revision) << " "
        << hex(m.data.data(), m.data.size()) << " " << m.udata << "\n";
    if (r.target)
      o << "  target " << r.target->name << "\n";
  }
  return o.str();
}

struct Pair {
  bool taken = false;
  std::string fast, slow;
  // scan() of the text: whether it took the line, what it made of it, and
  // whether the legacy entry built from that equals build_entry's.
  bool scanned = false;
  std::string scan;
  bool same_entry = true;
};

Pair both(FastRuleParser &fast, const std::string &line, Family family,
          const std::string &table,
          const std::pair<uint64_t, uint64_t> *counters = nullptr) {
  Pair p;
  auto words = split_words(line).tokens;
  Command c;
  p.taken = fast.parse(words, table, 7, counters, c);
  BasicAppend a;
  p.scanned = fast.scan(line, 0, table, 7, counters, a);
  // The same in two steps, as the reading thread and the parser take it.
  BasicAppend b;
  const bool two_steps = FastRuleParser::prescan(family, line, b) &&
                         fast.settle(b, table, 7, counters);
  CHECK(two_steps == p.scanned);
  if (p.scanned) {
    Command sc = to_command(a);
    p.scan = describe(sc);
    CHECK(describe(to_command(b)) == p.scan);
    std::vector<unsigned char> direct(legacy::basic_entry_size(a, family));
    legacy::build_basic_entry(a, family, direct.data());
    p.same_entry = direct == legacy::build_entry(sc.rules[0], family);
  }
  if (!p.taken)
    return p;
  p.fast = describe(c);
  XtParser &xt = test::xt_parser(family);
  xt.set_fast_path(false);
  try {
    auto w = split_words(line).tokens;
    p.slow = describe(xt.parse(w, table, 7, line, counters));
  } catch (const Error &e) {
    p.slow = "error: " + e.diag().message;
  }
  xt.set_fast_path(true);
  return p;
}

FastRuleParser make(Family family) {
  FastRuleParser f(family);
  f.announce_chain("mychain");
  test::xt_parser(family).announce_chain("mychain");
  return f;
}

} // namespace

TEST_CASE("the fast path takes the common shapes", "[fast_rule]") {
  auto f4 = make(Family::ipv4);
  for (const char *line : {
           "-A INPUT -j ACCEPT",
           "-A bench -s 1.2.3.4/32 -d 5.6.7.8/32 -p tcp -m tcp --sport 1 "
           "--dport 65535 -j DROP",
           "-A FORWARD -i eth0 -o eth1+ -p udp --dport 53 -j RETURN",
           "-A INPUT -s 10.1.2.3/8 -p tcp --dport 1000:2000 -j mychain",
           "-A OUTPUT -p udp -m udp --sport :1023",
           "-A OUTPUT -p tcp -m tcp",
           "-A INPUT -p tcp",
       }) {
    INFO(line);
    auto p = both(f4, line, Family::ipv4, "filter");
    CHECK(p.taken);
    CHECK(p.fast == p.slow);
    CHECK(p.scanned);
    CHECK(p.scan == p.fast);
    CHECK(p.same_entry);
  }
  auto f6 = make(Family::ipv6);
  for (const char *line : {
           "-A INPUT -s 2001:db8::1/64 -d ::1 -p tcp --dport 22 -j ACCEPT",
           "-A FORWARD -d fe80::/10 -i eth0 -j DROP",
       }) {
    INFO(line);
    auto p = both(f6, line, Family::ipv6, "filter");
    CHECK(p.taken);
    CHECK(p.fast == p.slow);
    CHECK(p.scan == p.fast);
    CHECK(p.same_entry);
  }
}

TEST_CASE("counters from a [p:b] prefix", "[fast_rule]") {
  auto f = make(Family::ipv4);
  std::pair<uint64_t, uint64_t> c{12, 3456};
  auto p = both(f, "-A INPUT -p tcp --dport 80 -j ACCEPT", Family::ipv4,
                "filter", &c);
  CHECK(p.taken);
  CHECK(p.fast == p.slow);
}

TEST_CASE("the fast path declines what it does not know", "[fast_rule]") {
  auto f = make(Family::ipv4);
  for (const char *line : {
           "-I INPUT -j ACCEPT",
           "-A INPUT ! -s 1.2.3.4 -j ACCEPT",
           "-A INPUT -s 010.0.0.1 -j ACCEPT", // octal in libxtables
           "-A INPUT -s 1.2.3.4,5.6.7.8",
           "-A INPUT -s host.example",
           "-A INPUT -p tcp --dport http",
           "-A INPUT -p tcp --dport 2000:1000",
           "-A INPUT -p icmp",
           "-A INPUT -j LOG",
           "-A INPUT -j notachain",
           "-A INPUT -o eth0",
           "-A INPUT -j ACCEPT -j DROP",
           "-A INPUT --dport 80 -p tcp",
           "-A INPUT -m tcp -p tcp",
           "-A INPUT -p tcp -m udp",
           "-A INPUT -s 1.2.3.4/33",
           "-A INPUT -s",
           "-A INPUT -p tcp -m tcp -S 443 -j ACCEPT", // the command -S
           "-A INPUT -p udp -D 53 -j ACCEPT",         // the command -D
       }) {
    INFO(line);
    auto p = both(f, line, Family::ipv4, "filter");
    CHECK_FALSE(p.taken);
    CHECK_FALSE(p.scanned);
  }
  CHECK_FALSE(both(f, "-A POSTROUTING -j DROP", Family::ipv4, "nat").taken);
}

TEST_CASE("scan splits as split_words does", "[fast_rule]") {
  auto f = make(Family::ipv4);
  // Blanks of every kind, and a [p:b] prefix's columns before the text.
  const std::string text = "\t-A  INPUT\t-p tcp   --dport 80 -j ACCEPT  ";
  BasicAppend a;
  REQUIRE(f.scan(text, 6, "filter", 3, nullptr, a));
  CHECK(a.chain == "INPUT");
  CHECK(a.dpts[0] == 80);
  const auto words_of = split_words(text).tokens;
  CHECK(a.rule_loc.col_begin == 6 + words_of.front().col_begin);
  CHECK(a.rule_loc.col_end == 6 + 40);
  CHECK(a.rule_loc.col_end == 6 + words_of.back().col_end);
  CHECK(a.loc.col_begin == 6 + 32); // "-j"
  CHECK(a.loc.col_end == 6 + 40);
  // A quote is split_words' business; so is a line too long to scan.
  CHECK_FALSE(f.scan("-A INPUT -j \"ACCEPT\"", 0, "filter", 3, nullptr, a));
  CHECK_FALSE(f.scan("-A INPUT -j ACCEPT" + std::string(300, ' '), 0, "filter",
                     3, nullptr, a));
  auto words = split_words("-A INPUT -j \"ACCEPT\"").tokens;
  Command c;
  CHECK(f.parse(words, "filter", 3, nullptr, c));
}

// Random lines from pools of right and wrong values: whatever the fast
// path takes must match libxtables exactly, and libxtables must accept it.
TEST_CASE("random lines: fast path equals libxtables", "[fast_rule]") {
  const std::vector<std::string> chains = {"INPUT",
                                           "FORWARD",
                                           "OUTPUT",
                                           "PREROUTING",
                                           "POSTROUTING",
                                           "mychain",
                                           "a-very-long-chain-name-over-28c"};
  const std::vector<std::string> v4 = {
      "10.0.0.1",   "10.1.2.3/8",      "10.1.2.3/0", "1.2.3.4/32",
      "1.2.3.4/24", "255.255.255.255", "0.0.0.0/0",  "010.0.0.1",
      "1.2.3",      "1.2.3.4/33",      "1.2.3.4/01", "192.168.1.77/27"};
  const std::vector<std::string> v6 = {"::1",
                                       "2001:db8::1/64",
                                       "fe80::/10",
                                       "::ffff:1.2.3.4",
                                       "2001:db8::/129",
                                       "::/0",
                                       "1:2:3:4:5:6:7:8/127",
                                       "10.0.0.1"};
  const std::vector<std::string> ifaces = {
      "eth0",     "eth+",   "lo", "+", "a/b", "abcdefghijklmnop",
      "eth0.100", "br-lan", "x_y"};
  const std::vector<std::string> protos = {"tcp", "udp", "icmp", "TCP", "6"};
  const std::vector<std::string> ports = {"80",    "0",         "65535",
                                          "65536", "1000:2000", ":1023",
                                          "1024:", "10:10",     "010",
                                          "0x50",  "2000:1000", ":",
                                          "5:"};
  const std::vector<std::string> targets = {"ACCEPT",  "DROP", "RETURN",
                                            "mychain", "LOG",  "nochain"};
  std::mt19937 rng(12345);
  auto pick = [&](const std::vector<std::string> &v) {
    return v[rng() % v.size()];
  };
  int taken = 0;
  for (Family family : {Family::ipv4, Family::ipv6}) {
    auto fast = make(family);
    const auto &addrs = family == Family::ipv4 ? v4 : v6;
    for (int i = 0; i < 4000; ++i) {
      std::string line = "-A " + pick(chains);
      std::string proto;
      if (rng() % 2)
        line += " -s " + pick(addrs);
      if (rng() % 2)
        line += " -d " + pick(addrs);
      if (rng() % 3 == 0)
        line += " -i " + pick(ifaces);
      if (rng() % 3 == 0)
        line += " -o " + pick(ifaces);
      if (rng() % 3) {
        proto = pick(protos);
        line += " -p " + proto;
        if (rng() % 2)
          line += " -m " + (rng() % 4 ? proto : std::string("tcp"));
        if (rng() % 2)
          line += " --sport " + pick(ports);
        if (rng() % 2)
          line += " --dport " + pick(ports);
      }
      if (rng() % 4)
        line += " -j " + pick(targets);
      // Other blanks between the words now and then.
      if (rng() % 4 == 0)
        for (char &ch : line)
          if (ch == ' ' && rng() % 3 == 0)
            ch = '\t';
      if (rng() % 8 == 0)
        line = "  " + line + " ";
      const std::string table = rng() % 5 ? "filter" : "nat";
      auto p = both(fast, line, family, table);
      INFO(line);
      REQUIRE(p.scanned == p.taken);
      if (!p.taken)
        continue;
      ++taken;
      REQUIRE(p.fast == p.slow);
      REQUIRE(p.scan == p.fast);
      REQUIRE(p.same_entry);
    }
  }
  // The pools are meant to exercise both sides.
  CHECK(taken > 1000);
}
