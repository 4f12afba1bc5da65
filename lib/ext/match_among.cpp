// ebtables' among (bridge): ebtables-nft's lookup of the MAC (and IPv4
// address) in an anonymous set per direction, after a test for IPv4 when
// addresses are given, and its struct raised back from a set's keys; and
// 802_3, which needs -p LENGTH.
#include <arpa/inet.h>

#include <linux/if_ether.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <cstddef>
#include <cstring>

#include "ext/among.h"
#include "ext/ext.h"

namespace fastrestore {

bool lower_match_among(const XtBlob &m, const LowerCtx &ctx) {
  AmongSide src, dst;
  if (!parse_among(m, src, dst))
    return true; // nothing that ebtables-nft would write either
  nft::ExprWriter &w = ctx.out;
  if ((src.count && src.ip) || (dst.count && dst.ip)) {
    uint16_t ip = htons(ETH_P_IP);
    w.meta_load(NFT_META_PROTOCOL);
    w.cmp(NFT_CMP_EQ, &ip, 2);
  }
  for (int d = 0; d < 2; ++d) {
    const AmongSide &side = d ? dst : src;
    if (!side.count)
      continue;
    w.payload(NFT_PAYLOAD_LL_HEADER,
              d ? offsetof(ethhdr, h_dest) : offsetof(ethhdr, h_source),
              ETH_ALEN);
    if (side.ip)
      w.payload(NFT_PAYLOAD_NETWORK_HEADER, d ? 16 : 12, 4, NFT_REG32_02);
    size_t &next = *ctx.next_set;
    const uint32_t id = ctx.set_ids != nullptr && next < ctx.set_ids->size()
                            ? (*ctx.set_ids)[next]
                            : 0;
    ++next;
    w.lookup("__set%d", id, side.inv ? NFT_LOOKUP_F_INV : 0);
  }
  return true;
}

bool raise_match_among(uint8_t *data, bool dst, bool inv, bool ip, size_t count,
                       const std::vector<std::vector<uint8_t>> &keys,
                       const char **error) {
  uint8_t *pairs = data + kAmongHeadSize;
  size_t src_count = 0, dst_count = 0;
  std::memcpy(&src_count, data, sizeof(size_t));
  std::memcpy(&dst_count, data + kAmongSideSize, sizeof(size_t));
  uint8_t *side = data + (dst ? kAmongSideSize : 0);
  std::memcpy(side, &count, sizeof(size_t));
  side[sizeof(size_t)] = inv;
  side[sizeof(size_t) + 1] = ip;
  size_t at = src_count; // the destination pairs follow the source pairs
  if (!dst) {
    at = 0;
    std::memmove(pairs + count * kAmongPairSize, pairs,
                 dst_count * kAmongPairSize);
  }
  uint8_t *out = pairs + at * kAmongPairSize;
  size_t n = 0;
  for (const std::vector<uint8_t> &key : keys) {
    if (key.size() > kAmongPairSize) {
      *error = "BUG: overlong set elem";
      return false;
    }
    if (n >= count) {
      *error = "ebtables among pair parsing failed";
      return false;
    }
    uint8_t pair[kAmongPairSize] = {};
    if (!key.empty())
      std::memcpy(pair, key.data(), key.size());
    size_t i = 0;
    while (i < n &&
           std::memcmp(pair, out + i * kAmongPairSize, kAmongPairSize) >= 0)
      ++i;
    std::memmove(out + (i + 1) * kAmongPairSize, out + i * kAmongPairSize,
                 (n - i) * kAmongPairSize);
    std::memcpy(out + i * kAmongPairSize, pair, kAmongPairSize);
    ++n;
  }
  return true;
}

// 802.3 DSAP/SSAP filtering goes compat, and only with -p LENGTH.
bool lower_match_802_3(const XtBlob &, const LowerCtx &ctx) {
  if (!(ctx.eb_bitmask & EBT_802_3))
    lowering_error(ctx,
                   "For 802.3 DSAP/SSAP filtering the protocol must be LENGTH");
  return false;
}

} // namespace fastrestore
