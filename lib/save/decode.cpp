// nf_tables rule -> SavedRule, as iptables-nft 1.8.9 and ebtables-nft read
// rules back. Each function mirrors its namesake in iptables 1.8.9
// (nft-shared.c, nft-ipv4.c, nft-ipv6.c, nft-bridge.c), including what that
// code leaves unread or gets wrong, so that the printed rule is the one
// iptables-nft-save prints. This file: the expression dispatch, the
// registers, meta, cmp, immediate, matches and targets, limit and log.
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

#include "decoder.h"
#include "ext/ext.h"

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

} // namespace

void Decoder::expr(const ExprReader &e) {
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

void Decoder::payload(const ExprReader &e) {
  Reg *reg = regs_.dreg(e.u32(NFTA_PAYLOAD_DREG));
  if (reg == nullptr)
    return;
  reg->type = Reg::payload;
  reg->base = e.u32(NFTA_PAYLOAD_BASE);
  reg->offset = e.u32(NFTA_PAYLOAD_OFFSET);
  reg->len = e.u32(NFTA_PAYLOAD_LEN);
}

void Decoder::meta(const ExprReader &e) {
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
void Decoder::meta_set(const ExprReader &e) {
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

void Decoder::cmp(const ExprReader &e) {
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

bool Decoder::generic_meta(const Reg &reg, const ExprReader &e) {
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
    raise_match_mark(cmp_u32(e), reg_mask(e.u32(NFTA_CMP_SREG)), neq(e),
                     m.data());
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

uint32_t Decoder::reg_mask(uint32_t regnum) {
  Reg *reg = regs_.sreg(regnum);
  if (reg != nullptr && reg->bw_set) {
    uint32_t m;
    std::memcpy(&m, reg->mask, 4);
    return m;
  }
  return ~0u;
}

void Decoder::parse_ifname(const uint8_t *name, uint32_t len, char *dst,
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
void Decoder::parse_invalid_iface(char *iface, unsigned char *mask,
                                  uint8_t bit) {
  if ((r_.invflags & bit) || std::strcmp(iface, "INVAL/D") != 0)
    return;
  r_.invflags |= bit;
  iface[0] = '+';
  iface[1] = '\0';
  mask[0] = 0xff;
  mask[1] = 0xff;
  std::memset(mask + 2, 0, IFNAMSIZ - 2);
}

void Decoder::immediate(const ExprReader &e) {
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
void Decoder::set_target(PluginEntry t, const char *name) {
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
void Decoder::add_created(PluginEntry m) {
  if (!bridge_)
    r_.matches.push_back(std::move(m));
}

// A match passed to ops->parse_match. ebtables-nft's list append sets
// the first entry's successor, so a rule lists its first and its last.
void Decoder::add_parsed(PluginEntry m) {
  if (bridge_ && r_.matches.size() >= 2)
    r_.matches[1] = std::move(m);
  else
    r_.matches.push_back(std::move(m));
}

void Decoder::match(const ExprReader &e) {
  std::string name(e.string(NFTA_MATCH_NAME));
  auto rev = static_cast<uint8_t>(e.u32(NFTA_MATCH_REV));
  xtables_match *p = match_plugin(name, rev);
  if (p == nullptr)
    return fail("match extension not found");
  uint32_t len;
  const uint8_t *info = e.bytes(NFTA_MATCH_INFO, len);
  add_parsed(compat_entry(p, p->name, rev, info, len, false));
}

void Decoder::target(const ExprReader &e) {
  std::string name(e.string(NFTA_TARGET_NAME));
  auto rev = static_cast<uint8_t>(e.u32(NFTA_TARGET_REV));
  xtables_target *p = target_plugin(name, rev);
  if (p == nullptr)
    return fail("target extension not found");
  uint32_t len;
  const uint8_t *info = e.bytes(NFTA_TARGET_INFO, len);
  set_target(compat_entry(p, p->name, rev, info, len, true), p->name);
}

void Decoder::limit(const ExprReader &e) {
  PluginEntry m = new_match("limit");
  if (m.plugin == nullptr)
    return fail("limit match extension not found");
  raise_match_limit(e.u64(NFTA_LIMIT_RATE), e.u64(NFTA_LIMIT_UNIT),
                    e.u32(NFTA_LIMIT_BURST), m.data());
  add_parsed(std::move(m));
}

// nft's log with a group: NFLOG, with room for nft's longer prefix.
void Decoder::log(const ExprReader &e) {
  uint16_t group = 0, threshold = 0;
  if (const nlattr *a = e.attr(NFTA_LOG_GROUP))
    group = ntohs(mnl_attr_get_u16(a));
  if (const nlattr *a = e.attr(NFTA_LOG_QTHRESHOLD))
    threshold = ntohs(mnl_attr_get_u16(a));
  const uint32_t snaplen = e.u32(NFTA_LOG_SNAPLEN);
  const std::vector<unsigned char> info = raise_target_nflog(
      group, threshold, e.has(NFTA_LOG_SNAPLEN) ? &snaplen : nullptr,
      e.string(NFTA_LOG_PREFIX));
  xtables_target *p = target_plugin("NFLOG", -1);
  if (p == nullptr)
    return fail("NFLOG target extension not found");
  PluginEntry t;
  t.plugin = p;
  t.entry.assign(PluginEntry::header_size() + XT_ALIGN(info.size()), 0);
  auto *h = reinterpret_cast<xt_entry_target *>(t.entry.data());
  h->u.target_size = static_cast<uint16_t>(t.entry.size());
  std::strncpy(h->u.user.name, p->name, sizeof(h->u.user.name) - 1);
  h->u.user.revision = p->revision;
  std::memcpy(t.data(), info.data(), info.size());
  set_target(std::move(t), p->name);
}

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
