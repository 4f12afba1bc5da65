// The registers of a rule being read back: what each one was last loaded
// with (a meta key, a payload field, immediate data) and the bitwise mask
// applied to it, as iptables-nft 1.8.9 tracks them (struct nft_xt_ctx_reg).
#pragma once

#include <linux/netfilter/nf_tables.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "expr_reader.h"

namespace fastrestore::save {

struct Reg {
  enum Type { undef, meta, payload, immediate } type = undef;
  uint32_t key = 0;                       // meta
  uint32_t base = 0, offset = 0, len = 0; // payload
  uint8_t imm[16] = {};
  uint32_t imm_len = 0;
  bool bw_set = false;
  uint8_t mask[16] = {}, xr[16] = {};
};

class Regs {
public:
  explicit Regs(std::vector<std::string> &errors) : errors_(errors) {}

  // iptables' register slots: the 16-byte registers start at slots 1, 5,
  // 9 and 13, the 4-byte ones at slot 0 (sharing it with the verdict).
  Reg *sreg(uint32_t n) {
    switch (n) {
    case NFT_REG_VERDICT:
      return &regs_[0];
    case NFT_REG_1:
      return &regs_[1];
    case NFT_REG_2:
      return &regs_[5];
    case NFT_REG_3:
      return &regs_[9];
    case NFT_REG_4:
      return &regs_[13];
    default:
      if (n >= NFT_REG32_00 && n <= NFT_REG32_15)
        return &regs_[n - NFT_REG32_00];
      errors_.emplace_back("Unknown register requested");
      return nullptr;
    }
  }

  // A register about to be written: cleared first.
  Reg *dreg(uint32_t n) {
    Reg *r = sreg(n);
    if (r != nullptr) {
      r->type = Reg::undef;
      r->bw_set = false;
    }
    return r;
  }

  void bitwise(const ExprReader &e) {
    const uint32_t sn = e.u32(NFTA_BITWISE_SREG), dn = e.u32(NFTA_BITWISE_DREG);
    Reg *s = sreg(sn);
    if (s == nullptr)
      return;
    Reg *d = s;
    if (sn != dn) {
      d = sreg(dn);
      if (d == nullptr)
        return;
      *d = *s;
    }
    uint32_t len;
    const uint8_t *x = e.data(NFTA_BITWISE_XOR, len);
    if (len > sizeof(d->xr)) {
      errors_.emplace_back("bitwise xor too large");
      return;
    }
    if (x != nullptr)
      std::memcpy(d->xr, x, len);
    const uint8_t *m = e.data(NFTA_BITWISE_MASK, len);
    if (len > sizeof(d->mask)) {
      errors_.emplace_back("bitwise mask too large");
      return;
    }
    if (m != nullptr)
      std::memcpy(d->mask, m, len);
    d->bw_set = true;
  }

private:
  std::vector<std::string> &errors_;
  Reg regs_[17];
};

// The comment iptables-nft keeps in a rule's user data (TLV type 0, a
// NUL-terminated string), read as libnftnl's udata parser and iptables'
// callback read it: false when absent or when the user data is malformed.
inline bool parse_comment(const nlattr *udata, std::string &out) {
  const auto *p = static_cast<const uint8_t *>(mnl_attr_get_payload(udata));
  const uint32_t n = mnl_attr_get_payload_len(udata);
  const uint8_t *comment = nullptr;
  uint32_t clen = 0;
  for (uint32_t i = 0; i + 2 <= n;) {
    const uint8_t type = p[i], len = p[i + 1];
    if (i + 2 + len > n)
      return false;
    const uint8_t *v = p + i + 2;
    if (type == 0) { // UDATA_TYPE_COMMENT
      if (len == 0 || v[len - 1] != '\0')
        return false;
      comment = v;
      clen = len;
    }
    i += 2 + len;
  }
  if (comment == nullptr)
    return false;
  out.assign(reinterpret_cast<const char *>(comment),
             strnlen(reinterpret_cast<const char *>(comment), clen));
  return true;
}

} // namespace fastrestore::save
