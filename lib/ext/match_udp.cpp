// udp match: ports as payload/cmp, inversions beyond the ports via compat;
// and back.
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

void raise_match_udp_ports(uint32_t op, int sport, int dport,
                           unsigned char *data) {
  auto *u = reinterpret_cast<xt_udp *>(data);
  raise_port_range(u->spts, &u->invflags, op, sport, XT_UDP_INV_SRCPT);
  raise_port_range(u->dpts, &u->invflags, op, dport, XT_UDP_INV_DSTPT);
}

} // namespace fastrestore
