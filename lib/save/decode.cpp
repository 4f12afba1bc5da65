// nf_tables rule -> SavedRule for the ip and ip6 families. Each function
// mirrors its namesake in iptables 1.8.9 (nft-shared.c, nft-ipv4.c,
// nft-ipv6.c), including what that code leaves unread or gets wrong, so
// that the printed rule is the one iptables-nft-save prints.
#include "decode.h"

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

#include "expr_reader.h"
#include "plugins.h"
#include "regs.h"

namespace fastrestore::save {
namespace {

const char *const kSupported[] = {"match",  "target",  "payload", "meta",
                                  "cmp",    "bitwise", "counter", "immediate",
                                  "lookup", "range"};

// iptables' nft_is_expr_compatible.
bool expr_compatible(const ExprReader &e) {
  for (const char *s : kSupported)
    if (e.name() == s)
      return true;
  if (e.name() == "limit")
    return e.u32(NFTA_LIMIT_TYPE) == NFT_LIMIT_PKTS &&
           e.u32(NFTA_LIMIT_FLAGS) == 0;
  if (e.name() == "log")
    return e.has(NFTA_LOG_GROUP);
  return false;
}

class Decoder {
public:
  Decoder(SavedRule &r, Family family, const SetResolver *sets)
      : r_(r), family_(family), bridge_(family == Family::bridge), sets_(sets) {
  }

  void expr(const ExprReader &e) {
    std::string_view n = e.name();
    if (!expr_compatible(e)) {
      r_.compatible = false;
      return;
    }
    if (n == "counter") {
      r_.packets = e.u64(NFTA_COUNTER_PACKETS);
      r_.bytes = e.u64(NFTA_COUNTER_BYTES);
    } else if (n == "payload")
      payload(e);
    else if (n == "meta")
      meta(e);
    else if (n == "bitwise")
      regs_.bitwise(e);
    else if (n == "cmp")
      cmp(e);
    else if (n == "immediate")
      immediate(e);
    else if (n == "match")
      match(e);
    else if (n == "target")
      target(e);
    else if (n == "limit")
      limit(e);
    else if (n == "log")
      log(e);
    else if (n == "range")
      range(e);
    else if (n == "lookup" && bridge_)
      among(e);
  }

  void comment(const nlattr *udata);

private:
  void fail(const char *msg) { r_.errors.emplace_back(msg); }

  void payload(const ExprReader &e) {
    Reg *reg = regs_.dreg(e.u32(NFTA_PAYLOAD_DREG));
    if (reg == nullptr)
      return;
    reg->type = Reg::payload;
    reg->base = e.u32(NFTA_PAYLOAD_BASE);
    reg->offset = e.u32(NFTA_PAYLOAD_OFFSET);
    reg->len = e.u32(NFTA_PAYLOAD_LEN);
  }

  void meta(const ExprReader &e) {
    if (e.has(NFTA_META_SREG)) {
      meta_set(e);
      return;
    }
    Reg *reg = regs_.dreg(e.u32(NFTA_META_DREG));
    if (reg == nullptr)
      return;
    reg->key = e.u32(NFTA_META_KEY);
    reg->type = Reg::meta;
  }

  // meta nftrace set 1: the TRACE target.
  void meta_set(const ExprReader &e) {
    Reg *sreg = regs_.sreg(e.u32(NFTA_META_SREG));
    if (sreg == nullptr)
      return;
    if (e.u32(NFTA_META_KEY) != NFT_META_NFTRACE)
      return fail("meta sreg key not supported");
    if (sreg->type != Reg::immediate)
      return fail("meta nftrace but reg not immediate");
    if (sreg->imm[0] == 0)
      return fail("trace is cleared");
    PluginEntry t = new_target("TRACE");
    if (t.plugin == nullptr)
      return fail("target TRACE not found");
    set_target(std::move(t), "TRACE");
  }

  void cmp(const ExprReader &e) {
    Reg *sreg = regs_.sreg(e.u32(NFTA_CMP_SREG));
    if (sreg == nullptr)
      return;
    switch (sreg->type) {
    case Reg::undef:
      return fail("cmp sreg undef");
    case Reg::meta:
      return bridge_ ? bridge_meta(*sreg, e) : family_meta(*sreg, e);
    case Reg::payload:
      if (sreg->base == NFT_PAYLOAD_LL_HEADER && bridge_)
        bridge_payload(*sreg, e);
      else if (sreg->base == NFT_PAYLOAD_NETWORK_HEADER)
        bridge_ ? bridge_payload(*sreg, e) : family_payload(*sreg, e);
      else if (sreg->base == NFT_PAYLOAD_TRANSPORT_HEADER)
        bridge_ ? fail("invalid family for TH match") : transport(e);
      return;
    default:
      return fail("cmp sreg has unknown type");
    }
  }

  static bool neq(const ExprReader &e) {
    return e.u32(NFTA_CMP_OP) == NFT_CMP_NEQ;
  }

  void family_meta(const Reg &reg, const ExprReader &e) {
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

  bool generic_meta(const Reg &reg, const ExprReader &e) {
    uint32_t len;
    const uint8_t *d = e.data(NFTA_CMP_DATA, len);
    switch (reg.key) {
    case NFT_META_IIF:
    case NFT_META_OIF: {
      bool in = reg.key == NFT_META_IIF;
      if (neq(e))
        r_.invflags |= in ? IPT_INV_VIA_IN : IPT_INV_VIA_OUT;
      auto &name = in ? r_.iniface : r_.outiface;
      auto &mask = in ? r_.inmask : r_.outmask;
      if_indextoname(cmp_u32(e), name.data());
      std::memset(mask.data(), 0xff, strlen(name.data()) + 1);
      return true;
    }
    case NFT_META_BRI_IIFNAME:
    case NFT_META_IIFNAME:
    case NFT_META_BRI_OIFNAME:
    case NFT_META_OIFNAME: {
      bool in = reg.key == NFT_META_IIFNAME || reg.key == NFT_META_BRI_IIFNAME;
      uint8_t bit = in ? IPT_INV_VIA_IN : IPT_INV_VIA_OUT;
      if (neq(e))
        r_.invflags |= bit;
      auto &name = in ? r_.iniface : r_.outiface;
      auto &mask = in ? r_.inmask : r_.outmask;
      parse_ifname(d, len, name.data(), mask.data());
      parse_invalid_iface(name.data(), mask.data(), bit);
      return true;
    }
    case NFT_META_MARK: {
      PluginEntry m = new_match("mark");
      if (m.plugin == nullptr)
        return true;
      auto *info = reinterpret_cast<xt_mark_mtinfo1 *>(m.data());
      if (neq(e))
        info->invert = 1;
      info->mark = cmp_u32(e);
      info->mask = reg_mask(e.u32(NFTA_CMP_SREG));
      add_created(std::move(m));
      return true;
    }
    case NFT_META_PKTTYPE: {
      PluginEntry m = new_match("pkttype");
      if (m.plugin == nullptr)
        return true;
      auto *info = reinterpret_cast<xt_pkttype_info *>(m.data());
      if (neq(e))
        info->invert = 1;
      info->pkttype = cmp_u8(e);
      add_created(std::move(m));
      return true;
    }
    default:
      return false;
    }
  }

  uint32_t reg_mask(uint32_t regnum) {
    Reg *reg = regs_.sreg(regnum);
    if (reg != nullptr && reg->bw_set) {
      uint32_t m;
      std::memcpy(&m, reg->mask, 4);
      return m;
    }
    return ~0u;
  }

  static void parse_ifname(const uint8_t *name, uint32_t len, char *dst,
                           unsigned char *mask) {
    if (len == 0)
      return;
    std::memcpy(dst, name, std::min<uint32_t>(len, IFNAMSIZ));
    if (name[len - 1] == '\0') {
      std::memset(mask, 0xff, strnlen(dst, IFNAMSIZ) + 1);
      return;
    }
    if (len >= IFNAMSIZ)
      return;
    dst[len++] = '+'; // a wildcard
    if (len >= IFNAMSIZ)
      return;
    dst[len++] = 0;
    std::memset(mask, 0xff, len - 2);
  }

  // nft's form of "! -o +".
  void parse_invalid_iface(char *iface, unsigned char *mask, uint8_t bit) {
    if ((r_.invflags & bit) || std::strcmp(iface, "INVAL/D") != 0)
      return;
    r_.invflags |= bit;
    iface[0] = '+';
    iface[1] = '\0';
    mask[0] = 0xff;
    mask[1] = 0xff;
    std::memset(mask + 2, 0, IFNAMSIZ - 2);
  }

  void family_payload(const Reg &reg, const ExprReader &e) {
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

  bool hop_limit(const ExprReader &e) {
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
  unsigned char *tcpudp(bool tcp) {
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

  static void single_to_range(uint16_t *ports, uint8_t *invflags, uint32_t op,
                              int port, uint8_t invflag) {
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

  void th_port(int sport, int dport, uint32_t op) {
    if (r_.proto != IPPROTO_UDP && r_.proto != IPPROTO_TCP)
      return fail("unknown layer 4 protocol for TH match");
    bool tcp = r_.proto == IPPROTO_TCP;
    unsigned char *d = tcpudp(tcp);
    if (d == nullptr)
      return;
    if (tcp) {
      auto *t = reinterpret_cast<xt_tcp *>(d);
      single_to_range(t->spts, &t->invflags, op, sport, XT_TCP_INV_SRCPT);
      single_to_range(t->dpts, &t->invflags, op, dport, XT_TCP_INV_DSTPT);
    } else {
      auto *u = reinterpret_cast<xt_udp *>(d);
      single_to_range(u->spts, &u->invflags, op, sport, XT_UDP_INV_SRCPT);
      single_to_range(u->dpts, &u->invflags, op, dport, XT_UDP_INV_DSTPT);
    }
  }

  void transport(const ExprReader &e) {
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
        auto *t = reinterpret_cast<xt_tcp *>(td);
        if (op == NFT_CMP_NEQ)
          t->invflags |= XT_TCP_INV_FLAGS;
        t->flg_cmp = d[0];
        t->flg_mask = mask;
      }
      return;
    }
  }

  void icmp(const Reg &sreg, const uint8_t *d, uint32_t dlen) {
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

  void range(const ExprReader &e) {
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

  void immediate(const ExprReader &e) {
    uint32_t len;
    const uint8_t *d = e.data(NFTA_IMMEDIATE_DATA, len);
    if (d != nullptr) {
      Reg *dreg = regs_.dreg(e.u32(NFTA_IMMEDIATE_DREG));
      if (dreg == nullptr)
        return;
      if (len > sizeof(dreg->imm))
        return fail("oversized immediate data");
      std::memcpy(dreg->imm, d, len);
      dreg->imm_len = len;
      dreg->type = Reg::immediate;
      return;
    }
    int32_t code = 0;
    std::string chain;
    if (const nlattr *a = e.attr(NFTA_IMMEDIATE_DATA))
      nft::each_nested(a, [&](const nlattr *v) {
        if (mnl_attr_get_type(v) != NFTA_DATA_VERDICT)
          return;
        nft::each_nested(v, [&](const nlattr *x) {
          if (mnl_attr_get_type(x) == NFTA_VERDICT_CODE)
            code = static_cast<int32_t>(ntohl(mnl_attr_get_u32(x)));
          else if (mnl_attr_get_type(x) == NFTA_VERDICT_CHAIN)
            chain = static_cast<const char *>(mnl_attr_get_payload(x));
        });
      });
    const char *name;
    switch (code) {
    case NF_ACCEPT:
      name = "ACCEPT";
      break;
    case NF_DROP:
      name = "DROP";
      break;
    case NFT_RETURN:
      name = "RETURN";
      break;
    case NFT_GOTO:
      r_.go = !bridge_; // ebtables-nft has no goto flag
      r_.jumpto = chain;
      return;
    case NFT_JUMP:
      r_.jumpto = chain;
      return;
    default:
      return;
    }
    r_.jumpto = name;
    PluginEntry t = new_target(name);
    if (t.plugin == nullptr)
      return fail("verdict extension not found");
    r_.target = std::move(t);
  }

  // iptables' ops->parse_target: ebtables-nft lists its log and nflog
  // watchers with the matches.
  void set_target(PluginEntry t, const char *name) {
    if (bridge_ &&
        (std::strcmp(name, "log") == 0 || std::strcmp(name, "nflog") == 0)) {
      t.watcher = true;
      add_parsed(std::move(t));
      return;
    }
    r_.target = std::move(t);
    r_.jumpto = name;
  }

  // A match iptables-nft builds for a native expression (nft_create_match):
  // printed for ip and ip6, never listed for the bridge family.
  void add_created(PluginEntry m) {
    if (!bridge_)
      r_.matches.push_back(std::move(m));
  }

  // A match passed to ops->parse_match. ebtables-nft's list append sets
  // the first entry's successor, so a rule lists its first and its last.
  void add_parsed(PluginEntry m) {
    if (bridge_ && r_.matches.size() >= 2)
      r_.matches[1] = std::move(m);
    else
      r_.matches.push_back(std::move(m));
  }

  void match(const ExprReader &e) {
    std::string name(e.string(NFTA_MATCH_NAME));
    auto rev = static_cast<uint8_t>(e.u32(NFTA_MATCH_REV));
    xtables_match *p = match_plugin(name, rev);
    if (p == nullptr)
      return fail("match extension not found");
    uint32_t len;
    const uint8_t *info = e.bytes(NFTA_MATCH_INFO, len);
    add_parsed(compat_entry(p, p->name, rev, info, len, false));
  }

  void target(const ExprReader &e) {
    std::string name(e.string(NFTA_TARGET_NAME));
    auto rev = static_cast<uint8_t>(e.u32(NFTA_TARGET_REV));
    xtables_target *p = target_plugin(name, rev);
    if (p == nullptr)
      return fail("target extension not found");
    uint32_t len;
    const uint8_t *info = e.bytes(NFTA_TARGET_INFO, len);
    set_target(compat_entry(p, p->name, rev, info, len, true), p->name);
  }

  void limit(const ExprReader &e) {
    PluginEntry m = new_match("limit");
    if (m.plugin == nullptr)
      return fail("limit match extension not found");
    auto *info = reinterpret_cast<xt_rateinfo *>(m.data());
    const uint64_t rate = e.u64(NFTA_LIMIT_RATE);
    const uint64_t unit = e.u64(NFTA_LIMIT_UNIT);
    info->avg =
        rate != 0 ? static_cast<uint32_t>(XT_LIMIT_SCALE * unit / rate) : 0;
    info->burst = e.u32(NFTA_LIMIT_BURST);
    add_parsed(std::move(m));
  }

  // nft's log with a group: NFLOG, with room for nft's longer prefix.
  void log(const ExprReader &e) {
    struct NflogInfo {
      uint32_t len;
      uint16_t group, threshold, flags, pad;
      char prefix[128];
    } info{};
    if (const nlattr *a = e.attr(NFTA_LOG_GROUP))
      info.group = ntohs(mnl_attr_get_u16(a));
    if (const nlattr *a = e.attr(NFTA_LOG_QTHRESHOLD))
      info.threshold = ntohs(mnl_attr_get_u16(a));
    if (e.has(NFTA_LOG_SNAPLEN)) {
      info.len = e.u32(NFTA_LOG_SNAPLEN);
      info.flags = XT_NFLOG_F_COPY_LEN;
    }
    if (e.has(NFTA_LOG_PREFIX)) {
      std::string_view p = e.string(NFTA_LOG_PREFIX);
      std::memcpy(info.prefix, p.data(),
                  std::min(p.size(), sizeof(info.prefix) - 1));
    }
    xtables_target *p = target_plugin("NFLOG", -1);
    if (p == nullptr)
      return fail("NFLOG target extension not found");
    PluginEntry t;
    t.plugin = p;
    t.entry.assign(PluginEntry::header_size() + XT_ALIGN(sizeof(NflogInfo)), 0);
    auto *h = reinterpret_cast<xt_entry_target *>(t.entry.data());
    h->u.target_size = static_cast<uint16_t>(t.entry.size());
    std::strncpy(h->u.user.name, p->name, sizeof(h->u.user.name) - 1);
    h->u.user.revision = p->revision;
    std::memcpy(t.data(), &info, sizeof(info));
    set_target(std::move(t), p->name);
  }

  static uint16_t be16(const uint8_t *d) {
    return static_cast<uint16_t>(d[0] << 8 | d[1]);
  }
  // libnftnl's nftnl_expr_get_u8 / _u32 of the compared data: raw bytes
  // when the length is exactly right, else 0.
  static uint8_t cmp_u8(const ExprReader &e) {
    uint32_t len;
    const uint8_t *d = e.data(NFTA_CMP_DATA, len);
    return len == 1 ? d[0] : 0;
  }
  static uint32_t cmp_u32(const ExprReader &e) {
    uint32_t len, v = 0;
    const uint8_t *d = e.data(NFTA_CMP_DATA, len);
    if (len == 4)
      std::memcpy(&v, d, 4);
    return v;
  }

  void bridge_meta(const Reg &reg, const ExprReader &e);
  void bridge_payload(const Reg &reg, const ExprReader &e);
  void among(const ExprReader &e);

  SavedRule &r_;
  Family family_;
  bool bridge_;
  const SetResolver *sets_;
  Regs regs_{r_.errors};
  int tcpudp_ = -1;
};

// The comment iptables-nft keeps in the rule's user data (type 0, a
// NUL-terminated string), read as libnftnl's udata parser reads it.
void Decoder::comment(const nlattr *udata) {
  if (bridge_) // listed in cs->matches, which ebtables-nft does not print
    return;
  std::string text;
  if (!parse_comment(udata, text))
    return;
  PluginEntry m = new_match("comment");
  if (m.plugin == nullptr)
    return;
  auto *p = static_cast<xtables_match *>(m.plugin);
  // iptables builds this one by hand: revision 0, no init.
  std::fill(m.entry.begin() + PluginEntry::header_size(), m.entry.end(), 0);
  std::strncpy(reinterpret_cast<char *>(m.data()), text.c_str(), p->size - 1);
  reinterpret_cast<xt_entry_match *>(m.entry.data())->u.user.revision = 0;
  r_.matches.push_back(std::move(m));
}

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

  struct Side {
    size_t cnt;
    bool inv, ip;
  };
  struct AmongData {
    Side src, dst;
  };
  constexpr size_t kPair = 12; // struct nft_among_pair
  PluginEntry *m = nullptr;
  for (auto &x : r_.matches)
    if (!x.watcher && x.plugin != nullptr &&
        std::strcmp(static_cast<xtables_match *>(x.plugin)->name, "among") == 0)
      m = &x;
  const size_t hdr = PluginEntry::header_size();
  // A match entry's size is 16 bits wide: a set announcing more pairs than
  // that can hold is no set ebtables-nft wrote (and would be a huge
  // allocation).
  const size_t before =
      m != nullptr ? reinterpret_cast<AmongData *>(m->data())->src.cnt +
                         reinterpret_cast<AmongData *>(m->data())->dst.cnt
                   : 0;
  if ((cnt + before) * kPair + hdr + sizeof(AmongData) > UINT16_MAX)
    return fail("ebtables among pair parsing failed");
  if (m != nullptr) {
    auto *old = reinterpret_cast<AmongData *>(m->data());
    size_t size =
        (cnt + old->src.cnt + old->dst.cnt) * kPair + hdr + sizeof(AmongData);
    m->entry.resize(size, 0);
  } else {
    PluginEntry n = new_match("among");
    if (n.plugin == nullptr)
      return;
    n.entry.assign(hdr + sizeof(AmongData) + cnt * kPair, 0);
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
  auto *data = reinterpret_cast<AmongData *>(m->data());
  uint8_t *pairs = m->data() + sizeof(AmongData);
  size_t poff;
  if (is_dst) {
    data->dst = {cnt, inv, have_ip};
    poff = data->src.cnt;
  } else {
    data->src = {cnt, inv, have_ip};
    poff = 0;
    std::memmove(pairs + cnt * kPair, pairs, data->dst.cnt * kPair);
  }
  uint8_t *out = pairs + poff * kPair;
  size_t n = 0;
  for (const auto &key : set->keys) {
    if (key.size() > kPair)
      return fail("BUG: overlong set elem");
    if (n >= cnt)
      return fail("ebtables among pair parsing failed");
    uint8_t pair[kPair] = {};
    std::memcpy(pair, key.data(), key.size());
    size_t i = 0;
    while (i < n && std::memcmp(pair, out + i * kPair, kPair) >= 0)
      ++i;
    std::memmove(out + (i + 1) * kPair, out + i * kPair, (n - i) * kPair);
    std::memcpy(out + i * kPair, pair, kPair);
    ++n;
  }
}

} // namespace

bool rule_compatible(const nlattr *expressions) {
  bool ok = true;
  nft::each_nested(expressions, [&](const nlattr *elem) {
    if (ok)
      ok = expr_compatible(ExprReader(elem));
  });
  return ok;
}

SavedRule decode_rule(const nlattr *expressions, const nlattr *userdata,
                      Family family, const SetResolver *sets) {
  SavedRule r;
  Decoder d(r, family, sets);
  if (expressions != nullptr)
    nft::each_nested(expressions, [&](const nlattr *elem) {
      if (r.compatible)
        d.expr(ExprReader(elem));
    });
  if (!r.compatible)
    return r;
  if (userdata != nullptr)
    d.comment(userdata);
  return r;
}

} // namespace fastrestore::save
