// Decoder for the bridge family (see decoder.h), as ebtables-nft 1.8.9
// reads rules back (nft-bridge.c): interfaces, link-layer and network
// payloads into the ebt_entry fields, and among from its anonymous sets.
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
#include "ext/among.h"
#include "ext/ext.h"

namespace fastrestore::save {

// ebtables-nft's parse_meta: interfaces into the ebt_entry fields.
void Decoder::bridge_meta(const Reg &reg, const ExprReader &e) {
  if (reg.key == NFT_META_PROTOCOL)
    return;
  char name[IFNAMSIZ + 1] = {};
  bool inv = neq(e);
  uint32_t len;
  const uint8_t *d = e.data(NFTA_CMP_DATA, len);
  switch (reg.key) {
  case NFT_META_IIF:
  case NFT_META_OIF:
    if_indextoname(cmp_u32(e), name);
    break;
  case NFT_META_BRI_IIFNAME:
  case NFT_META_IIFNAME:
  case NFT_META_BRI_OIFNAME:
  case NFT_META_OIFNAME:
    if (len > 0) {
      std::memcpy(name, d, std::min<uint32_t>(len, IFNAMSIZ));
      if (d[len - 1] != '\0' && len < IFNAMSIZ)
        name[len] = '+';
    }
    break;
  case NFT_META_MARK:
  case NFT_META_PKTTYPE:
    // iptables builds the match but never lists it for ebtables, and then
    // finds no interface here.
    return fail("unknown bridge meta key");
  default:
    return fail("unknown meta key");
  }
  name[IFNAMSIZ - 1] = '\0';
  std::array<char, 16> *dst;
  uint32_t bit;
  switch (reg.key) {
  case NFT_META_BRI_IIFNAME:
    dst = &r_.eb.logical_in;
    bit = EBT_ILOGICALIN;
    break;
  case NFT_META_IIFNAME:
    dst = &r_.iniface;
    bit = EBT_IIN;
    break;
  case NFT_META_BRI_OIFNAME:
    dst = &r_.eb.logical_out;
    bit = EBT_ILOGICALOUT;
    break;
  case NFT_META_OIFNAME:
    dst = &r_.outiface;
    bit = EBT_IOUT;
    break;
  default:
    return fail("unknown bridge meta key");
  }
  if (inv)
    r_.eb.invflags |= bit;
  std::memcpy(dst->data(), name, IFNAMSIZ);
}

void Decoder::bridge_payload(const Reg &reg, const ExprReader &e) {
  uint32_t len;
  const uint8_t *d = e.data(NFTA_CMP_DATA, len);
  const uint32_t op = e.u32(NFTA_CMP_OP);
  switch (reg.offset) {
  case 0:   // destination MAC
  case 6: { // source MAC
    const bool dst = reg.offset == 0;
    auto &mac = dst ? r_.eb.dmac : r_.eb.smac;
    auto &mask = dst ? r_.eb.dmsk : r_.eb.smsk;
    const uint32_t bit = dst ? EBT_IDEST : EBT_ISOURCE;
    if (d != nullptr)
      std::memcpy(mac.data(), d, std::min<uint32_t>(len, 6));
    if (op == NFT_CMP_NEQ)
      r_.eb.invflags |= bit;
    if (reg.bw_set)
      std::memcpy(mask.data(), reg.mask, 6);
    else
      std::memset(mask.data(), 0xff, std::min<uint32_t>(reg.len, 6));
    r_.eb.bitmask |= bit;
    return;
  }
  case 12: { // ethertype
    uint16_t proto = 0;
    if (d != nullptr)
      std::memcpy(&proto, d, std::min<uint32_t>(len, 2));
    bool inv;
    if (proto == htons(0x0600)) {
      r_.eb.bitmask |= EBT_802_3;
      inv = op == NFT_CMP_GTE;
    } else {
      r_.eb.ethproto = proto;
      inv = op == NFT_CMP_NEQ;
    }
    if (inv)
      r_.eb.invflags |= EBT_IPROTO;
    r_.eb.bitmask &= ~static_cast<uint32_t>(EBT_NOPROTO);
    return;
  }
  default:
    return fail("unknown payload offset");
  }
}

// ebtables-nft's among: a lookup of the MAC (and IPv4) addresses in an
// anonymous set, read back into the among match's pair lists.
void Decoder::among(const ExprReader &e) {
  const SetInfo *set = sets_ != nullptr
                           ? (*sets_)(std::string(e.string(NFTA_LOOKUP_SET)))
                           : nullptr;
  if (set == nullptr)
    return fail("BUG: lookup expression references unknown set");
  // Which address, and whether an IPv4 address follows the MAC.
  auto ether = [](const Reg *r) {
    if (r->base != NFT_PAYLOAD_LL_HEADER || r->len != 6)
      return -1;
    return r->offset == 0 ? 1 : r->offset == 6 ? 0 : -1;
  };
  auto ipv4 = [](const Reg *r) {
    if (r->base != NFT_PAYLOAD_NETWORK_HEADER || r->len != 4)
      return -1;
    return r->offset == 16 ? 1 : r->offset == 12 ? 0 : -1;
  };
  uint32_t sregnum = e.u32(NFTA_LOOKUP_SREG);
  const Reg *reg = regs_.sreg(sregnum);
  if (reg == nullptr)
    return;
  if (reg->type != Reg::payload)
    return fail("lookup reg is not payload type");
  int val, val2 = -1;
  if (set->key_len == 12) {
    val = ether(reg);
    if (val < 0)
      return;
    // The next register after 6 bytes (iptables' nft_get_next_reg).
    uint32_t next = sregnum;
    if (next < NFT_REG32_00)
      next = NFT_REG32_00 + (next - 1) * 4;
    next += 2;
    reg = regs_.sreg(next);
    if (reg == nullptr)
      return fail("next lookup register is invalid");
    if (reg->type != Reg::payload)
      return fail("next lookup reg is not payload type");
    val2 = ipv4(reg);
    if (val2 < 0 || val != val2)
      return;
  } else if (set->key_len == 6) {
    val = ether(reg);
    if (val < 0)
      return;
  } else {
    return fail("unsupported lookup key length");
  }
  const bool is_dst = val == 1, have_ip = val2 != -1;
  const bool inv = e.u32(NFTA_LOOKUP_FLAGS) & NFT_LOOKUP_F_INV;
  const uint32_t cnt = set->size;

  PluginEntry *m = nullptr;
  for (auto &x : r_.matches)
    if (!x.watcher && x.plugin != nullptr &&
        std::strcmp(static_cast<xtables_match *>(x.plugin)->name, "among") == 0)
      m = &x;
  const size_t hdr = PluginEntry::header_size();
  // A match entry's size is 16 bits wide: a set announcing more pairs than
  // that can hold is no set ebtables-nft wrote (and would be a huge
  // allocation).
  const size_t before = m != nullptr ? among_pair_count(m->data()) : 0;
  const size_t size = (cnt + before) * kAmongPairSize + hdr + kAmongHeadSize;
  if (size > UINT16_MAX)
    return fail("ebtables among pair parsing failed");
  if (m != nullptr) {
    m->entry.resize(size, 0);
  } else {
    PluginEntry n = new_match("among");
    if (n.plugin == nullptr)
      return;
    n.entry.assign(size, 0);
    auto *p = static_cast<xtables_match *>(n.plugin);
    auto *em = reinterpret_cast<xt_entry_match *>(n.entry.data());
    std::strncpy(em->u.user.name, p->name, sizeof(em->u.user.name) - 1);
    em->u.user.revision = p->revision;
    if (p->init != nullptr)
      p->init(em);
    add_parsed(std::move(n));
    for (auto &x : r_.matches)
      if (!x.watcher && x.plugin == p)
        m = &x;
    if (m == nullptr)
      return;
  }
  reinterpret_cast<xt_entry_match *>(m->entry.data())->u.match_size =
      static_cast<uint16_t>(m->entry.size());
  const char *error = nullptr;
  if (!raise_match_among(m->data(), is_dst, inv, have_ip, cnt, set->keys,
                         &error))
    return fail(error);
}

} // namespace fastrestore::save
