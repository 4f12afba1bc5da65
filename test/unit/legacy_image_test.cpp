// TableImage without a kernel: an image made from a filter table built
// here (three built-in chains with ACCEPT policies, then the closing
// ERROR entry), and what it hands a libiptc handle when it replays
// itself: the chains it creates, the policies it sets, the entries it
// appends in each chain's order.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter_ipv4/ip_tables.h>

#include <cstring>
#include <string>
#include <vector>

#include "../../lib/backend/legacy/image.h"
#include "legacy/legacy.h"
#include "parse/fast_rule.h"

using namespace fastrestore;
using legacy::TableImage;

namespace {

constexpr size_t kPolicy =
    sizeof(ipt_entry) + XT_ALIGN(sizeof(xt_standard_target));
constexpr size_t kError = sizeof(ipt_entry) + XT_ALIGN(sizeof(xt_error_target));

// iptables' filter table as the kernel hands out an empty one.
struct FilterTable {
  ipt_getinfo info{};
  std::vector<unsigned char> entries;

  FilterTable() {
    std::strcpy(info.name, "filter");
    const int hooks[] = {NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT};
    for (int h : hooks) {
      info.valid_hooks |= 1u << h;
      info.hook_entry[h] = info.underflow[h] =
          static_cast<unsigned>(entries.size());
      entries.resize(entries.size() + kPolicy);
      auto *e = reinterpret_cast<ipt_entry *>(entries.data() + entries.size() -
                                              kPolicy);
      e->target_offset = sizeof(ipt_entry);
      e->next_offset = kPolicy;
      e->counters = {7, 700}; // the policy's counters so far
      auto *t = reinterpret_cast<xt_standard_target *>(e + 1);
      t->target.u.target_size = XT_ALIGN(sizeof(xt_standard_target));
      t->verdict = -NF_ACCEPT - 1;
    }
    entries.resize(entries.size() + kError);
    auto *e =
        reinterpret_cast<ipt_entry *>(entries.data() + entries.size() - kError);
    e->target_offset = sizeof(ipt_entry);
    e->next_offset = kError;
    auto *t = reinterpret_cast<xt_error_target *>(e + 1);
    t->target.u.target_size = XT_ALIGN(sizeof(xt_error_target));
    std::strcpy(t->target.u.user.name, XT_ERROR_TARGET);
    std::strcpy(t->errorname, XT_ERROR_TARGET);
    info.num_entries = 4;
    info.size = static_cast<unsigned>(entries.size());
  }

  std::unique_ptr<TableImage> image() const {
    auto img = TableImage::from_entries(Family::ipv4, &info, entries.data());
    REQUIRE(img != nullptr);
    return img;
  }
};

// What a replay hands over, one line a call.
struct Recorded {
  std::vector<std::string> calls;
  std::vector<std::vector<unsigned char>> entries;
};

Recorded replay(const TableImage &img) {
  Recorded r;
  TableImage::Replay to;
  to.create = [&](const char *chain) {
    r.calls.push_back(std::string("create ") + chain);
    return true;
  };
  to.policy = [&](const char *chain, const char *policy, xt_counters *c) {
    std::string line = std::string("policy ") + chain + " " + policy;
    if (c != nullptr)
      line += " " + std::to_string(c->pcnt) + ":" + std::to_string(c->bcnt);
    r.calls.push_back(line);
    return true;
  };
  to.append = [&](const char *chain, const void *entry) {
    const auto *e = static_cast<const ipt_entry *>(entry);
    const auto *t = reinterpret_cast<const xt_entry_target *>(
        static_cast<const unsigned char *>(entry) + e->target_offset);
    r.calls.push_back(std::string("append ") + chain + " -j " + t->u.user.name);
    const auto *bytes = static_cast<const unsigned char *>(entry);
    r.entries.emplace_back(bytes, bytes + e->next_offset);
    return true;
  };
  REQUIRE(img.replay(to));
  return r;
}

// The commonest rule line, as the restore's scanner hands it to a backend.
BasicAppend basic(const FastRuleParser &fast, const char *line) {
  BasicAppend a;
  REQUIRE(fast.scan(line, 0, "filter", 1, nullptr, a));
  return a;
}

} // namespace

TEST_CASE("TableImage: the chains it read, in table order", "[legacy]") {
  auto img = FilterTable().image();
  const std::vector<std::pair<std::string, bool>> want = {
      {"INPUT", true}, {"FORWARD", true}, {"OUTPUT", true}};
  CHECK(img->old_chains() == want);
  CHECK(img->is_chain("INPUT"));
  CHECK_FALSE(img->is_chain("PREROUTING")); // not a hook of this table
  CHECK(replay(*img).calls.empty());
}

TEST_CASE("TableImage: what it refuses, as libiptc would", "[legacy]") {
  auto img = FilterTable().image();
  CHECK(img->create_chain("web"));
  CHECK_FALSE(img->create_chain("web"));
  CHECK_FALSE(img->create_chain("INPUT"));
  CHECK_FALSE(img->create_chain("DROP"));
  CHECK_FALSE(img->create_chain(std::string(XT_EXTENSION_MAXNAMELEN, 'x')));
  CHECK_FALSE(img->set_policy("web", "DROP", nullptr)); // a user chain
  CHECK_FALSE(img->set_policy("INPUT", "RETURN", nullptr));
  CHECK(img->commit() == EBADF); // no socket: nothing is sent
}

TEST_CASE("TableImage: replays chains, policies and rules in order",
          "[legacy]") {
  FastRuleParser fast(Family::ipv4);
  fast.announce_chain("web");
  auto img = FilterTable().image();
  REQUIRE(img->create_chain("web"));
  REQUIRE(img->create_chain("admin"));
  xt_counters c{3, 300};
  REQUIRE(img->set_policy("INPUT", "DROP", &c));
  REQUIRE(img->set_policy("OUTPUT", "ACCEPT", nullptr));
  REQUIRE(img->append_basic(basic(fast, "-A INPUT -p tcp --dport 80 -j web")));
  REQUIRE(img->append_basic(basic(fast, "-A web -s 10.0.0.1 -j ACCEPT")));
  REQUIRE(img->append_basic(basic(fast, "-A INPUT -i lo -j ACCEPT")));
  // A jump to a chain the image does not have is declined, unchanged.
  FastRuleParser other(Family::ipv4);
  other.announce_chain("nowhere");
  CHECK_FALSE(img->append_basic(basic(other, "-A INPUT -j nowhere")));

  const std::vector<std::string> want = {
      "create web",           "create admin",        "policy INPUT DROP 3:300",
      "policy OUTPUT ACCEPT", "append INPUT -j web", "append INPUT -j ACCEPT",
      "append web -j ACCEPT",
  };
  CHECK(replay(*img).calls == want);
}

TEST_CASE("TableImage: a rule encoded straight in is the entry append takes",
          "[legacy]") {
  FastRuleParser fast(Family::ipv4);
  fast.announce_chain("web");
  const char *lines[] = {
      "-A INPUT -s 192.168.0.0/16 -d 10.0.0.1 -p udp --sport 53 -j DROP",
      "-A INPUT -i eth+ -p tcp --dport 1000:2000 -j RETURN",
      "-A INPUT -j web",
      "-A INPUT -s 10.1.1.1",
  };
  auto direct = FilterTable().image();
  auto built = FilterTable().image();
  REQUIRE(direct->create_chain("web"));
  REQUIRE(built->create_chain("web"));
  for (const char *line : lines) {
    BasicAppend a = basic(fast, line);
    REQUIRE(direct->append_basic(a));
    std::vector<unsigned char> e =
        legacy::build_entry(to_command(a).rules.front(), Family::ipv4);
    REQUIRE(built->append("INPUT", e.data(), e.size()));
  }
  Recorded d = replay(*direct), b = replay(*built);
  CHECK(d.calls == b.calls);
  REQUIRE(d.entries.size() == 4);
  CHECK(d.entries == b.entries);
}
