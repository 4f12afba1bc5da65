#include <catch2/catch.hpp>

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cstdio>
#include <cstring>

#include "helpers.h"
#include "nft/nft_backend.h"

using namespace fastrestore;

namespace {

std::vector<std::pair<uint16_t, uint32_t>> messages(const std::string &b) {
  std::vector<std::pair<uint16_t, uint32_t>> out;
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= b.size()) {
    nlmsghdr h;
    std::memcpy(&h, b.data() + off, sizeof(h));
    out.emplace_back(h.nlmsg_type, h.nlmsg_seq);
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
  return out;
}

constexpr uint16_t nft_msg(uint16_t msg) {
  return (NFNL_SUBSYS_NFTABLES << 8) | msg;
}

// A 4-byte-per-line hex dump, for readable diffs of raw framing.
std::string hexdump(const std::string &b, size_t n) {
  std::string out;
  char buf[16];
  for (size_t i = 0; i < n && i < b.size(); i += 4) {
    for (size_t j = i; j < i + 4 && j < b.size(); ++j) {
      snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(b[j]));
      out += buf;
    }
    out += "\n";
  }
  return out;
}

} // namespace

TEST_CASE("replace batch: begin, table create/delete/create, chain, rule, end",
          "[batch]") {
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  nft::RecordingTransport rec;
  nft::commit_batch(*batch, rec);
  REQUIRE(rec.sent.size() == 1);
  auto msgs = messages(rec.sent[0]);
  REQUIRE(msgs.size() == 7);
  CHECK(msgs[0] == std::make_pair(uint16_t(NFNL_MSG_BATCH_BEGIN), 1u));
  CHECK(msgs[1] == std::make_pair(nft_msg(NFT_MSG_NEWTABLE), 2u));
  CHECK(msgs[2] == std::make_pair(nft_msg(NFT_MSG_DELTABLE), 3u));
  CHECK(msgs[3] == std::make_pair(nft_msg(NFT_MSG_NEWTABLE), 4u));
  CHECK(msgs[4] == std::make_pair(nft_msg(NFT_MSG_NEWCHAIN), 5u));
  CHECK(msgs[5] == std::make_pair(nft_msg(NFT_MSG_NEWRULE), 6u));
  CHECK(msgs[6] == std::make_pair(uint16_t(NFNL_MSG_BATCH_END), 7u));
  CHECK(batch->messages() == 5);
}

TEST_CASE("batch begin framing (raw bytes)", "[batch]") {
  // fastrestore -t on "*filter / COMMIT": first message is BATCH_BEGIN for
  // the nftables subsystem.
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  std::string raw = batch->bytes();
  CHECK(hexdump(raw, 20) == "14000000\n" // length 20
                            "10000100\n" // NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST
                            "01000000\n" // seq 1
                            "00000000\n" // port id
                            "0000000a\n"); // AF_UNSPEC, v0, res_id (be16)
}

TEST_CASE("an empty replace deletes the table and creates nothing", "[batch]") {
  Plan p;
  p.table = "nat";
  p.replace = true;
  auto batch = nft::build_batch(p, Family::ipv4);
  nft::RecordingTransport rec;
  nft::commit_batch(*batch, rec);
  auto msgs = messages(rec.sent[0]);
  REQUIRE(msgs.size() == 4);
  CHECK(msgs[2].first == nft_msg(NFT_MSG_DELTABLE));
}

TEST_CASE("kernel errors map back to input lines", "[batch]") {
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  nft::RecordingTransport rec;
  rec.replies.push_back({{6, EINVAL, ""}, {5, ENOENT, "hook"}});
  try {
    nft::commit_batch(*batch, rec);
    FAIL("commit should fail");
  } catch (const Error &e) {
    CHECK(e.diag().code == ExitCode::kernel);
    CHECK(e.diag().loc.line == 2); // lowest sequence first: the chain
    CHECK(e.diag().message ==
          "kernel refused chain INPUT: No such file or directory (hook)");
    REQUIRE(e.more().size() == 1);
    CHECK(e.more()[0].loc.line == 3);
    CHECK(e.more()[0].message ==
          "kernel refused rule in chain INPUT: Invalid argument");
  }
}

TEST_CASE("no permission is one clear line", "[batch]") {
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  nft::RecordingTransport rec;
  rec.replies.push_back({{1, EPERM, ""}, {2, EPERM, ""}});
  try {
    nft::commit_batch(*batch, rec);
    FAIL("commit should fail");
  } catch (const Error &e) {
    CHECK(e.diag().message.find("permission denied") == 0);
    CHECK(e.more().empty());
  }
}
