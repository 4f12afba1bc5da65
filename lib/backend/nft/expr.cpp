#include "fastrestore/nft_expr.h"
#include <cstdio> // libnftnl headers need FILE

#include <arpa/inet.h>
#include <libnftnl/expr.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace fastrestore::nft {
namespace {

// libnftnl keeps (and later frees) the INFO pointer of match and target
// expressions instead of copying it, so they get a malloc'd copy.
void *owned_copy(const void *data, size_t len) {
  void *p = malloc(len ? len : 1);
  if (p == nullptr)
    throw std::bad_alloc();
  if (len)
    memcpy(p, data, len);
  return p;
}

nftnl_expr *alloc(const char *name) {
  nftnl_expr *e = nftnl_expr_alloc(name);
  if (e == nullptr)
    throw std::bad_alloc();
  return e;
}

} // namespace

void add_meta(nftnl_rule *r, uint32_t key) {
  nftnl_expr *e = alloc("meta");
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
  nftnl_rule_add_expr(r, e);
}

void add_payload(nftnl_rule *r, uint32_t base, uint32_t offset, uint32_t len) {
  nftnl_expr *e = alloc("payload");
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
  nftnl_rule_add_expr(r, e);
}

void add_bitwise(nftnl_rule *r, const void *mask, uint32_t len) {
  static const uint8_t zero[16] = {};
  nftnl_expr *e = alloc("bitwise");
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
  nftnl_rule_add_expr(r, e);
}

void add_cmp(nftnl_rule *r, uint32_t op, const void *data, uint32_t len) {
  nftnl_expr *e = alloc("cmp");
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
  nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
  nftnl_rule_add_expr(r, e);
}

void add_port_range(nftnl_rule *r, uint16_t lo, uint16_t hi, bool invert) {
  if (lo == hi) {
    uint16_t v = htons(lo);
    add_cmp(r, invert ? NFT_CMP_NEQ : NFT_CMP_EQ, &v, sizeof(v));
    return;
  }
  if (lo == 0 && hi < 0xffff) {
    uint16_t v = htons(hi);
    add_cmp(r, invert ? NFT_CMP_GT : NFT_CMP_LTE, &v, sizeof(v));
    return;
  }
  nftnl_expr *e = alloc("range");
  nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP,
                     invert ? NFT_RANGE_NEQ : NFT_RANGE_EQ);
  uint16_t from = htons(lo), to = htons(hi);
  nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, &from, sizeof(from));
  nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, &to, sizeof(to));
  nftnl_rule_add_expr(r, e);
}

void add_counter(nftnl_rule *r, uint64_t packets, uint64_t bytes) {
  nftnl_expr *e = alloc("counter");
  nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_PACKETS, packets);
  nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_BYTES, bytes);
  nftnl_rule_add_expr(r, e);
}

void add_verdict(nftnl_rule *r, int verdict) {
  nftnl_expr *e = alloc("immediate");
  nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
  nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, static_cast<uint32_t>(verdict));
  nftnl_rule_add_expr(r, e);
}

void add_jump(nftnl_rule *r, int verdict, const std::string &chain) {
  nftnl_expr *e = alloc("immediate");
  nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
  nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, static_cast<uint32_t>(verdict));
  nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain.c_str());
  nftnl_rule_add_expr(r, e);
}

void add_xt_match(nftnl_rule *r, const std::string &name, uint8_t rev,
                  const void *info, size_t len) {
  nftnl_expr *e = alloc("match");
  nftnl_expr_set(e, NFTNL_EXPR_MT_NAME, name.c_str(), name.size());
  nftnl_expr_set_u32(e, NFTNL_EXPR_MT_REV, rev);
  nftnl_expr_set(e, NFTNL_EXPR_MT_INFO, owned_copy(info, len), len);
  nftnl_rule_add_expr(r, e);
}

void add_xt_target(nftnl_rule *r, const std::string &name, uint8_t rev,
                   const void *info, size_t len) {
  nftnl_expr *e = alloc("target");
  nftnl_expr_set(e, NFTNL_EXPR_TG_NAME, name.c_str(), name.size());
  nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, rev);
  nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, owned_copy(info, len), len);
  nftnl_rule_add_expr(r, e);
}

} // namespace fastrestore::nft
