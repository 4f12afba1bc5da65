#include "print/rule_print.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_bridge/ebtables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <xtables.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "fastrestore/xt_lookup.h"
#include "parse/protocols.h"
#include "print/save_print.h"
#include "print/target_name.h"
#include "xtables/plugin_entry.h"

namespace fastrestore {
namespace {

// The entry a plugin's print function takes for a rule's match or target.
PluginEntry entry(void *plugin, const XtBlob &b, bool target) {
  return compat_entry(plugin, b.name, b.revision, b.data.data(), b.data.size(),
                      target);
}

// A port range [0, hi] inverted is lowered as "greater than hi", which
// nf_tables gives back as [hi + 1, 65535]: print what iptables-nft reads.
void normalise_ports(uint16_t pts[2], uint8_t &invflags, uint8_t inv_bit) {
  if ((invflags & inv_bit) && pts[0] == 0 && pts[1] < 0xffff &&
      pts[0] != pts[1]) {
    pts[0] = static_cast<uint16_t>(pts[1] + 1);
    pts[1] = 0xffff;
    invflags = static_cast<uint8_t>(invflags & ~inv_bit);
  }
}

XtBlob as_read_back(const XtBlob &m) {
  XtBlob b = m;
  if (m.name == "tcp" && m.data.size() >= sizeof(xt_tcp)) {
    auto *t = reinterpret_cast<xt_tcp *>(b.data.data());
    if (!(t->invflags &
          ~(XT_TCP_INV_SRCPT | XT_TCP_INV_DSTPT | XT_TCP_INV_FLAGS)) &&
        !t->option) {
      normalise_ports(t->spts, t->invflags, XT_TCP_INV_SRCPT);
      normalise_ports(t->dpts, t->invflags, XT_TCP_INV_DSTPT);
    }
  } else if (m.name == "udp" && m.data.size() >= sizeof(xt_udp)) {
    auto *u = reinterpret_cast<xt_udp *>(b.data.data());
    if (u->invflags <= XT_UDP_INV_MASK) {
      normalise_ports(u->spts, u->invflags, XT_UDP_INV_SRCPT);
      normalise_ports(u->dpts, u->invflags, XT_UDP_INV_DSTPT);
    }
  }
  return b;
}

std::string address(const Rule &r, bool src, Family family) {
  const bool v4 = family == Family::ipv4;
  const auto &a = src ? r.src : r.dst;
  const auto &m = src ? r.smsk : r.dmsk;
  std::string out;
  if (v4) {
    in_addr addr, mask;
    std::memcpy(&addr, a.data(), 4);
    std::memcpy(&mask, m.data(), 4);
    out = xtables_ipaddr_to_numeric(&addr);
    out += xtables_ipmask_to_numeric(&mask);
  } else {
    in6_addr addr, mask;
    std::memcpy(&addr, a.data(), 16);
    std::memcpy(&mask, m.data(), 16);
    out = xtables_ip6addr_to_numeric(&addr);
    out += xtables_ip6mask_to_numeric(&mask);
  }
  return out;
}

// ebtables-nft's one-line form of a bridge rule (as ebtables-save writes
// it after "-A CHAIN"), printed by the text save's printer from the rule
// turned into the form it reads back from the kernel.
void print_bridge_rule(const Rule &r) {
  save::SavedRule s;
  const EbFields &eb = r.eb;
  s.eb.bitmask = eb.bitmask;
  s.eb.invflags = eb.invflags;
  s.eb.ethproto = eb.ethproto;
  std::strncpy(s.iniface.data(), r.iniface.c_str(), s.iniface.size() - 1);
  std::strncpy(s.outiface.data(), r.outiface.c_str(), s.outiface.size() - 1);
  std::strncpy(s.eb.logical_in.data(), eb.logical_in.c_str(),
               s.eb.logical_in.size() - 1);
  std::strncpy(s.eb.logical_out.data(), eb.logical_out.c_str(),
               s.eb.logical_out.size() - 1);
  s.eb.smac = eb.smac;
  s.eb.smsk = eb.smsk;
  s.eb.dmac = eb.dmac;
  s.eb.dmsk = eb.dmsk;
  for (const auto &m : r.matches) {
    void *plugin = m.watcher ? static_cast<void *>(target_plugin(m.name, -1))
                             : static_cast<void *>(match_plugin(m.name, -1));
    if (plugin == nullptr)
      continue;
    s.matches.push_back(entry(plugin, m, m.watcher));
    s.matches.back().watcher = m.watcher;
  }
  switch (r.verdict) {
  case Verdict::accept:
    s.jumpto = "ACCEPT";
    break;
  case Verdict::drop:
    s.jumpto = "DROP";
    break;
  case Verdict::ret:
    s.jumpto = "RETURN";
    break;
  case Verdict::jump:
  case Verdict::go:
    s.jumpto = r.jump_chain;
    break;
  case Verdict::none:
    break; // printed as CONTINUE
  case Verdict::target: {
    s.jumpto = r.target->name;
    if (xtables_target *t = target_plugin(r.target->name, -1))
      s.target = entry(t, *r.target, true);
    break;
  }
  }
  save::BridgeFormat f;
  f.numeric = true;
  save::print_bridge_body(s, f);
  fflush(stdout);
}

} // namespace

void print_rule_verbose(const Rule &r, Family family, bool legacy) {
  if (family == Family::bridge) {
    print_bridge_rule(r);
    return;
  }
  const bool v4 = family == Family::ipv4;
  const std::string target = target_name(r);
  printf("%s ", target.c_str());
  fputc(r.inv_proto ? '!' : ' ', stdout);
  const char *pname = builtin_protocol_name(r.proto);
  if (pname != nullptr)
    printf("%s ", pname);
  else
    printf("%hu ", static_cast<unsigned short>(r.proto));
  fputs("opt ", stdout);
  if (v4) {
    fputc(r.inv_frag ? '!' : '-', stdout);
    fputc(r.frag ? 'f' : '-', stdout);
  } else {
    fputs("--", stdout);
  }
  fputc(' ', stdout);
  // iptables-nft prints the rule as nf_tables gives it back: "-i +"
  // matches every interface and leaves no expression, so it reads "*".
  // iptables-legacy prints the name it stored.
  auto via = [legacy](const std::string &name, bool inv) {
    return name.empty() || (name == "+" && !inv && !legacy) ? std::string("*")
                                                            : name;
  };
  printf("in %s%s ", r.inv_iniface ? "!" : "",
         via(r.iniface, r.inv_iniface).c_str());
  printf("out %s%s ", r.inv_outiface ? "!" : "",
         via(r.outiface, r.inv_outiface).c_str());
  fputc(r.inv_src ? '!' : ' ', stdout);
  printf("%s ", address(r, true, family).c_str());
  fputc(r.inv_dst ? '!' : ' ', stdout);
  printf("-> %s", address(r, false, family).c_str());
  fputs("  ", stdout);
  if (r.verdict == Verdict::go)
    printf("[goto] ");

  // The plugins print from the rule's ipt_entry / ip6t_entry.
  ipt_entry e4{};
  ip6t_entry e6{};
  e4.ip.proto = r.proto;
  e6.ipv6.proto = r.proto;
  e4.ip.invflags = r.inv_proto ? XT_INV_PROTO : 0;
  e6.ipv6.invflags = e4.ip.invflags;
  const void *ip =
      v4 ? static_cast<const void *>(&e4) : static_cast<const void *>(&e6);
  for (const auto &m : r.matches) {
    xtables_match *mt = peek_match(m.name.c_str());
    if (mt == nullptr || mt->print == nullptr)
      continue;
    PluginEntry e = entry(mt, legacy ? m : as_read_back(m), false);
    mt->print(ip, reinterpret_cast<xt_entry_match *>(e.entry.data()), 1);
  }
  if (r.target) {
    xtables_target *tg = peek_target(r.target->name.c_str());
    if (tg != nullptr && tg->print != nullptr) {
      PluginEntry e = entry(tg, *r.target, true);
      tg->print(ip, reinterpret_cast<xt_entry_target *>(e.entry.data()), 1);
    }
  }
  fputc('\n', stdout);
  fflush(stdout);
}

} // namespace fastrestore
