#include "fastrestore/nft_rule.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <sys/socket.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstring>
#include <new>

#include "fastrestore/ext.h"
#include "fastrestore/nft_expr.h"

namespace fastrestore::nft {
namespace {

void add_iface(nftnl_rule *r, uint32_t key, const std::string &name,
               bool invert) {
  uint32_t op = invert ? NFT_CMP_NEQ : NFT_CMP_EQ;
  add_meta(r, key);
  if (!name.empty() && name.back() == '+') {
    if (name.size() > 1)
      add_cmp(r, op, name.data(), static_cast<uint32_t>(name.size() - 1));
    else if (op != NFT_CMP_EQ)
      add_cmp(r, NFT_CMP_EQ, "INVAL/D", sizeof("INVAL/D"));
  } else {
    add_cmp(r, op, name.c_str(), static_cast<uint32_t>(name.size() + 1));
  }
}

// Address compare: a prefix of whole bytes loads only those bytes; any other
// mask loads the whole address and masks it.
void add_addr(nftnl_rule *r, uint32_t offset, const uint8_t *addr,
              const uint8_t *mask, uint32_t len, bool invert) {
  bool bitwise = false;
  uint32_t i = 0;
  for (; i < len; ++i) {
    if (mask[i] != 0xff) {
      bitwise = mask[i] != 0;
      break;
    }
  }
  for (uint32_t j = i + 1; !bitwise && j < len; ++j)
    bitwise = mask[j] != 0;
  if (!bitwise)
    len = i;
  add_payload(r, NFT_PAYLOAD_NETWORK_HEADER, offset, len);
  if (bitwise)
    add_bitwise(r, mask, len);
  add_cmp(r, invert ? NFT_CMP_NEQ : NFT_CMP_EQ, addr, len);
}

bool all_zero(const std::array<uint8_t, 16> &a, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (a[i])
      return false;
  return true;
}

} // namespace

RulePtr lower_rule(const Rule &rule, Family family, const std::string &table,
                   const std::string &chain) {
  RulePtr owner(nftnl_rule_alloc());
  nftnl_rule *r = owner.get();
  if (r == nullptr)
    throw std::bad_alloc();
  const bool v4 = family == Family::ipv4;
  nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, v4 ? NFPROTO_IPV4 : NFPROTO_IPV6);
  nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain.c_str());

  if (!rule.iniface.empty())
    add_iface(r, NFT_META_IIFNAME, rule.iniface, rule.inv_iniface);
  if (!rule.outiface.empty())
    add_iface(r, NFT_META_OIFNAME, rule.outiface, rule.inv_outiface);
  if (rule.proto != 0) {
    add_meta(r, NFT_META_L4PROTO);
    add_cmp(r, rule.inv_proto ? NFT_CMP_NEQ : NFT_CMP_EQ, &rule.proto, 1);
  }
  const uint32_t alen = v4 ? 4 : 16;
  const uint32_t soff =
      v4 ? offsetof(iphdr, saddr) : offsetof(ip6_hdr, ip6_src);
  const uint32_t doff =
      v4 ? offsetof(iphdr, daddr) : offsetof(ip6_hdr, ip6_dst);
  if (!all_zero(rule.src, alen) || !all_zero(rule.smsk, alen) || rule.inv_src)
    add_addr(r, soff, rule.src.data(), rule.smsk.data(), alen, rule.inv_src);
  if (!all_zero(rule.dst, alen) || !all_zero(rule.dmsk, alen) || rule.inv_dst)
    add_addr(r, doff, rule.dst.data(), rule.dmsk.data(), alen, rule.inv_dst);
  if (v4 && rule.frag) {
    uint16_t mask = htons(0x1fff), zero = 0;
    add_payload(r, NFT_PAYLOAD_NETWORK_HEADER, offsetof(iphdr, frag_off), 2);
    add_bitwise(r, &mask, 2);
    add_cmp(r, rule.inv_frag ? NFT_CMP_EQ : NFT_CMP_NEQ, &zero, 2);
  }
  nftnl_rule_set_u32(r, NFTNL_RULE_COMPAT_PROTO, rule.proto);
  nftnl_rule_set_u32(r, NFTNL_RULE_COMPAT_FLAGS,
                     rule.inv_proto ? NFT_RULE_COMPAT_F_INV : 0);

  LowerCtx ctx{r, family, rule.proto, rule.loc};
  for (const auto &m : rule.matches)
    lower_match(m, ctx);
  add_counter(r, rule.packets, rule.bytes);
  switch (rule.verdict) {
  case Verdict::none:
    break;
  case Verdict::accept:
    add_verdict(r, NF_ACCEPT);
    break;
  case Verdict::drop:
    add_verdict(r, NF_DROP);
    break;
  case Verdict::ret:
    add_verdict(r, NFT_RETURN);
    break;
  case Verdict::jump:
    add_jump(r, NFT_JUMP, rule.jump_chain);
    break;
  case Verdict::go:
    add_jump(r, NFT_GOTO, rule.jump_chain);
    break;
  case Verdict::target:
    lower_target(*rule.target, ctx);
    break;
  }
  return owner;
}

} // namespace fastrestore::nft
