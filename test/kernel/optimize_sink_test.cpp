// The --optimize pass (optimize_sink.h) through run_restore with a
// RecordingTransport: the block's runs become one rule each that matches
// a set of fastrestore's, and the rest of the block goes as it came. The
// sets are real (libipset, and libxt_set finds a set's index by its name),
// so the test runs in a network namespace of its own; ctest runs it in a
// user namespace too (unshare -Urn), which needs no root. The batch is
// only recorded, so no rule holds the sets after the commit and the pass
// destroys them again.
#include <catch2/catch.hpp>

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <sstream>
#include <string>
#include <vector>

#include "fastrestore/restore.h"
#include "nft/nft_transport.h"
#include "nft/rule_identity.h"

using namespace fastrestore;

namespace {

// The identities (rule_identity) of the NEWRULE messages of a recorded
// batch.
std::vector<std::string> rules_sent(const std::string &batch) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at + sizeof(nlmsghdr) <= batch.size()) {
    const auto *m = reinterpret_cast<const nlmsghdr *>(batch.data() + at);
    if (m->nlmsg_len < sizeof(nlmsghdr) || at + m->nlmsg_len > batch.size())
      break;
    if ((m->nlmsg_type & 0xff) == NFT_MSG_NEWRULE &&
        (m->nlmsg_type >> 8) == NFNL_SUBSYS_NFTABLES)
      out.push_back(
          rule_identity(std::string_view(batch.data() + at, m->nlmsg_len)));
    at += NLMSG_ALIGN(m->nlmsg_len);
  }
  return out;
}

int count(const std::vector<std::string> &ids, const std::string &part) {
  int n = 0;
  for (const auto &id : ids)
    n += id.find(part) != std::string::npos ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("optimize: a run of rules becomes one set rule, the rest as it came",
          "[optimize]") {
  std::string text = "*filter\n:INPUT ACCEPT [0:0]\n"
                     "-A INPUT -p tcp --dport 22 -j ACCEPT\n";
  for (int i = 1; i <= 20; ++i)
    text += "-A INPUT -s 192.0.2." + std::to_string(i) + "/32 -j DROP\n";
  text += "-A INPUT -p tcp --dport 80 -j ACCEPT\nCOMMIT\n";
  RestoreConfig cfg;
  cfg.optimize = true;
  nft::RecordingTransport rec;
  std::ostringstream err;
  REQUIRE(run_restore_text(text, cfg, &rec, err) == 0);
  INFO(err.str());
  REQUIRE(rec.sent.size() == 1);
  const std::vector<std::string> ids = rules_sent(rec.sent[0]);
  // The two port rules (native: payload loads), and the twenty addresses
  // as one set lookup (libxt_set's match).
  CHECK(ids.size() == 3);
  CHECK(count(ids, "match set ") == 1);
  CHECK(count(ids, "payload") == 2);

  // Below --optimize-min nothing is merged.
  RestoreConfig few = cfg;
  few.optimize_min = 21;
  nft::RecordingTransport literal;
  REQUIRE(run_restore_text(text, few, &literal, err) == 0);
  REQUIRE(literal.sent.size() == 1);
  const std::vector<std::string> all = rules_sent(literal.sent[0]);
  CHECK(all.size() == 22);
  CHECK(count(all, "match set ") == 0);
}
