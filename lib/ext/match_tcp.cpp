// tcp match: ports and flags as payload/bitwise/cmp, the option and other
// inversions through compat (as iptables-nft does); and back.
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <netinet/in.h>

#include <cstring>

#include "ext/ext.h"

namespace fastrestore {

bool lower_match_tcp(const XtBlob &m, const LowerCtx &ctx) {
  xt_tcp tcp{};
  if (m.data.size() < sizeof(tcp))
    return false;
  std::memcpy(&tcp, m.data.data(), sizeof(tcp));
  constexpr uint8_t supported =
      XT_TCP_INV_SRCPT | XT_TCP_INV_DSTPT | XT_TCP_INV_FLAGS;
  xt_tcp zero{};
  zero.spts[1] = zero.dpts[1] = 0xffff;
  if ((tcp.invflags & ~supported) || tcp.option ||
      std::memcmp(&tcp, &zero, sizeof(tcp)) == 0)
    return false;
  if (ctx.compat_proto != IPPROTO_TCP)
    lowering_error(ctx, "TCP match requires '-p tcp'");
  if (tcp.flg_mask) {
    ctx.out.payload(NFT_PAYLOAD_TRANSPORT_HEADER, 13, 1);
    ctx.out.bitwise(&tcp.flg_mask, 1);
    ctx.out.cmp((tcp.invflags & XT_TCP_INV_FLAGS) ? NFT_CMP_NEQ : NFT_CMP_EQ,
                &tcp.flg_cmp, 1);
  }
  lower_ports(ctx, tcp.spts, tcp.invflags & XT_TCP_INV_SRCPT, tcp.dpts,
              tcp.invflags & XT_TCP_INV_DSTPT);
  return true;
}

void raise_match_tcp_ports(uint32_t op, int sport, int dport,
                           unsigned char *data) {
  auto *t = reinterpret_cast<xt_tcp *>(data);
  raise_port_range(t->spts, &t->invflags, op, sport, XT_TCP_INV_SRCPT);
  raise_port_range(t->dpts, &t->invflags, op, dport, XT_TCP_INV_DSTPT);
}

void raise_match_tcp_flags(uint8_t cmp, uint8_t mask, bool invert,
                           unsigned char *data) {
  auto *t = reinterpret_cast<xt_tcp *>(data);
  if (invert)
    t->invflags |= XT_TCP_INV_FLAGS;
  t->flg_cmp = cmp;
  t->flg_mask = mask;
}

} // namespace fastrestore
