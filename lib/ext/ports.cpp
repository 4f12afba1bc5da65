// Source and destination port ranges shared by the tcp and udp lowerings,
// and raised back from their compares.
#include <arpa/inet.h>
#include <linux/netfilter/nf_tables.h>

#include <algorithm>

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

void raise_port_range(uint16_t *ports, uint8_t *invflags, uint32_t op, int port,
                      uint8_t invflag) {
  if (port < 0)
    return;
  switch (op) {
  case NFT_CMP_NEQ:
    *invflags |= invflag;
    [[fallthrough]];
  case NFT_CMP_EQ:
    ports[0] = static_cast<uint16_t>(port);
    ports[1] = static_cast<uint16_t>(port);
    break;
  case NFT_CMP_LT:
    ports[1] = static_cast<uint16_t>(std::max(port - 1, 1));
    break;
  case NFT_CMP_LTE:
    ports[1] = static_cast<uint16_t>(port);
    break;
  case NFT_CMP_GT:
    ports[0] = static_cast<uint16_t>(std::min(port + 1, 0xffff));
    break;
  case NFT_CMP_GTE:
    ports[0] = static_cast<uint16_t>(port);
    break;
  }
}

} // namespace fastrestore
