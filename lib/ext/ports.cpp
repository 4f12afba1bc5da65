// Source and destination port ranges shared by the tcp and udp lowerings.
#include <arpa/inet.h>
#include <linux/netfilter/nf_tables.h>

#include "ext/ext.h"

namespace fastrestore {

void lower_ports(const LowerCtx &ctx, const uint16_t src[2], bool inv_src,
                 const uint16_t dst[2], bool inv_dst) {
  // One port each way with the same inversion: one 4-byte compare.
  if (src[0] && src[0] == src[1] && dst[0] && dst[0] == dst[1] &&
      inv_src == inv_dst) {
    uint32_t both = htonl(static_cast<uint32_t>(dst[0]) |
                          (static_cast<uint32_t>(src[0]) << 16));
    ctx.out.payload(NFT_PAYLOAD_TRANSPORT_HEADER, 0, 4);
    ctx.out.cmp(inv_src ? NFT_CMP_NEQ : NFT_CMP_EQ, &both, sizeof(both));
    return;
  }
  if (src[0] || src[1] < 0xffff) {
    ctx.out.payload(NFT_PAYLOAD_TRANSPORT_HEADER, 0, 2);
    ctx.out.port_range(src[0], src[1], inv_src);
  }
  if (dst[0] || dst[1] < 0xffff) {
    ctx.out.payload(NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2);
    ctx.out.port_range(dst[0], dst[1], inv_dst);
  }
}

} // namespace fastrestore
