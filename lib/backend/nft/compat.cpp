#include "nft/nft_compat.h"

#include "nft/nft_attrs.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cstring>
#include <map>
#include <string>

namespace fastrestore::nft {

// The protocol a rule's compat matches and targets were checked against
// (NFTA_RULE_COMPAT): the kernel keeps it only while it checks them, so
// a dump lacks it. It is what the rule's first protocol test compares
// with: `meta l4proto` (iptables-nft's -p) or, for the bridge family, the
// ethertype at link header offset 12 (ebtables-nft's -p).
Compat rule_compat(const nlattr *list, uint8_t family) {
  Compat out;
  bool loaded = false; // the previous expression loaded the protocol
  uint32_t reg = 0;
  each_nested(list, [&](const nlattr *elem) {
    if (out.found)
      return;
    std::string name;
    const nlattr *data = nullptr;
    each_nested(elem, [&](const nlattr *a) {
      if (mnl_attr_get_type(a) == NFTA_EXPR_NAME)
        name = mnl_attr_get_str(a);
      else if (mnl_attr_get_type(a) == NFTA_EXPR_DATA)
        data = a;
    });
    if (data == nullptr) {
      loaded = false;
      return;
    }
    std::map<uint16_t, const nlattr *> at;
    each_nested(data, [&](const nlattr *a) { at[mnl_attr_get_type(a)] = a; });
    auto u32 = [&](uint16_t t, uint32_t &v) {
      if (!at.count(t) || mnl_attr_get_payload_len(at[t]) != 4)
        return false;
      v = ntohl(mnl_attr_get_u32(at[t]));
      return true;
    };
    if (loaded && name == "cmp") {
      uint32_t sreg, op;
      loaded = false;
      if (!u32(NFTA_CMP_SREG, sreg) || sreg != reg || !u32(NFTA_CMP_OP, op) ||
          (op != NFT_CMP_EQ && op != NFT_CMP_NEQ) || !at.count(NFTA_CMP_DATA))
        return;
      each_nested(at[NFTA_CMP_DATA], [&](const nlattr *v) {
        if (mnl_attr_get_type(v) != NFTA_DATA_VALUE)
          return;
        const auto *p = static_cast<const uint8_t *>(mnl_attr_get_payload(v));
        size_t len = mnl_attr_get_payload_len(v);
        if (family != NFPROTO_BRIDGE && len == 1) {
          out.proto = p[0];
        } else if (family == NFPROTO_BRIDGE && len == 2) {
          uint16_t be;
          std::memcpy(&be, p, 2);
          out.proto = be; // the ethertype as ebtables holds it
        } else {
          return;
        }
        out.found = true;
        out.inv = op == NFT_CMP_NEQ;
      });
      return;
    }
    loaded = false;
    uint32_t key, base, offset, len;
    if (family != NFPROTO_BRIDGE && name == "meta" && u32(NFTA_META_KEY, key) &&
        key == NFT_META_L4PROTO && u32(NFTA_META_DREG, reg))
      loaded = true;
    else if (family == NFPROTO_BRIDGE && name == "payload" &&
             u32(NFTA_PAYLOAD_BASE, base) && base == NFT_PAYLOAD_LL_HEADER &&
             u32(NFTA_PAYLOAD_OFFSET, offset) && offset == 12 &&
             u32(NFTA_PAYLOAD_LEN, len) && len == 2 &&
             u32(NFTA_PAYLOAD_DREG, reg))
      loaded = true;
  });
  return out;
}

Compat rule_compat(const nlmsghdr *rule) {
  const auto *nfg = static_cast<const nfgenmsg *>(mnl_nlmsg_get_payload(rule));
  Compat out;
  each_top(rule, [&](const nlattr *a) {
    if (mnl_attr_get_type(a) == NFTA_RULE_EXPRESSIONS)
      out = rule_compat(a, nfg->nfgen_family);
  });
  return out;
}

} // namespace fastrestore::nft
