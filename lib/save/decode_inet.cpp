// Decoder for the ip and ip6 families (see decoder.h): network header
// payloads (nft-ipv4.c, nft-ipv6.c), transport ports and tcp/udp matches,
// icmp, and the range expression (nft-shared.c).
// glibc's network headers before the kernel's, or they collide.
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <linux/netfilter/xt_NFLOG.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_pkttype.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_bridge/ebtables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/netfilter_ipv6/ip6t_hl.h>
#include <xtables.h>

#include <algorithm>
#include <cstring>

#include "decoder.h"
#include "ext/ext.h"

namespace fastrestore::save {

void Decoder::family_meta(const Reg &reg, const ExprReader &e) {
  if (reg.key == NFT_META_L4PROTO) {
    r_.proto = cmp_u8(e);
    if (neq(e))
      r_.invflags |= XT_INV_PROTO;
    return;
  }
  if (!generic_meta(reg, e))
    fail(family_ == Family::ipv4 ? "unknown ipv4 meta key"
                                 : "unknown ipv6 meta key");
}

void Decoder::family_payload(const Reg &reg, const ExprReader &e) {
  const bool v4 = family_ == Family::ipv4;
  const uint32_t alen = v4 ? 4 : 16;
  const uint32_t src_off = v4 ? 12 : 8, dst_off = v4 ? 16 : 24;
  uint32_t len;
  const uint8_t *d = e.data(NFTA_CMP_DATA, len);
  if (reg.offset == src_off || reg.offset == dst_off) {
    bool src = reg.offset == src_off;
    auto &addr = src ? r_.src : r_.dst;
    auto &mask = src ? r_.smsk : r_.dmsk;
    if (d != nullptr)
      std::memcpy(addr.data(), d, std::min(len, alen));
    if (reg.bw_set)
      std::memcpy(mask.data(), reg.mask, v4 ? 4 : 16);
    else
      std::memset(mask.data(), 0xff, std::min(reg.len, alen));
    if (neq(e))
      r_.invflags |= src ? IPT_INV_SRCIP : IPT_INV_DSTIP;
    return;
  }
  if (v4 && reg.offset == 9) { // protocol
    r_.proto = d != nullptr && len > 0 ? d[0] : 0;
    if (neq(e))
      r_.invflags |= XT_INV_PROTO;
    return;
  }
  if (v4 && reg.offset == 6) { // frag_off
    r_.frag = true;
    if (reg.bw_set && e.u32(NFTA_CMP_OP) == NFT_CMP_EQ)
      r_.invflags |= IPT_INV_FRAG;
    return;
  }
  if (!v4 && reg.offset == 6) { // nexthdr, falling into hoplimit
    r_.proto = d != nullptr && len > 0 ? d[0] : 0;
    if (neq(e))
      r_.invflags |= XT_INV_PROTO;
    if (!hop_limit(e))
      fail("invalid ttl field match");
    return;
  }
  if (reg.offset == (v4 ? 8u : 7u)) { // ttl / hoplimit
    if (!hop_limit(e))
      fail("invalid ttl field match");
    return;
  }
  fail("unknown payload offset");
}

bool Decoder::hop_limit(const ExprReader &e) {
  uint8_t hl = cmp_u8(e), mode;
  switch (e.u32(NFTA_CMP_OP)) {
  case NFT_CMP_NEQ:
    mode = IP6T_HL_NE;
    break;
  case NFT_CMP_EQ:
    mode = IP6T_HL_EQ;
    break;
  case NFT_CMP_LT:
    mode = IP6T_HL_LT;
    break;
  case NFT_CMP_GT:
    mode = IP6T_HL_GT;
    break;
  case NFT_CMP_LTE:
    mode = IP6T_HL_LT;
    if (hl == 255)
      return false;
    hl++;
    break;
  case NFT_CMP_GTE:
    mode = IP6T_HL_GT;
    if (hl == 0)
      return false;
    hl--;
    break;
  default:
    return false;
  }
  PluginEntry m = new_match(family_ == Family::ipv4 ? "ttl" : "hl");
  if (m.plugin == nullptr)
    return false;
  auto *info = reinterpret_cast<ip6t_hl_info *>(m.data());
  info->hop_limit = hl;
  info->mode = mode;
  r_.matches.push_back(std::move(m));
  return true;
}

// The tcp or udp match the rule's port and flag expressions fill in,
// created at the first of them.
unsigned char *Decoder::tcpudp(bool tcp) {
  if (tcpudp_ < 0) {
    PluginEntry m = new_match(tcp ? "tcp" : "udp");
    if (m.plugin == nullptr) {
      if (tcp)
        fail("tcp match extension not found");
      return nullptr;
    }
    tcpudp_ = static_cast<int>(r_.matches.size());
    r_.matches.push_back(std::move(m));
  }
  return r_.matches[tcpudp_].data();
}

void Decoder::th_port(int sport, int dport, uint32_t op) {
  if (r_.proto != IPPROTO_UDP && r_.proto != IPPROTO_TCP)
    return fail("unknown layer 4 protocol for TH match");
  bool tcp = r_.proto == IPPROTO_TCP;
  unsigned char *d = tcpudp(tcp);
  if (d == nullptr)
    return;
  if (tcp)
    raise_match_tcp_ports(op, sport, dport, d);
  else
    raise_match_udp_ports(op, sport, dport, d);
}

void Decoder::transport(const ExprReader &e) {
  uint32_t len;
  const uint8_t *d = e.data(NFTA_CMP_DATA, len);
  const uint32_t op = e.u32(NFTA_CMP_OP);
  Reg *sreg = regs_.sreg(e.u32(NFTA_CMP_SREG));
  if (sreg == nullptr)
    return;
  if (sreg->type != Reg::payload)
    return fail("sgreg not payload");
  switch (r_.proto) {
  case IPPROTO_UDP:
  case IPPROTO_TCP:
    break;
  case IPPROTO_ICMP:
  case IPPROTO_ICMPV6:
    return icmp(*sreg, d, len);
  default:
    return fail("unsupported layer 4 protocol value");
  }
  switch (sreg->offset) {
  case 0: // source port, or both ports
    if (len == 2)
      return th_port(be16(d), -1, op);
    if (len == 4)
      return th_port(be16(d), be16(d + 2), op);
    return;
  case 2: // destination port
    if (len == 2)
      return th_port(-1, be16(d), op);
    return;
  case 13: // tcp flags
    if (len == 1 && r_.proto == IPPROTO_TCP) {
      uint8_t mask = 0xff;
      if (sreg->bw_set)
        std::memcpy(&mask, sreg->mask, 1);
      unsigned char *td = tcpudp(true);
      if (td == nullptr)
        return;
      raise_match_tcp_flags(d[0], mask, op == NFT_CMP_NEQ, td);
    }
    return;
  }
}

void Decoder::icmp(const Reg &sreg, const uint8_t *d, uint32_t dlen) {
  ipt_icmp info{};
  info.type = 0xff;
  info.code[0] = 0;
  info.code[1] = 0xff;
  if (dlen < 1)
    return fail("unexpected RHS data length");
  switch (sreg.offset) {
  case 0:
    info.type = d[0];
    if (dlen == 1)
      break;
    dlen--;
    d++;
    [[fallthrough]];
  case 1:
    if (dlen > 1)
      return fail("unexpected RHS data length");
    info.code[0] = info.code[1] = d[0];
    break;
  default:
    return fail("unexpected payload offset");
  }
  if (family_ == Family::ipv6 && info.type == 0xff)
    return fail("icmp6 code with any type match not supported");
  PluginEntry m = new_match(family_ == Family::ipv4 ? "icmp" : "icmp6");
  if (m.plugin == nullptr)
    return fail("icmp match extension not found");
  std::memcpy(m.data(), &info, sizeof(info));
  r_.matches.push_back(std::move(m));
}

void Decoder::range(const ExprReader &e) {
  Reg *sreg = regs_.sreg(e.u32(NFTA_RANGE_SREG));
  if (sreg == nullptr)
    return;
  if (sreg->type == Reg::undef)
    return fail("range sreg undef");
  if (sreg->type != Reg::payload)
    return fail("range sreg type unsupported");
  if (sreg->base != NFT_PAYLOAD_TRANSPORT_HEADER)
    return fail("range with unknown payload base");
  uint32_t lfrom, lto;
  const uint8_t *from = e.data(NFTA_RANGE_FROM_DATA, lfrom);
  const uint8_t *to = e.data(NFTA_RANGE_TO_DATA, lto);
  if (lfrom != 2 || lto != 2)
    return;
  const uint32_t op = e.u32(NFTA_RANGE_OP);
  if (sreg->offset != 0 && sreg->offset != 2)
    return;
  if (r_.proto != IPPROTO_UDP && r_.proto != IPPROTO_TCP)
    return;
  bool src = sreg->offset == 0;
  bool tcp = r_.proto == IPPROTO_TCP;
  unsigned char *d = tcpudp(tcp);
  if (d == nullptr)
    return;
  uint16_t *pts;
  uint8_t *inv, bit;
  if (tcp) {
    auto *t = reinterpret_cast<xt_tcp *>(d);
    pts = src ? t->spts : t->dpts;
    inv = &t->invflags;
    bit = src ? XT_TCP_INV_SRCPT : XT_TCP_INV_DSTPT;
  } else {
    auto *u = reinterpret_cast<xt_udp *>(d);
    pts = src ? u->spts : u->dpts;
    inv = &u->invflags;
    bit = src ? XT_UDP_INV_SRCPT : XT_UDP_INV_DSTPT;
  }
  if (op == NFT_RANGE_NEQ)
    *inv |= bit;
  if (op == NFT_RANGE_NEQ || op == NFT_RANGE_EQ) {
    pts[0] = be16(from);
    pts[1] = be16(to);
  }
}

} // namespace fastrestore::save
