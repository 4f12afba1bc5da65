// Each ExprWriter expression must encode exactly as libnftnl encodes the
// same expression (the encoding iptables-nft sends).
#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include <cstdio>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "expr/nft_expr.h"

using fastrestore::nft::ExprWriter;

namespace {

std::string mine(const std::function<void(ExprWriter &)> &f) {
  std::vector<char> buf(65536);
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(buf.data(), NFT_MSG_NEWRULE, NFPROTO_IPV4, 0, 1);
  nlattr *n = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
  ExprWriter w(nlh);
  f(w);
  mnl_attr_nest_end(nlh, n);
  return std::string(buf.data(), nlh->nlmsg_len);
}

std::string theirs(const char *name,
                   const std::function<void(nftnl_expr *)> &f) {
  nftnl_rule *r = nftnl_rule_alloc();
  nftnl_expr *e = nftnl_expr_alloc(name);
  f(e);
  nftnl_rule_add_expr(r, e);
  std::vector<char> buf(65536);
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(buf.data(), NFT_MSG_NEWRULE, NFPROTO_IPV4, 0, 1);
  nftnl_rule_nlmsg_build_payload(nlh, r);
  nftnl_rule_free(r);
  return std::string(buf.data(), nlh->nlmsg_len);
}

} // namespace

TEST_CASE("meta, payload, bitwise, cmp, range encode like libnftnl", "[expr]") {
  CHECK(mine([](ExprWriter &w) { w.meta_load(NFT_META_L4PROTO); }) ==
        theirs("meta", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_L4PROTO);
          nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
        }));
  CHECK(mine([](ExprWriter &w) { w.meta_set(NFT_META_NFTRACE, 9); }) ==
        theirs("meta", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_NFTRACE);
          nftnl_expr_set_u32(e, NFTNL_EXPR_META_SREG, 9);
        }));
  CHECK(mine([](ExprWriter &w) { w.payload(1, 12, 4); }) ==
        theirs("payload", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, 1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, 12);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
        }));
  const uint32_t mask = htonl(0xffffff00), zero = 0, val = htonl(0x0a000001);
  CHECK(mine([&](ExprWriter &w) { w.bitwise(&mask, 4); }) ==
        theirs("bitwise", [&](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, 4);
          nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, &mask, 4);
          nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, &zero, 4);
        }));
  CHECK(mine([&](ExprWriter &w) { w.cmp(NFT_CMP_NEQ, &val, 4); }) ==
        theirs("cmp", [&](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_NEQ);
          nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, &val, 4);
        }));
  const uint16_t lo = htons(1000), hi = htons(2000);
  CHECK(mine([&](ExprWriter &w) { w.port_range(1000, 2000, false); }) ==
        theirs("range", [&](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, NFT_REG_1);
          nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP, NFT_RANGE_EQ);
          nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, &lo, 2);
          nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, &hi, 2);
        }));
}

TEST_CASE("counter, verdicts and immediates encode like libnftnl", "[expr]") {
  CHECK(mine([](ExprWriter &w) { w.counter(3, 300); }) ==
        theirs("counter", [](nftnl_expr *e) {
          nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_PACKETS, 3);
          nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_BYTES, 300);
        }));
  CHECK(mine([](ExprWriter &w) { w.verdict(NF_ACCEPT); }) ==
        theirs("immediate", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
          nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
        }));
  std::string chain = "web";
  CHECK(mine([&](ExprWriter &w) { w.verdict(NFT_JUMP, &chain); }) ==
        theirs("immediate", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
          nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NFT_JUMP);
          nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, "web");
        }));
  CHECK(mine([](ExprWriter &w) { w.immediate_u8(9, 1); }) ==
        theirs("immediate", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, 9);
          nftnl_expr_set_u8(e, NFTNL_EXPR_IMM_DATA, 1);
        }));
}

TEST_CASE("limit and log encode like libnftnl", "[expr]") {
  CHECK(mine([](ExprWriter &w) { w.limit(5, 60, 5, NFT_LIMIT_PKTS, 0); }) ==
        theirs("limit", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
          nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_FLAGS, 0);
          nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_RATE, 5);
          nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_UNIT, 60);
          nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_BURST, 5);
        }));
  std::string prefix = "p: ";
  uint32_t snap = 128;
  uint16_t thr = 3;
  CHECK(mine([&](ExprWriter &w) { w.log(&prefix, 5, &snap, &thr); }) ==
        theirs("log", [](nftnl_expr *e) {
          nftnl_expr_set_str(e, NFTNL_EXPR_LOG_PREFIX, "p: ");
          nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, 5);
          nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_SNAPLEN, 128);
          nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_QTHRESHOLD, 3);
        }));
  CHECK(mine([&](ExprWriter &w) { w.log(nullptr, 0, nullptr, nullptr); }) ==
        theirs("log", [](nftnl_expr *e) {
          nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, 0);
        }));
}

TEST_CASE("compat match and target encode like libnftnl", "[expr]") {
  const char info[12] = "abcdefghijk";
  CHECK(mine([&](ExprWriter &w) { w.xt(false, "comment", 0, info, 12); }) ==
        theirs("match", [&](nftnl_expr *e) {
          nftnl_expr_set(e, NFTNL_EXPR_MT_NAME, "comment", 7);
          nftnl_expr_set_u32(e, NFTNL_EXPR_MT_REV, 0);
          void *copy = malloc(12);
          memcpy(copy, info, 12);
          nftnl_expr_set(e, NFTNL_EXPR_MT_INFO, copy, 12);
        }));
  CHECK(mine([&](ExprWriter &w) { w.xt(true, "LOG", 0, info, 12); }) ==
        theirs("target", [&](nftnl_expr *e) {
          nftnl_expr_set(e, NFTNL_EXPR_TG_NAME, "LOG", 3);
          nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 0);
          void *copy = malloc(12);
          memcpy(copy, info, 12);
          nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, copy, 12);
        }));
}

TEST_CASE("lookup and a payload into another register encode like libnftnl",
          "[expr]") {
  CHECK(mine([](ExprWriter &w) { w.lookup("__set%d", 7, 1); }) ==
        theirs("lookup", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
          nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, "__set%d");
          nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SET_ID, 7);
          nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, 1);
        }));
  CHECK(mine([](ExprWriter &w) {
          w.payload(NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG32_02);
        }) == theirs("payload", [](nftnl_expr *e) {
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE,
                             NFT_PAYLOAD_NETWORK_HEADER);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, 12);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
          nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG32_02);
        }));
}
