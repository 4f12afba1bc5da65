// One rule identity (nft/rule_identity.h) across its representations: a
// rule as parsed (IR), as encoded for the kernel, and as the kernel reads
// it back must have the same identity, since -C and -D by rule
// specification compare the input's rule with the kernel's. Loaded in a
// private network namespace of the test's own (unshare -n).
#include <catch2/catch.hpp>

#include <unistd.h>

#include "../unit/helpers.h"
#include "lex/lexer.h"
#include "nft/nft_rule.h"
#include "nft/nft_transport.h"
#include "nft/rule_identity.h"
#include "parse/xt_parser.h"
#include "xtables/revision_probe.h"

using namespace fastrestore;

namespace {

struct Case {
  Family family;
  std::string table;
  std::vector<std::string> rules; // "-A CHAIN ..." lines
};

} // namespace

TEST_CASE("a rule's identity is its encoded message's and its read-back's",
          "[rule_identity]") {
  const std::vector<Case> cases = {
      {Family::ipv4,
       "filter",
       {"-A FORWARD -s 10.0.0.1/32 -d 192.0.2.0/24 -i eth0 -o eth1 -p tcp -m "
        "tcp --sport 1024:65535 --dport 22 -j ACCEPT",
        "-A INPUT -p udp -m udp --dport 53 -m comment --comment \"dns in\" -j "
        "ACCEPT",
        "-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
        "-A INPUT -p tcp -m multiport --dports 80,443 -m limit --limit 5/min "
        "-j LOG --log-prefix \"web \"",
        "-A INPUT ! -s 10.0.0.0/8 -m mark --mark 0x1/0xff -j DROP",
        "-A INPUT -p tcp -m tcp --tcp-flags SYN,RST SYN -j REJECT "
        "--reject-with tcp-reset",
        "-A INPUT -f -j DROP",
        "-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT"}},
      {Family::ipv4,
       "nat",
       {"-A POSTROUTING -o eth0 -j MASQUERADE",
        "-A PREROUTING -p tcp -m tcp --dport 8080 -j DNAT --to-destination "
        "10.0.0.2:80"}},
      {Family::ipv6,
       "filter",
       {"-A INPUT -s 2001:db8::/32 -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j "
        "ACCEPT",
        "-A INPUT -m hashlimit --hashlimit-above 10/sec --hashlimit-name h -j "
        "DROP"}},
  };
  auto kernel = nft::make_netlink_transport();
  for (const Case &c : cases) {
    std::string text = "*" + c.table + "\n";
    for (const auto &r : c.rules)
      text += r + "\n";
    text += "COMMIT\n";
    RestoreConfig cfg;
    cfg.family = c.family;
    std::string err;
    const int rc = test::restore_text(*kernel, text, cfg, &err);
    INFO(text << err);
    REQUIRE(rc == 0);
    const KernelTable kt =
        kernel->read_table(nft::nfproto_of(c.family), c.table);
    std::vector<std::string> read;
    for (const KernelChain &kc : kt.chains)
      for (const std::string &m : kc.messages)
        read.push_back(m);
    REQUIRE(read.size() == c.rules.size());
    // The kernel lists base chains in hook order: match each input rule
    // to the read-back rule of its chain, in order.
    // (Parsed as the restore parses, its revisions asked of this kernel.)
    XtParser xt(c.family, make_netlink_revision_probe());
    for (const auto &line : c.rules) {
      LexResult lex = split_words(line);
      const Command cmd = xt.parse(lex.tokens, c.table, 1, line, nullptr);
      REQUIRE(cmd.rules.size() == 1);
      const std::string ir = rule_identity(cmd.rules[0], c.family);
      const std::string encoded = rule_identity(
          nft::rule_message(cmd.rules[0], c.family, c.table, cmd.chain));
      CHECK(ir == encoded);
      bool found = false;
      for (const std::string &m : read)
        found |= rule_identity(m) == ir;
      INFO(line);
      CHECK(found);
    }
  }
}
