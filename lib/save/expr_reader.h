// One nf_tables expression from a dumped rule: its name and its data
// attributes by type, read the way libnftnl's getters read them.
#pragma once

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "nft/nft_attrs.h"

namespace fastrestore::save {

class ExprReader {
public:
  static constexpr int kMax = 24;

  // `elem` is one NFTA_LIST_ELEM of NFTA_RULE_EXPRESSIONS.
  explicit ExprReader(const nlattr *elem) {
    nft::each_nested(elem, [this](const nlattr *a) {
      if (nft::attr_type(a) == NFTA_EXPR_NAME)
        name_ = nft::attr_text(a);
      else if (nft::attr_type(a) == NFTA_EXPR_DATA)
        nft::each_nested(a, [this](const nlattr *d) {
          uint16_t t = nft::attr_type(d);
          if (t < kMax)
            attrs_[t] = d;
        });
    });
  }

  std::string_view name() const { return name_; }
  bool has(uint16_t t) const { return t < kMax && attrs_[t] != nullptr; }
  const nlattr *attr(uint16_t t) const {
    return t < kMax ? attrs_[t] : nullptr;
  }

  // A big-endian u32 attribute, as libnftnl's nftnl_expr_get_u32 of an
  // integer attribute (register numbers, keys, ops, offsets).
  uint32_t u32(uint16_t t) const {
    const nlattr *a = attr(t);
    if (a == nullptr || nft::attr_len(a) < 4)
      return 0;
    uint32_t v;
    std::memcpy(&v, nft::attr_data(a), 4);
    return ntohl(v);
  }
  uint64_t u64(uint16_t t) const {
    const nlattr *a = attr(t);
    return a != nullptr ? nft::attr_be64(a) : 0;
  }
  std::string_view string(uint16_t t) const {
    const nlattr *a = attr(t);
    return a != nullptr ? nft::attr_text(a) : std::string_view();
  }
  // The bytes of a data attribute (nested NFTA_DATA_VALUE), raw; len 0
  // when absent.
  const uint8_t *data(uint16_t t, uint32_t &len) const {
    len = 0;
    const uint8_t *out = nullptr;
    const nlattr *a = attr(t);
    if (a == nullptr)
      return nullptr;
    nft::each_nested(a, [&](const nlattr *v) {
      if (nft::attr_type(v) == NFTA_DATA_VALUE) {
        out = reinterpret_cast<const uint8_t *>(nft::attr_data(v));
        len = nft::attr_len(v);
      }
    });
    return out;
  }
  // The raw payload of a plain attribute (a compat expression's info).
  const uint8_t *bytes(uint16_t t, uint32_t &len) const {
    const nlattr *a = attr(t);
    len = a != nullptr ? mnl_attr_get_payload_len(a) : 0;
    return a != nullptr ? static_cast<const uint8_t *>(mnl_attr_get_payload(a))
                        : nullptr;
  }

private:
  std::string_view name_;
  const nlattr *attrs_[kMax] = {};
};

} // namespace fastrestore::save
