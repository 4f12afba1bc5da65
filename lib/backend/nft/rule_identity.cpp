#include "nft/rule_identity.h"

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <xtables.h>

#include <cstring>
#include <vector>

#include "fastrestore/xt_lookup.h"
#include "nft/nft_rule.h"

namespace fastrestore {
namespace {

void append_hex(std::string &out, const void *data, size_t len) {
  static const char digits[] = "0123456789abcdef";
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < len; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
}

// Which of a log expression's attributes it carries: libnftnl prints
// "snaplen 0" and "qthreshold 0" for a log without them, but NFLOG's
// --nflog-size 0 is a snaplen of 0 given (the kernel dumps it as given),
// and iptables-nft saves the two apart.
std::string log_attributes(const nftnl_expr *e) {
  std::string out = " attrs";
  for (uint16_t a :
       {NFTNL_EXPR_LOG_PREFIX, NFTNL_EXPR_LOG_GROUP, NFTNL_EXPR_LOG_SNAPLEN,
        NFTNL_EXPR_LOG_QTHRESHOLD, NFTNL_EXPR_LOG_LEVEL, NFTNL_EXPR_LOG_FLAGS})
    out += nftnl_expr_is_set(e, a) ? '1' : '0';
  return out;
}

// The length of the data an expression compares: libnftnl prints data a
// 32-bit word at a time, so `-i eth` ("eth" and its NUL, 4 bytes) and
// `-i eth+` ("eth", 3 bytes) print alike, and iptables tells them apart.
std::string data_length(const nftnl_expr *e, const char *name) {
  uint32_t len = 0;
  if (std::strcmp(name, "cmp") == 0)
    nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len);
  else if (std::strcmp(name, "range") == 0)
    nftnl_expr_get(e, NFTNL_EXPR_RANGE_FROM_DATA, &len);
  else if (std::strcmp(name, "bitwise") == 0)
    len = nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_LEN);
  else
    return {};
  return " len " + std::to_string(len);
}

void add_expr(nftnl_expr *e, std::string &out) {
  const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
  if (std::strcmp(name, "counter") == 0)
    return;
  const bool target = std::strcmp(name, "target") == 0;
  if (target || std::strcmp(name, "match") == 0) {
    // libnftnl numbers the match and target attributes alike.
    static_assert(int(NFTNL_EXPR_TG_NAME) == int(NFTNL_EXPR_MT_NAME) &&
                  int(NFTNL_EXPR_TG_REV) == int(NFTNL_EXPR_MT_REV) &&
                  int(NFTNL_EXPR_TG_INFO) == int(NFTNL_EXPR_MT_INFO));
    const char *xt = nftnl_expr_get_str(e, NFTNL_EXPR_MT_NAME);
    uint32_t rev = nftnl_expr_get_u32(e, NFTNL_EXPR_MT_REV);
    uint32_t len = 0;
    const void *info = nftnl_expr_get(e, NFTNL_EXPR_MT_INFO, &len);
    out += std::string(name) + " " + xt + " " + std::to_string(rev) + " ";
    append_hex(out, info,
               owned_payload(target, xt, static_cast<int>(rev), len));
  } else {
    char buf[4096];
    nftnl_expr_snprintf(buf, sizeof(buf), e, NFTNL_OUTPUT_DEFAULT, 0);
    out += std::string(name) + " " + buf;
    if (std::strcmp(name, "log") == 0)
      out += log_attributes(e);
    else
      out += data_length(e, name);
  }
  out += '\n';
}

// A meta load nothing reads: what iptables-nft writes for `-i +` (any
// interface), which it reads back as no interface at all; so does -C.
bool dead_load(const nftnl_expr *e, const nftnl_expr *next) {
  if (std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "meta") != 0 ||
      !nftnl_expr_is_set(e, NFTNL_EXPR_META_DREG))
    return false;
  if (next == nullptr)
    return true;
  const char *reader = nftnl_expr_get_str(next, NFTNL_EXPR_NAME);
  for (const char *r : {"cmp", "bitwise", "lookup", "range"})
    if (std::strcmp(reader, r) == 0)
      return false;
  return true;
}

} // namespace

// The expressions of the rule (less counters and the loads nothing reads),
// then its user data; the counter's values, when asked, taken on the way.
std::string rule_identity(std::string_view message, uint64_t *packets,
                          uint64_t *bytes) {
  std::string out;
  nftnl_rule *r = nftnl_rule_alloc();
  if (r == nullptr)
    return out;
  if (nftnl_rule_nlmsg_parse(reinterpret_cast<const nlmsghdr *>(message.data()),
                             r) == 0) {
    std::vector<nftnl_expr *> exprs;
    nftnl_expr_iter *it = nftnl_expr_iter_create(r);
    for (nftnl_expr *e = nftnl_expr_iter_next(it); e != nullptr;
         e = nftnl_expr_iter_next(it))
      exprs.push_back(e);
    nftnl_expr_iter_destroy(it);
    bool counted = false;
    for (size_t i = 0; i < exprs.size(); ++i) {
      nftnl_expr *e = exprs[i];
      if (!counted &&
          std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "counter") == 0) {
        counted = true; // the first counter's values, as iptables reads them
        if (packets != nullptr)
          *packets = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
        if (bytes != nullptr)
          *bytes = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
      }
      if (!dead_load(e, i + 1 < exprs.size() ? exprs[i + 1] : nullptr))
        add_expr(e, out);
    }
    uint32_t len = 0;
    if (const void *udata = nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &len)) {
      out += "userdata ";
      append_hex(out, udata, len);
      out += '\n';
    }
  }
  nftnl_rule_free(r);
  return out;
}

std::string rule_identity(const Rule &rule, Family family) {
  return rule_identity(nft::rule_message(rule, family, "t", "c"));
}

} // namespace fastrestore
