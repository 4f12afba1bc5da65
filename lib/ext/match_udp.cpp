// udp match: ports as payload/cmp, inversions beyond the ports via compat.
#include <linux/netfilter/xt_tcpudp.h>
#include <netinet/in.h>

#include <cstring>

#include "ext/ext.h"

namespace fastrestore {

bool lower_match_udp(const XtBlob &m, const LowerCtx &ctx) {
  xt_udp udp{};
  if (m.data.size() < sizeof(udp))
    return false;
  std::memcpy(&udp, m.data.data(), sizeof(udp));
  xt_udp zero{};
  zero.spts[1] = zero.dpts[1] = 0xffff;
  if (udp.invflags > XT_UDP_INV_MASK ||
      std::memcmp(&udp, &zero, sizeof(udp)) == 0)
    return false;
  if (ctx.compat_proto != IPPROTO_UDP)
    lowering_error(ctx, "UDP match requires '-p udp'");
  lower_ports(ctx, udp.spts, udp.invflags & XT_UDP_INV_SRCPT, udp.dpts,
              udp.invflags & XT_UDP_INV_DSTPT);
  return true;
}

} // namespace fastrestore
