// The FakeKernel the unit tests use (test/unit/fake_kernel.h) against the
// kernel: the same restores into both, in a private network namespace of
// the test's own (unshare -n), leave the same tables, read back the same
// way: chains, handles, policies, and each rule's message byte for byte.
#include <catch2/catch.hpp>

#include <linux/netfilter.h>
#include <unistd.h>

#include <sstream>

#include "../unit/fake_kernel.h"
#include "../unit/helpers.h"
#include "fastrestore/restore.h"

using namespace fastrestore;

namespace {

struct Step {
  std::string text;
  Family family = Family::ipv4;
  bool noflush = false;
  bool counters = false;
};

void restore(nft::Transport &t, const Step &s) {
  RestoreConfig cfg;
  cfg.family = s.family;
  cfg.noflush = s.noflush;
  cfg.counters = s.counters;
  std::string err;
  const int rc = test::restore_text(t, s.text, cfg, &err);
  INFO(s.text << err);
  REQUIRE(rc == 0);
}

// A table as read back, every field the readers use.
std::string shown(nft::Transport &t, uint32_t family, const char *table) {
  const KernelTable kt = t.read_table(family, table);
  std::ostringstream out;
  out << table << " exists " << kt.exists << " use " << kt.use << "\n";
  for (const KernelChain &c : kt.chains) {
    out << " " << c.name << " handle " << c.handle << " base " << c.base
        << " hook " << c.hook << " prio " << c.prio << " type " << c.type
        << " policy " << c.has_policy << "/" << c.policy << " counters "
        << c.packets << "/" << c.bytes << "\n";
    for (size_t i = 0; i < c.rules.size(); ++i) {
      out << "  " << c.rules[i] << " ";
      // The message after its netlink and nfgenmsg headers (sequence
      // numbers and the generation in res_id differ).
      for (unsigned char ch : c.messages[i].substr(20))
        out << std::hex << int(ch) << std::dec << ".";
      out << "\n";
    }
  }
  return out.str();
}

// The first line where `a` and `b` differ ("" when they are the same).
std::string first_difference(const std::string &a, const std::string &b) {
  std::istringstream x(a), y(b);
  std::string l, m;
  for (int n = 1;; ++n) {
    const bool more_a = static_cast<bool>(std::getline(x, l));
    const bool more_b = static_cast<bool>(std::getline(y, m));
    if (!more_a && !more_b)
      return "";
    if (!more_a || !more_b || l != m)
      return "line " + std::to_string(n) + ":\nkernel: " + l + "\nfake:   " + m;
  }
}

} // namespace

TEST_CASE("the fake kernel ends as the kernel does", "[fake_kernel]") {
  const std::vector<Step> steps = {
      {"*filter\n:INPUT DROP [3:180]\n:FORWARD ACCEPT [0:0]\n"
       ":OUTPUT ACCEPT [0:0]\n:web - [0:0]\n"
       "[5:300] -A INPUT -p tcp --dport 80 -j web\n"
       "-A INPUT -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
       "-A web -s 10.0.0.1 -m comment --comment \"one\" -j ACCEPT\n"
       "-A web -s 10.0.0.2 -j DROP\n-A web -j RETURN\nCOMMIT\n"
       "*nat\n:PREROUTING ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
       "-A POSTROUTING -o eth0 -j MASQUERADE\nCOMMIT\n",
       Family::ipv4, false, true},
      {"*filter\n-I web 2 -s 10.0.0.9 -j ACCEPT\n-D web 4\n"
       "-R INPUT 2 -p udp -j ACCEPT\n-A web -s 10.0.0.3 -j ACCEPT\n"
       "-I INPUT -j ACCEPT\n-N fresh\n-A fresh -j DROP\n"
       "-D web -s 10.0.0.1 -m comment --comment \"one\" -j ACCEPT\n"
       "-P INPUT ACCEPT\nCOMMIT\n",
       Family::ipv4, true},
      {"*filter\n-E fresh fresher\n-D web 1\nCOMMIT\n", Family::ipv4, true},
      {"*filter\n-F fresher\n-X fresher\n-Z\nCOMMIT\n", Family::ipv4, true},
      {"*filter\n:INPUT ACCEPT [0:0]\n:keep - [0:0]\n-A keep -j ACCEPT\n"
       "-A INPUT -j keep\nCOMMIT\n"},
      {"*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 2001:db8::1 -j DROP\n"
       "COMMIT\n",
       Family::ipv6},
      {"*filter\n:INPUT ACCEPT\n:FORWARD DROP\n:OUTPUT ACCEPT\n:user DROP\n"
       "-A FORWARD -d 00:11:22:33:44:55 -j user\n"
       "-A user -p IPv4 -j ACCEPT\nCOMMIT\n",
       Family::bridge},
      {"*filter\n-A user -p IPv6 -j ACCEPT\n-P user RETURN\nCOMMIT\n",
       Family::bridge, true},
  };
  auto kernel = nft::make_netlink_transport();
  test::FakeKernel fake;
  for (const Step &s : steps) {
    restore(*kernel, s);
    restore(fake, s);
    CHECK(kernel->generation() == fake.generation());
    for (const auto &[family, table] :
         std::vector<std::pair<uint32_t, const char *>>{
             {NFPROTO_IPV4, "filter"},
             {NFPROTO_IPV4, "nat"},
             {NFPROTO_IPV6, "filter"},
             {NFPROTO_BRIDGE, "filter"}}) {
      INFO(s.text << "family " << family << " table " << table);
      CHECK(first_difference(shown(*kernel, family, table),
                             shown(fake, family, table)) == "");
    }
  }
}
