// ebtables' among (bridge): ebtables-nft's lookup of the MAC (and IPv4
// address) in an anonymous set per direction, after a test for IPv4 when
// addresses are given; and 802_3, which needs -p LENGTH.
#include <arpa/inet.h>

#include <linux/if_ether.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <cstddef>

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

// 802.3 DSAP/SSAP filtering goes compat, and only with -p LENGTH.
bool lower_match_802_3(const XtBlob &, const LowerCtx &ctx) {
  if (!(ctx.eb_bitmask & EBT_802_3))
    lowering_error(ctx,
                   "For 802.3 DSAP/SSAP filtering the protocol must be LENGTH");
  return false;
}

} // namespace fastrestore
