// decode_rule and the save's printers, without a kernel: a rule line is
// parsed, encoded as the NEWRULE message fastrestore sends, decoded as
// iptables-nft reads it back, and printed as iptables-nft-save prints it.
// A canonical line comes back unchanged.
#include <catch2/catch.hpp>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "../../lib/save/decode.h"
#include "helpers.h"
#include "nft/nft_rule.h"
#include "print/save_print.h"

using namespace fastrestore;

namespace {

const nlattr *expressions_of(const std::string &msg) {
  const auto *nlh = reinterpret_cast<const nlmsghdr *>(msg.data());
  const auto *tail = static_cast<const char *>(mnl_nlmsg_get_payload_tail(nlh));
  for (const auto *a = static_cast<const nlattr *>(
           mnl_nlmsg_get_payload_offset(nlh, sizeof(nfgenmsg)));
       mnl_attr_ok(a,
                   static_cast<int>(tail - reinterpret_cast<const char *>(a)));
       a = mnl_attr_next(a))
    if (mnl_attr_get_type(a) == NFTA_RULE_EXPRESSIONS)
      return a;
  return nullptr;
}

// What fn prints on stdout (where the plugins print).
template <class F> std::string stdout_of(F fn) {
  fflush(stdout);
  const int saved = dup(1), fd = memfd_create("stdout", 0);
  dup2(fd, 1);
  fn();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::string out(4096, '\0');
  const ssize_t n = pread(fd, out.data(), out.size(), 0);
  close(fd);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

save::SavedRule decoded(const std::string &line, Family family) {
  Command cmd = test::parse_line(line, family);
  REQUIRE(cmd.rules.size() == 1);
  const std::string msg =
      nft::rule_message(cmd.rules.front(), family, "filter", cmd.chain);
  const nlattr *exprs = expressions_of(msg);
  REQUIRE(exprs != nullptr);
  return save::decode_rule(exprs, nullptr, family);
}

std::string round_trip(const std::string &line, Family family = Family::ipv4) {
  save::SavedRule r = decoded(line, family);
  REQUIRE(r.compatible);
  REQUIRE(r.errors.empty());
  Command cmd = test::parse_line(line, family);
  std::string out =
      stdout_of([&] { save::print_ip_rule(cmd.chain, r, family, false); });
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

} // namespace

TEST_CASE("decode_rule: native IPv4 expressions read back as iptables-nft "
          "prints them",
          "[decode]") {
  for (const char *line : {
           "-A INPUT -s 192.0.2.1/32 -p tcp -m tcp --dport 22 -j ACCEPT",
           "-A INPUT -i eth0 -p udp -m udp --sport 53 -j DROP",
           "-A FORWARD ! -d 10.0.0.0/8 -o wan+ -j RETURN",
           "-A INPUT -m mark --mark 0x1/0xff -j ACCEPT",
           "-A INPUT -p tcp -m tcp --sport 1000:2000 ! --dport 80 -j ACCEPT",
           "-A OUTPUT -d 198.51.100.0/24 -j web",
           "-A INPUT -f -j DROP",
       })
    CHECK(round_trip(line) == line);
}

TEST_CASE("decode_rule: compat matches and targets keep their plugin data",
          "[decode]") {
  for (const char *line : {
           "-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
           "-A INPUT -p tcp -m multiport --dports 80,443 -j ACCEPT",
           "-A INPUT -j LOG --log-prefix \"in: \"",
           "-A INPUT -p tcp -m tcp --dport 25 -j REJECT --reject-with "
           "tcp-reset",
       })
    CHECK(round_trip(line) == line);
}

TEST_CASE("decode_rule: IPv6", "[decode]") {
  for (const char *line : {
           "-A INPUT -s 2001:db8::/32 -p udp -m udp --dport 53 -j ACCEPT",
           "-A INPUT -i lo -j ACCEPT",
       })
    CHECK(round_trip(line, Family::ipv6) == line);
}

TEST_CASE("decode_rule: an expression iptables-nft does not read makes the "
          "rule incompatible",
          "[decode]") {
  save::SavedRule r = decoded("-A INPUT -j ACCEPT", Family::ipv4);
  CHECK(r.compatible);
  CHECK(r.jumpto == "ACCEPT");
  // [ fib ... ] (nft's own): not one of iptables-nft's expressions.
  char buf[256];
  nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
  mnl_nlmsg_put_extra_header(nlh, sizeof(nfgenmsg));
  nlattr *list = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
  nlattr *elem = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
  mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "fib");
  mnl_attr_nest_end(nlh, elem);
  mnl_attr_nest_end(nlh, list);
  CHECK(!save::rule_compatible(list));
  CHECK(!save::decode_rule(list, nullptr, Family::ipv4).compatible);
}
