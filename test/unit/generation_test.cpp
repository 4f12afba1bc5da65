// Batches planned from what the kernel holds carry its generation: the
// kernel refuses them (ERESTART) when another commit came between, and the
// restore plans such a block again.
#include <catch2/catch.hpp>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "fastrestore/restore.h"
#include "helpers.h"
#include "nft/nft_backend.h"

using namespace fastrestore;

namespace {

// A kernel whose filter table has INPUT and a chain web with rules 5
// and 6: a --noflush -D by position reads it.
nft::RecordingTransport kernel_with_web() {
  nft::RecordingTransport rec;
  KernelTable t;
  t.exists = true;
  KernelChain input;
  input.name = "INPUT";
  input.base = true;
  KernelChain web;
  web.name = "web";
  web.handle = 3;
  web.rules = {5, 6};
  web.messages = {"", ""};
  t.chains = {input, web};
  rec.tables.push_back({"filter", t});
  return rec;
}

} // namespace

TEST_CASE("a batch sent with a generation carries it in BATCH_BEGIN",
          "[generation]") {
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  nft::RecordingTransport rec;
  const uint32_t genid = 0x01020304;
  nft::commit_batch(*batch, rec, &genid);
  REQUIRE(rec.sent.size() == 1);
  const std::string &b = rec.sent[0];
  nlmsghdr h;
  std::memcpy(&h, b.data(), sizeof(h));
  CHECK(h.nlmsg_type == NFNL_MSG_BATCH_BEGIN);
  CHECK(h.nlmsg_len == 28); // header, nfgenmsg, one u32 attribute
  CHECK(h.nlmsg_seq == 1);
  uint16_t attr[2];
  std::memcpy(attr, b.data() + 20, 4);
  CHECK(attr[0] == 8);
  CHECK(attr[1] == NFNL_BATCH_GENID);
  CHECK(std::memcmp(b.data() + 24, "\x01\x02\x03\x04", 4) == 0); // big endian
  // The rest is the batch as it was, after its own BATCH_BEGIN.
  CHECK(b.substr(28) == batch->bytes().substr(20));
}

TEST_CASE("a stale generation is told apart from a refusal", "[generation]") {
  auto batch = nft::build_batch(test::one_rule_plan(), Family::ipv4);
  nft::RecordingTransport rec;
  const uint32_t genid = 7;
  rec.replies.push_back({{1, ERESTART, ""}});
  CHECK_THROWS_AS(nft::commit_batch(*batch, rec, &genid),
                  nft::GenerationChanged);
  rec.replies.push_back({{3, EINVAL, ""}});
  CHECK_THROWS_AS(nft::commit_batch(*batch, rec, &genid), Error);
}

TEST_CASE("a block that read the kernel is planned again after a stale "
          "generation",
          "[generation]") {
  nft::RecordingTransport rec = kernel_with_web();
  // The first attempt finds the ruleset changed, the second commits.
  rec.replies.push_back({{1, ERESTART, ""}});
  RestoreConfig cfg;
  cfg.noflush = true;
  // -D by position reads the table.
  int fd = test::input_fd("*filter\n-D web 2\nCOMMIT\n");
  std::ostringstream err;
  CHECK(run_restore(fd, cfg, &rec, err) == 0);
  close(fd);
  CHECK(err.str().empty());
  REQUIRE(rec.sent.size() == 2);
  CHECK(rec.sent[0] == rec.sent[1]);
}

TEST_CASE("a block that only appends carries no generation", "[generation]") {
  nft::RecordingTransport rec;
  RestoreConfig cfg;
  cfg.noflush = true;
  int fd = test::input_fd("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n");
  std::ostringstream err;
  CHECK(run_restore(fd, cfg, &rec, err) == 0);
  close(fd);
  REQUIRE(rec.sent.size() == 1);
  nlmsghdr h;
  std::memcpy(&h, rec.sent[0].data(), sizeof(h));
  CHECK(h.nlmsg_len == 20);
}

TEST_CASE("a block the ruleset keeps changing under is refused after 50 "
          "attempts",
          "[generation]") {
  nft::RecordingTransport rec = kernel_with_web();
  for (int i = 0; i < 60; ++i)
    rec.replies.push_back({{1, ERESTART, ""}});
  RestoreConfig cfg;
  cfg.noflush = true;
  int fd = test::input_fd("*filter\n-D web 2\nCOMMIT\n");
  std::ostringstream err;
  CHECK(run_restore(fd, cfg, &rec, err) == 4);
  close(fd);
  // The first attempt and 50 more, each planned again from a fresh read.
  CHECK(rec.sent.size() == 51);
  CHECK(err.str().find("kept changing while this block was planned (50 "
                       "attempts)") != std::string::npos);
  CHECK(err.str().find("line 3") != std::string::npos);
}
