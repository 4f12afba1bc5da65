// IR rule -> ipt_entry / ip6t_entry, laid out as iptables-legacy builds it:
// the entry, each match (xt_entry_match header and the plugin's payload),
// then the target (an extension, or the standard target naming a verdict
// or a chain, which libiptc resolves).
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

// libip6tc.h declares its functions without C linkage.
extern "C" {
#include <libiptc/libip6tc.h>
}
#include <libiptc/libiptc.h>
#include <xtables.h>

#include <linux/netfilter/xt_tcpudp.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "fastrestore/xt_lookup.h"
#include "legacy/legacy.h"
#include "print/target_name.h"

namespace fastrestore::legacy {
namespace {

// The interface name as given (a trailing '+' stays) and its mask: the
// name's bytes, plus the terminating NUL unless it ends in '+'.
void iface(std::string_view name, char *via, unsigned char *mask) {
  std::memset(via, 0, IFNAMSIZ);
  std::memset(mask, 0, IFNAMSIZ);
  if (name.empty())
    return;
  size_t len = std::min<size_t>(name.size(), IFNAMSIZ - 1);
  std::memcpy(via, name.data(), len);
  if (name.back() == '+')
    std::memset(mask, 0xff, len - 1);
  else
    std::memset(mask, 0xff, std::min<size_t>(len + 1, IFNAMSIZ));
}

size_t owned(bool target, const std::string &name, size_t len) {
  return owned_payload(target, name.c_str(), -1, len);
}

// The addresses, interfaces and protocol of a Rule or a BasicAppend.
template <class R> void fill_ip(ipt_entry &e, const R &r, uint8_t invflags) {
  std::memcpy(&e.ip.src, r.src.data(), 4);
  std::memcpy(&e.ip.dst, r.dst.data(), 4);
  std::memcpy(&e.ip.smsk, r.smsk.data(), 4);
  std::memcpy(&e.ip.dmsk, r.dmsk.data(), 4);
  iface(r.iniface, e.ip.iniface, e.ip.iniface_mask);
  iface(r.outiface, e.ip.outiface, e.ip.outiface_mask);
  e.ip.proto = r.proto;
  e.ip.invflags = invflags;
}

template <class R> void fill_ip(ip6t_entry &e, const R &r, uint8_t invflags) {
  std::memcpy(&e.ipv6.src, r.src.data(), 16);
  std::memcpy(&e.ipv6.dst, r.dst.data(), 16);
  std::memcpy(&e.ipv6.smsk, r.smsk.data(), 16);
  std::memcpy(&e.ipv6.dmsk, r.dmsk.data(), 16);
  iface(r.iniface, e.ipv6.iniface, e.ipv6.iniface_mask);
  iface(r.outiface, e.ipv6.outiface, e.ipv6.outiface_mask);
  e.ipv6.proto = r.proto;
  e.ipv6.invflags = invflags;
  if (r.proto_set)
    e.ipv6.flags |= IP6T_F_PROTO;
}

void fill_flags(ipt_entry &e, const Rule &r) {
  if (r.frag)
    e.ip.flags |= IPT_F_FRAG;
  if (r.verdict == Verdict::go)
    e.ip.flags |= IPT_F_GOTO;
}

void fill_flags(ip6t_entry &e, const Rule &r) {
  if (r.verdict == Verdict::go)
    e.ipv6.flags |= IP6T_F_GOTO;
}

template <class Entry>
std::vector<unsigned char> build(const Rule &r,
                                 std::vector<unsigned char> *mask) {
  const size_t mhdr = XT_ALIGN(sizeof(xt_entry_match));
  const size_t thdr = XT_ALIGN(sizeof(xt_entry_target));
  size_t size = sizeof(Entry);
  for (const auto &m : r.matches)
    size += mhdr + XT_ALIGN(m.data.size());
  // The target: an extension's payload, or the standard target's verdict.
  const bool ext = r.verdict == Verdict::target;
  const std::string tname = target_name(r);
  const size_t tdata =
      ext ? XT_ALIGN(r.target->data.size()) : XT_ALIGN(sizeof(int));
  const size_t target_offset = size;
  size += thdr + tdata;

  std::vector<unsigned char> buf(size, 0);
  auto &e = *reinterpret_cast<Entry *>(buf.data());
  uint8_t invflags = 0;
  if (r.inv_iniface)
    invflags |= IPT_INV_VIA_IN;
  if (r.inv_outiface)
    invflags |= IPT_INV_VIA_OUT;
  if (r.inv_src)
    invflags |= IPT_INV_SRCIP;
  if (r.inv_dst)
    invflags |= IPT_INV_DSTIP;
  if (r.inv_frag)
    invflags |= IPT_INV_FRAG;
  if (r.inv_proto)
    invflags |= XT_INV_PROTO;
  fill_ip(e, r, invflags);
  fill_flags(e, r);
  e.target_offset = static_cast<uint16_t>(target_offset);
  e.next_offset = static_cast<uint16_t>(size);
  e.counters.pcnt = r.packets;
  e.counters.bcnt = r.bytes;

  if (mask != nullptr) {
    mask->assign(size, 0);
    std::memset(mask->data(), 0xff, sizeof(Entry));
  }
  size_t off = sizeof(Entry);
  for (const auto &m : r.matches) {
    auto *em = reinterpret_cast<xt_entry_match *>(buf.data() + off);
    em->u.match_size = static_cast<uint16_t>(mhdr + XT_ALIGN(m.data.size()));
    std::strncpy(em->u.user.name, m.name.c_str(), sizeof(em->u.user.name) - 1);
    em->u.user.revision = m.revision;
    if (!m.data.empty())
      std::memcpy(buf.data() + off + mhdr, m.data.data(), m.data.size());
    if (mask != nullptr)
      std::memset(mask->data() + off, 0xff,
                  mhdr + owned(false, m.name, m.data.size()));
    off += em->u.match_size;
  }
  auto *et = reinterpret_cast<xt_entry_target *>(buf.data() + off);
  et->u.target_size = static_cast<uint16_t>(thdr + tdata);
  std::strncpy(et->u.user.name, tname.c_str(), sizeof(et->u.user.name) - 1);
  if (ext) {
    et->u.user.revision = r.target->revision;
    if (!r.target->data.empty()) // TRACE has no data (and no pointer)
      std::memcpy(buf.data() + off + thdr, r.target->data.data(),
                  r.target->data.size());
  }
  if (mask != nullptr)
    std::memset(
        mask->data() + off, 0xff,
        thdr + (ext ? owned(true, tname, r.target->data.size()) : sizeof(int)));
  return buf;
}

constexpr size_t kMatchHead = XT_ALIGN(sizeof(xt_entry_match));
constexpr size_t kTargetHead = XT_ALIGN(sizeof(xt_entry_target));
constexpr size_t kStandardTarget = kTargetHead + XT_ALIGN(sizeof(int));

size_t port_data(const BasicAppend &a) {
  return XT_ALIGN(a.proto == IPPROTO_TCP ? sizeof(xt_tcp) : sizeof(xt_udp));
}

template <class Entry> size_t basic_size(const BasicAppend &a) {
  return sizeof(Entry) + (a.port_match ? kMatchHead + port_data(a) : 0) +
         kStandardTarget;
}

// What build() makes of to_command(a)'s rule, without the Rule.
template <class Entry>
size_t build_basic(const BasicAppend &a, unsigned char *out) {
  const size_t size = basic_size<Entry>(a);
  std::memset(out, 0, size);
  auto &e = *reinterpret_cast<Entry *>(out);
  fill_ip(e, a, 0);
  e.target_offset = static_cast<uint16_t>(size - kStandardTarget);
  e.next_offset = static_cast<uint16_t>(size);
  e.counters.pcnt = a.packets;
  e.counters.bcnt = a.bytes;
  if (a.port_match) {
    auto *em = reinterpret_cast<xt_entry_match *>(out + sizeof(Entry));
    em->u.match_size = static_cast<uint16_t>(kMatchHead + port_data(a));
    unsigned char *data = out + sizeof(Entry) + kMatchHead;
    if (a.proto == IPPROTO_TCP) {
      std::strcpy(em->u.user.name, "tcp");
      auto *t = reinterpret_cast<xt_tcp *>(data);
      std::memcpy(t->spts, a.spts, sizeof(t->spts));
      std::memcpy(t->dpts, a.dpts, sizeof(t->dpts));
    } else {
      std::strcpy(em->u.user.name, "udp");
      auto *u = reinterpret_cast<xt_udp *>(data);
      std::memcpy(u->spts, a.spts, sizeof(u->spts));
      std::memcpy(u->dpts, a.dpts, sizeof(u->dpts));
    }
  }
  auto *et = reinterpret_cast<xt_entry_target *>(out + e.target_offset);
  et->u.target_size = static_cast<uint16_t>(kStandardTarget);
  std::string_view name = a.verdict == Verdict::accept ? "ACCEPT"
                          : a.verdict == Verdict::drop ? "DROP"
                          : a.verdict == Verdict::ret  ? "RETURN"
                          : a.verdict == Verdict::jump ? a.jump_chain
                                                       : std::string_view();
  if (!name.empty()) // no -j: no name (and maybe no pointer)
    std::memcpy(et->u.user.name, name.data(),
                std::min(name.size(), sizeof(et->u.user.name) - 1));
  return size;
}

} // namespace

size_t basic_entry_size(const BasicAppend &a, Family family) {
  return family == Family::ipv4 ? basic_size<ipt_entry>(a)
                                : basic_size<ip6t_entry>(a);
}

size_t build_basic_entry(const BasicAppend &a, Family family,
                         unsigned char *out) {
  return family == Family::ipv4 ? build_basic<ipt_entry>(a, out)
                                : build_basic<ip6t_entry>(a, out);
}

std::vector<unsigned char> build_entry(const Rule &rule, Family family,
                                       std::vector<unsigned char> *mask) {
  return family == Family::ipv4 ? build<ipt_entry>(rule, mask)
                                : build<ip6t_entry>(rule, mask);
}

} // namespace fastrestore::legacy
