#include "expr/nft_expr.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>

#include <endian.h>

namespace fastrestore::nft {
namespace {

void put_be32(nlmsghdr *nlh, uint16_t type, uint32_t v) {
  mnl_attr_put_u32(nlh, type, htonl(v));
}

void put_be64(nlmsghdr *nlh, uint16_t type, uint64_t v) {
  mnl_attr_put_u64(nlh, type, htobe64(v));
}

void put_value(nlmsghdr *nlh, uint16_t type, const void *data, uint32_t len) {
  nlattr *nest = mnl_attr_nest_start(nlh, type);
  mnl_attr_put(nlh, NFTA_DATA_VALUE, len, data);
  mnl_attr_nest_end(nlh, nest);
}

} // namespace

nlattr *ExprWriter::begin(const char *name) {
  nlattr *elem = mnl_attr_nest_start(nlh_, NFTA_LIST_ELEM);
  mnl_attr_put_strz(nlh_, NFTA_EXPR_NAME, name);
  return elem;
}

void ExprWriter::end(nlattr *elem, nlattr *data) {
  mnl_attr_nest_end(nlh_, data);
  mnl_attr_nest_end(nlh_, elem);
}

void ExprWriter::meta_load(uint32_t key) {
  nlattr *e = begin("meta");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_META_KEY, key);
  put_be32(nlh_, NFTA_META_DREG, NFT_REG_1);
  end(e, d);
}

void ExprWriter::lookup(const std::string &set, uint32_t set_id,
                        uint32_t flags) {
  nlattr *e = begin("lookup");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_LOOKUP_SREG, NFT_REG_1);
  mnl_attr_put_strz(nlh_, NFTA_LOOKUP_SET, set.c_str());
  put_be32(nlh_, NFTA_LOOKUP_SET_ID, set_id);
  put_be32(nlh_, NFTA_LOOKUP_FLAGS, flags);
  end(e, d);
}

void ExprWriter::meta_set(uint32_t key, uint32_t sreg) {
  nlattr *e = begin("meta");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_META_KEY, key);
  put_be32(nlh_, NFTA_META_SREG, sreg);
  end(e, d);
}

void ExprWriter::payload(uint32_t base, uint32_t offset, uint32_t len,
                         uint32_t dreg) {
  nlattr *e = begin("payload");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_PAYLOAD_DREG, dreg);
  put_be32(nlh_, NFTA_PAYLOAD_BASE, base);
  put_be32(nlh_, NFTA_PAYLOAD_OFFSET, offset);
  put_be32(nlh_, NFTA_PAYLOAD_LEN, len);
  end(e, d);
}

void ExprWriter::bitwise(const void *mask, uint32_t len) {
  static const uint8_t zero[16] = {};
  nlattr *e = begin("bitwise");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_BITWISE_SREG, NFT_REG_1);
  put_be32(nlh_, NFTA_BITWISE_DREG, NFT_REG_1);
  put_be32(nlh_, NFTA_BITWISE_LEN, len);
  put_value(nlh_, NFTA_BITWISE_MASK, mask, len);
  put_value(nlh_, NFTA_BITWISE_XOR, zero, len);
  end(e, d);
}

void ExprWriter::cmp(uint32_t op, const void *data, uint32_t len) {
  nlattr *e = begin("cmp");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_CMP_SREG, NFT_REG_1);
  put_be32(nlh_, NFTA_CMP_OP, op);
  put_value(nlh_, NFTA_CMP_DATA, data, len);
  end(e, d);
}

void ExprWriter::range(uint32_t op, const void *from, const void *to,
                       uint32_t len) {
  nlattr *e = begin("range");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_RANGE_SREG, NFT_REG_1);
  put_be32(nlh_, NFTA_RANGE_OP, op);
  put_value(nlh_, NFTA_RANGE_FROM_DATA, from, len);
  put_value(nlh_, NFTA_RANGE_TO_DATA, to, len);
  end(e, d);
}

void ExprWriter::port_range(uint16_t lo, uint16_t hi, bool invert) {
  if (lo == hi) {
    uint16_t v = htons(lo);
    cmp(invert ? NFT_CMP_NEQ : NFT_CMP_EQ, &v, sizeof(v));
    return;
  }
  if (lo == 0 && hi < 0xffff) {
    uint16_t v = htons(hi);
    cmp(invert ? NFT_CMP_GT : NFT_CMP_LTE, &v, sizeof(v));
    return;
  }
  uint16_t from = htons(lo), to = htons(hi);
  range(invert ? NFT_RANGE_NEQ : NFT_RANGE_EQ, &from, &to, sizeof(from));
}

void ExprWriter::counter(uint64_t packets, uint64_t bytes) {
  nlattr *e = begin("counter");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be64(nlh_, NFTA_COUNTER_BYTES, bytes);
  put_be64(nlh_, NFTA_COUNTER_PACKETS, packets);
  end(e, d);
}

void ExprWriter::verdict(int code, const std::string *chain) {
  nlattr *e = begin("immediate");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT);
  nlattr *data = mnl_attr_nest_start(nlh_, NFTA_IMMEDIATE_DATA);
  nlattr *v = mnl_attr_nest_start(nlh_, NFTA_DATA_VERDICT);
  put_be32(nlh_, NFTA_VERDICT_CODE, static_cast<uint32_t>(code));
  if (chain != nullptr)
    mnl_attr_put_strz(nlh_, NFTA_VERDICT_CHAIN, chain->c_str());
  mnl_attr_nest_end(nlh_, v);
  mnl_attr_nest_end(nlh_, data);
  end(e, d);
}

void ExprWriter::immediate_u8(uint32_t dreg, uint8_t value) {
  nlattr *e = begin("immediate");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be32(nlh_, NFTA_IMMEDIATE_DREG, dreg);
  put_value(nlh_, NFTA_IMMEDIATE_DATA, &value, sizeof(value));
  end(e, d);
}

void ExprWriter::limit(uint64_t rate, uint64_t unit, uint32_t burst,
                       uint32_t type, uint32_t flags) {
  nlattr *e = begin("limit");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  put_be64(nlh_, NFTA_LIMIT_RATE, rate);
  put_be64(nlh_, NFTA_LIMIT_UNIT, unit);
  put_be32(nlh_, NFTA_LIMIT_BURST, burst);
  put_be32(nlh_, NFTA_LIMIT_TYPE, type);
  put_be32(nlh_, NFTA_LIMIT_FLAGS, flags);
  end(e, d);
}

void ExprWriter::log(const std::string *prefix, uint16_t group,
                     const uint32_t *snaplen, const uint16_t *qthreshold) {
  nlattr *e = begin("log");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  if (prefix != nullptr)
    mnl_attr_put_strz(nlh_, NFTA_LOG_PREFIX, prefix->c_str());
  mnl_attr_put_u16(nlh_, NFTA_LOG_GROUP, htons(group));
  if (snaplen != nullptr)
    put_be32(nlh_, NFTA_LOG_SNAPLEN, *snaplen);
  if (qthreshold != nullptr)
    mnl_attr_put_u16(nlh_, NFTA_LOG_QTHRESHOLD, htons(*qthreshold));
  end(e, d);
}

void ExprWriter::xt(bool target, const std::string &name, uint32_t rev,
                    const void *info, size_t len) {
  nlattr *e = begin(target ? "target" : "match");
  nlattr *d = mnl_attr_nest_start(nlh_, NFTA_EXPR_DATA);
  // The match and target attributes share their numbers.
  static_assert(int(NFTA_TARGET_NAME) == int(NFTA_MATCH_NAME) &&
                int(NFTA_TARGET_REV) == int(NFTA_MATCH_REV) &&
                int(NFTA_TARGET_INFO) == int(NFTA_MATCH_INFO));
  mnl_attr_put_strz(nlh_, NFTA_MATCH_NAME, name.c_str());
  put_be32(nlh_, NFTA_MATCH_REV, rev);
  mnl_attr_put(nlh_, NFTA_MATCH_INFO, static_cast<uint32_t>(len), info);
  end(e, d);
}

} // namespace fastrestore::nft
