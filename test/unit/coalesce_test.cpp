// The nf_tables writer's groups of blocks (--coalesce, --all-or-nothing),
// through run_restore and a RecordingTransport: what goes to the kernel in
// which transaction, and what a refusal leaves applied. No root needed.
#include <catch2/catch.hpp>

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "fastrestore/restore.h"
#include "helpers.h"
#include "nft/nft_transport.h"

using namespace fastrestore;

namespace {

// The message types of one sent transaction, and the sequence numbers of
// its NEWRULE messages.
struct Sent {
  int begins = 0, ends = 0;
  std::vector<uint32_t> rules;
};

Sent parse(const std::string &b) {
  Sent s;
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= b.size()) {
    nlmsghdr h;
    std::memcpy(&h, b.data() + off, sizeof(h));
    if (h.nlmsg_type == NFNL_MSG_BATCH_BEGIN)
      ++s.begins;
    else if (h.nlmsg_type == NFNL_MSG_BATCH_END)
      ++s.ends;
    else if (h.nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE))
      s.rules.push_back(h.nlmsg_seq);
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
  return s;
}

// Three --noflush blocks, one rule each, appended to INPUT.
const char kThreeBlocks[] =
    "*filter\n-A INPUT -s 192.0.2.1 -j ACCEPT\nCOMMIT\n"
    "*filter\n-A INPUT -s 192.0.2.2 -j ACCEPT\nCOMMIT\n"
    "*filter\n-A INPUT -s 192.0.2.3 -j ACCEPT\nCOMMIT\n";

int restore(nft::RecordingTransport &rec, const RestoreConfig &cfg,
            const std::string &text, std::string &err) {
  int fd = test::input_fd(text);
  std::ostringstream out;
  int status = run_restore(fd, cfg, &rec, out);
  close(fd);
  err = out.str();
  return status;
}

RestoreConfig coalescing() {
  RestoreConfig cfg;
  cfg.noflush = true;
  cfg.coalesce_ms = 1000; // a file never pauses: one group
  return cfg;
}

} // namespace

TEST_CASE("coalesce: blocks without a pause go as one transaction",
          "[coalesce]") {
  nft::RecordingTransport rec;
  std::string err;
  CHECK(restore(rec, coalescing(), kThreeBlocks, err) == 0);
  CHECK(err.empty());
  REQUIRE(rec.sent.size() == 1);
  Sent s = parse(rec.sent[0]);
  CHECK(s.begins == 1);
  CHECK(s.ends == 1);
  CHECK(s.rules.size() == 3);
}

TEST_CASE("coalesce: a refused group is sent again block by block",
          "[coalesce]") {
  nft::RecordingTransport rec;
  // The group is refused; alone, the first block goes in and the second
  // is refused: the third is never sent.
  rec.replies.push_back({{2, EINVAL, ""}});
  rec.replies.push_back({});
  rec.replies.push_back({{0, EINVAL, ""}});
  std::string err;
  CHECK(restore(rec, coalescing(), kThreeBlocks, err) == 4);
  REQUIRE(rec.sent.size() == 3);
  CHECK(parse(rec.sent[0]).rules.size() == 3);
  CHECK(parse(rec.sent[1]).rules.size() == 1);
  CHECK(parse(rec.sent[2]).rules.size() == 1);
  CHECK(rec.sent[1] != rec.sent[2]);
  CHECK(!err.empty());
}

TEST_CASE("all-or-nothing: every block in one transaction at the end",
          "[coalesce]") {
  nft::RecordingTransport rec;
  RestoreConfig cfg;
  cfg.noflush = true;
  cfg.all_or_nothing = true;
  std::string err;
  CHECK(restore(rec, cfg, kThreeBlocks, err) == 0);
  REQUIRE(rec.sent.size() == 1);
  Sent s = parse(rec.sent[0]);
  CHECK(s.begins == 1);
  CHECK(s.ends == 1);
  CHECK(s.rules.size() == 3);
}

TEST_CASE("all-or-nothing: a refusal is found by prefixes that the kernel "
          "only checks",
          "[coalesce]") {
  RestoreConfig cfg;
  cfg.noflush = true;
  cfg.all_or_nothing = true;
  std::string err;
  // The second block's rule, as numbered in the transaction.
  nft::RecordingTransport first;
  REQUIRE(restore(first, cfg, kThreeBlocks, err) == 0);
  const std::vector<uint32_t> rules = parse(first.sent[0]).rules;
  REQUIRE(rules.size() == 3);

  nft::RecordingTransport rec;
  rec.replies.push_back({{rules[1], EINVAL, ""}}); // the transaction
  rec.replies.push_back({});                       // block 1: passes
  rec.replies.push_back({{rules[1], EINVAL, ""}}); // blocks 1-2: refused
  rec.replies.push_back({{rules[1], EINVAL, ""}}); // blocks 1-2 again
  CHECK(restore(rec, cfg, kThreeBlocks, err) == 4);
  REQUIRE(rec.sent.size() == 4);
  CHECK(parse(rec.sent[0]).ends == 1);
  // Nothing after the transaction could apply: no BATCH_END.
  for (size_t i = 1; i < rec.sent.size(); ++i)
    CHECK(parse(rec.sent[i]).ends == 0);
  CHECK(parse(rec.sent[1]).rules.size() == 1);
  CHECK(parse(rec.sent[2]).rules.size() == 2);
  INFO(err);
  CHECK(err.find("line 5") != std::string::npos);
  CHECK(err.find("nothing was changed") != std::string::npos);
}
