#include "nft/nft_rule.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cstdio> // libnftnl headers need FILE
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <endian.h>
#include <linux/if_ether.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "check/bridge_policy.h"
#include "ext/ext.h"

namespace fastrestore::nft {
namespace {

void iface(ExprWriter &w, uint32_t key, const std::string &name, bool invert) {
  uint32_t op = invert ? NFT_CMP_NEQ : NFT_CMP_EQ;
  w.meta_load(key);
  if (!name.empty() && name.back() == '+') {
    if (name.size() > 1)
      w.cmp(op, name.data(), static_cast<uint32_t>(name.size() - 1));
    else if (op != NFT_CMP_EQ)
      w.cmp(NFT_CMP_EQ, "INVAL/D", sizeof("INVAL/D"));
  } else {
    w.cmp(op, name.c_str(), static_cast<uint32_t>(name.size() + 1));
  }
}

// A prefix of whole bytes loads only those bytes; any other mask loads the
// whole address and masks it.
void addr(ExprWriter &w, uint32_t base, uint32_t offset, const uint8_t *a,
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
  w.payload(base, offset, len);
  if (bitwise)
    w.bitwise(mask, len);
  w.cmp(invert ? NFT_CMP_NEQ : NFT_CMP_EQ, a, len);
}

// ebtables-nft's bridge rule: interfaces, bridge ports, MAC addresses,
// the ethertype, matches and watchers in rule order, the counter, the
// verdict or target; the ethertype also as NFTA_RULE_COMPAT.
// The verdict of a rule without an extension target (none: no expression).
void verdict(ExprWriter &w, const Rule &r) {
  switch (r.verdict) {
  case Verdict::accept:
    w.verdict(NF_ACCEPT);
    break;
  case Verdict::drop:
    w.verdict(NF_DROP);
    break;
  case Verdict::ret:
    w.verdict(NFT_RETURN);
    break;
  case Verdict::jump:
    w.verdict(NFT_JUMP, &r.jump_chain);
    break;
  case Verdict::go:
    w.verdict(NFT_GOTO, &r.jump_chain);
    break;
  case Verdict::none:
  case Verdict::target:
    break;
  }
}

void encode_bridge(ExprWriter &w, const Rule &r,
                   const std::vector<uint32_t> *set_ids) {
  const EbFields &eb = r.eb;
  auto op = [&](uint32_t bit) {
    return (eb.invflags & bit) ? NFT_CMP_NEQ : NFT_CMP_EQ;
  };
  if (!r.iniface.empty())
    iface(w, NFT_META_IIFNAME, r.iniface, eb.invflags & EBT_IIN);
  if (!r.outiface.empty())
    iface(w, NFT_META_OIFNAME, r.outiface, eb.invflags & EBT_IOUT);
  auto logical = [&](uint32_t key, const std::string &name, uint32_t bit) {
    w.meta_load(key);
    const bool wild = name.back() == '+';
    w.cmp(op(bit), name.data(),
          static_cast<uint32_t>(wild ? name.size() - 1 : name.size() + 1));
  };
  if (!eb.logical_in.empty())
    logical(NFT_META_BRI_IIFNAME, eb.logical_in, EBT_ILOGICALIN);
  if (!eb.logical_out.empty())
    logical(NFT_META_BRI_OIFNAME, eb.logical_out, EBT_ILOGICALOUT);
  if (eb.bitmask & EBT_SOURCEMAC)
    addr(w, NFT_PAYLOAD_LL_HEADER, offsetof(ethhdr, h_source), eb.smac.data(),
         eb.smsk.data(), ETH_ALEN, eb.invflags & EBT_ISOURCE);
  if (eb.bitmask & EBT_DESTMAC)
    addr(w, NFT_PAYLOAD_LL_HEADER, offsetof(ethhdr, h_dest), eb.dmac.data(),
         eb.dmsk.data(), ETH_ALEN, eb.invflags & EBT_IDEST);
  if (!(eb.bitmask & EBT_NOPROTO)) {
    uint32_t cmp = op(EBT_IPROTO);
    uint16_t proto = eb.ethproto;
    w.payload(NFT_PAYLOAD_LL_HEADER, offsetof(ethhdr, h_proto), 2);
    if (eb.bitmask & EBT_802_3) {
      cmp = cmp == NFT_CMP_EQ ? NFT_CMP_LT : NFT_CMP_GTE;
      proto = htons(0x0600);
    }
    w.cmp(cmp, &proto, 2);
  }
  size_t next_set = 0;
  LowerCtx ctx{w, Family::bridge, 0, r.loc, eb.bitmask, set_ids, &next_set};
  for (const auto &m : r.matches) {
    if (m.watcher) // a target listed with the matches: compat
      w.xt(true, m.name, m.revision, m.data.data(), m.data.size());
    else
      lower_match(m, ctx);
  }
  w.counter(r.packets, r.bytes);
  if (r.verdict == Verdict::target) // no native target for the bridge
    lower_target(*r.target, ctx);
  else
    verdict(w, r);
}

bool all_zero(const std::array<uint8_t, 16> &a, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (a[i])
      return false;
  return true;
}

// iptables-nft's rule in the ip and ip6 families: interfaces, protocol,
// addresses, fragment test, matches, the counter, the verdict or target.
void encode_inet(ExprWriter &w, const Rule &rule, Family family) {
  const bool v4 = family == Family::ipv4;
  if (!rule.iniface.empty())
    iface(w, NFT_META_IIFNAME, rule.iniface, rule.inv_iniface);
  if (!rule.outiface.empty())
    iface(w, NFT_META_OIFNAME, rule.outiface, rule.inv_outiface);
  if (rule.proto != 0) {
    w.meta_load(NFT_META_L4PROTO);
    w.cmp(rule.inv_proto ? NFT_CMP_NEQ : NFT_CMP_EQ, &rule.proto, 1);
  }
  const uint32_t alen = v4 ? 4 : 16;
  const uint32_t soff =
      v4 ? offsetof(iphdr, saddr) : offsetof(ip6_hdr, ip6_src);
  const uint32_t doff =
      v4 ? offsetof(iphdr, daddr) : offsetof(ip6_hdr, ip6_dst);
  if (!all_zero(rule.src, alen) || !all_zero(rule.smsk, alen) || rule.inv_src)
    addr(w, NFT_PAYLOAD_NETWORK_HEADER, soff, rule.src.data(), rule.smsk.data(),
         alen, rule.inv_src);
  if (!all_zero(rule.dst, alen) || !all_zero(rule.dmsk, alen) || rule.inv_dst)
    addr(w, NFT_PAYLOAD_NETWORK_HEADER, doff, rule.dst.data(), rule.dmsk.data(),
         alen, rule.inv_dst);
  if (v4 && rule.frag) {
    uint16_t mask = htons(0x1fff), zero = 0;
    w.payload(NFT_PAYLOAD_NETWORK_HEADER, offsetof(iphdr, frag_off), 2);
    w.bitwise(&mask, 2);
    w.cmp(rule.inv_frag ? NFT_CMP_EQ : NFT_CMP_NEQ, &zero, 2);
  }

  LowerCtx ctx{w, family, rule.proto, rule.loc};
  for (const auto &m : rule.matches)
    lower_match(m, ctx);
  w.counter(rule.packets, rule.bytes);
  if (rule.verdict == Verdict::target)
    lower_target(*rule.target, ctx);
  else
    verdict(w, rule);
}

} // namespace

void encode_rule(nlmsghdr *nlh, const Rule &rule, Family family,
                 const std::string &table, const std::string &chain,
                 const Placement &where, const std::vector<uint32_t> *set_ids) {
  mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, table.c_str());
  mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, chain.c_str());
  if (where.handle)
    mnl_attr_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(where.handle));
  if (where.position)
    mnl_attr_put_u64(nlh, NFTA_RULE_POSITION, htobe64(where.position));
  nlattr *exprs = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
  ExprWriter w(nlh);
  // The protocol compat expressions are checked against: the layer 4
  // protocol, or for the bridge family the ethertype (network order).
  uint32_t proto;
  bool inv;
  if (family == Family::bridge) {
    encode_bridge(w, rule, set_ids);
    proto = rule.eb.ethproto;
    inv = rule.eb.invflags & EBT_IPROTO;
  } else {
    encode_inet(w, rule, family);
    proto = rule.proto;
    inv = rule.inv_proto;
  }
  mnl_attr_nest_end(nlh, exprs);
  if (family == Family::bridge && rule.eb.policy_rule) {
    mnl_attr_put(nlh, NFTA_RULE_USERDATA, sizeof(kEbPolicyUserData),
                 kEbPolicyUserData);
  }
  nlattr *compat = mnl_attr_nest_start(nlh, NFTA_RULE_COMPAT);
  mnl_attr_put_u32(nlh, NFTA_RULE_COMPAT_PROTO, htonl(proto));
  mnl_attr_put_u32(nlh, NFTA_RULE_COMPAT_FLAGS,
                   htonl(inv ? NFT_RULE_COMPAT_F_INV : 0));
  mnl_attr_nest_end(nlh, compat);
  if (where.id)
    mnl_attr_put_u32(nlh, NFTA_RULE_ID, htonl(where.id));
  if (where.position_id)
    mnl_attr_put_u32(nlh, NFTA_RULE_POSITION_ID, htonl(where.position_id));
}

uint8_t nfproto_of(Family family) {
  switch (family) {
  case Family::ipv4:
    return NFPROTO_IPV4;
  case Family::ipv6:
    return NFPROTO_IPV6;
  default:
    return NFPROTO_BRIDGE;
  }
}

std::string rule_message(const Rule &rule, Family family,
                         const std::string &table, const std::string &chain) {
  // Reused: an identity is computed per rule compared, and a fresh
  // zero-filled buffer each time would cost more than the encoding. What
  // the last message wrote is zeroed again: libmnl leaves an attribute's
  // padding as the memory was, and a rule's key by its message's bytes
  // (a journal record's) hashes the padding inside its expressions.
  // (A mapping of its own: the kernel's pages are zero already, and a
  // page is only backed once a message reaches it, so a single command
  // touches one, not the buffer's 256. From the heap, calloc clears all
  // of it where the restore's heap keeps such blocks: process_heap.h.)
  constexpr size_t kSize = 1 << 20;
  struct Unmap {
    void operator()(char *p) const { munmap(p, kSize); }
  };
  static thread_local std::unique_ptr<char, Unmap> buf([] {
    void *p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw std::bad_alloc();
    return static_cast<char *>(p);
  }());
  static thread_local size_t written = 0;
  std::memset(buf.get(), 0, written);
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(buf.get(), NFT_MSG_NEWRULE, nfproto_of(family),
                            NLM_F_CREATE | NLM_F_APPEND, 0);
  encode_rule(nlh, rule, family, table, chain);
  // (The most any message wrote: a nest cancelled leaves bytes past its
  // end.)
  written = std::max<size_t>(written, nlh->nlmsg_len);
  return std::string(buf.get(), nlh->nlmsg_len);
}

} // namespace fastrestore::nft
