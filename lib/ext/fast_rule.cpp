// See fast_rule.h. Every check here is a reason to decline, never an
// error: the libxtables path reports errors.
#include "fast_rule.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_tcpudp.h>

#include <cctype>
#include <cstring>
#include <string_view>

namespace fastrestore {
namespace {

// Plain decimal, no sign, no leading zero (libxtables reads "010" as
// octal), at most `max`.
bool decimal(std::string_view s, unsigned max, unsigned &v) {
  if (s.empty() || s.size() > 10 || (s.size() > 1 && s[0] == '0'))
    return false;
  unsigned long long n = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (n > max)
    return false;
  v = static_cast<unsigned>(n);
  return true;
}

bool ipv4(std::string_view s, uint8_t out[4]) {
  for (int i = 0; i < 4; ++i) {
    size_t dot = i < 3 ? s.find('.') : s.size();
    if (dot == std::string_view::npos)
      return false;
    unsigned v;
    if (!decimal(s.substr(0, dot), 255, v))
      return false;
    out[i] = static_cast<uint8_t>(v);
    s.remove_prefix(i < 3 ? dot + 1 : dot);
  }
  return s.empty();
}

bool ipv6(std::string_view s, uint8_t out[16]) {
  if (s.empty() || s.size() >= INET6_ADDRSTRLEN)
    return false;
  for (char c : s)
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'))
      return false;
  char buf[INET6_ADDRSTRLEN];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  return inet_pton(AF_INET6, buf, out) == 1;
}

// ADDR or ADDR/LEN into address and mask, the address masked as
// libxtables does.
bool address(std::string_view s, bool v4, std::array<uint8_t, 16> &addr,
             std::array<uint8_t, 16> &mask) {
  const unsigned bits_max = v4 ? 32 : 128;
  unsigned bits = bits_max;
  size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    if (!decimal(s.substr(slash + 1), bits_max, bits))
      return false;
    s = s.substr(0, slash);
  }
  if (!(v4 ? ipv4(s, addr.data()) : ipv6(s, addr.data())))
    return false;
  const size_t len = v4 ? 4 : 16;
  for (size_t i = 0; i < len; ++i) {
    unsigned b = bits >= 8 * (i + 1) ? 8 : bits > 8 * i ? bits - 8 * i : 0;
    mask[i] = static_cast<uint8_t>(b == 0 ? 0 : 0xff << (8 - b));
    addr[i] &= mask[i];
  }
  return true;
}

bool iface(std::string_view s) {
  if (s.empty() || s.size() >= IFNAMSIZ)
    return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.' || (c == '+' && i + 1 == s.size())))
      return false;
  }
  return true;
}

// P or P:Q; an empty side is 0 or 65535 as in libxt_tcp / libxt_udp.
bool ports(std::string_view s, uint16_t out[2]) {
  size_t colon = s.find(':');
  unsigned a, b;
  if (colon == std::string_view::npos) {
    if (!decimal(s, 65535, a))
      return false;
    b = a;
  } else {
    std::string_view lo = s.substr(0, colon), hi = s.substr(colon + 1);
    if (lo.empty())
      a = 0;
    else if (!decimal(lo, 65535, a))
      return false;
    if (hi.empty())
      b = 65535;
    else if (!decimal(hi, 65535, b))
      return false;
    if (a > b)
      return false;
  }
  out[0] = static_cast<uint16_t>(a);
  out[1] = static_cast<uint16_t>(b);
  return true;
}

} // namespace

bool FastRuleParser::parse(const std::vector<Token> &words,
                           const std::string &table, int line,
                           const std::pair<uint64_t, uint64_t> *counters,
                           Command &out) const {
  const size_t n = words.size();
  if (n < 2 || words[0].text != "-A")
    return false;
  const std::string &chain = words[1].text;
  if (chain.empty() || chain.size() >= XT_EXTENSION_MAXNAMELEN ||
      chain[0] == '-' || chain[0] == '!')
    return false;

  const bool v4 = family_ == Family::ipv4;
  Rule r;
  r.loc = Location{line, words.front().col_begin, words.back().col_end};
  bool have_s = false, have_d = false, have_i = false, have_o = false,
       have_p = false, have_m = false, have_j = false;
  bool have_sport = false, have_dport = false;
  uint16_t spts[2] = {0, 0xffff}, dpts[2] = {0, 0xffff};
  for (size_t i = 2; i < n; i += 2) {
    if (i + 1 >= n)
      return false;
    const std::string &opt = words[i].text;
    std::string_view arg = words[i + 1].text;
    if (opt.size() < 2 || opt[0] != '-')
      return false;
    // The option as one letter ('S' and 'D': --sport and --dport).
    const char o = opt.size() == 2    ? opt[1]
                   : opt == "--sport" ? 'S'
                   : opt == "--dport" ? 'D'
                                      : '\0';
    if (o == 's' && !have_s) {
      have_s = true;
      if (!address(arg, v4, r.src, r.smsk))
        return false;
    } else if (o == 'd' && !have_d) {
      have_d = true;
      if (!address(arg, v4, r.dst, r.dmsk))
        return false;
    } else if (o == 'i' && !have_i) {
      have_i = true;
      if (!iface(arg))
        return false;
      r.iniface = std::string(arg);
    } else if (o == 'o' && !have_o) {
      have_o = true;
      if (!iface(arg))
        return false;
      r.outiface = std::string(arg);
    } else if (o == 'p' && !have_p) {
      have_p = true;
      if (arg == "tcp")
        r.proto = IPPROTO_TCP;
      else if (arg == "udp")
        r.proto = IPPROTO_UDP;
      else
        return false;
      r.proto_set = true;
    } else if (o == 'm' && !have_m && have_p && !have_sport && !have_dport) {
      have_m = true;
      if (arg != (r.proto == IPPROTO_TCP ? "tcp" : "udp"))
        return false;
    } else if ((o == 'S' && !have_sport) || (o == 'D' && !have_dport)) {
      if (!have_p)
        return false;
      bool src = o == 'S';
      (src ? have_sport : have_dport) = true;
      if (!ports(arg, src ? spts : dpts))
        return false;
    } else if (o == 'j' && !have_j) {
      have_j = true;
      if (arg == "ACCEPT")
        r.verdict = Verdict::accept;
      else if (arg == "DROP" && table != "nat")
        r.verdict = Verdict::drop;
      else if (arg == "RETURN")
        r.verdict = Verdict::ret;
      else if (chains_.count(std::string(arg)) != 0) {
        r.verdict = Verdict::jump;
        r.jump_chain = std::string(arg);
      } else
        return false;
    } else {
      return false;
    }
  }
  // iptables refuses -o on input chains and -i on output chains.
  if ((have_o && (chain == "PREROUTING" || chain == "INPUT")) ||
      (have_i && (chain == "POSTROUTING" || chain == "OUTPUT")))
    return false;
  if (have_m || have_sport || have_dport) {
    XtBlob m;
    m.name = r.proto == IPPROTO_TCP ? "tcp" : "udp";
    if (r.proto == IPPROTO_TCP) {
      xt_tcp t{};
      std::memcpy(t.spts, spts, sizeof(spts));
      std::memcpy(t.dpts, dpts, sizeof(dpts));
      m.data.assign(XT_ALIGN(sizeof(t)), 0);
      std::memcpy(m.data.data(), &t, sizeof(t));
    } else {
      xt_udp u{};
      std::memcpy(u.spts, spts, sizeof(spts));
      std::memcpy(u.dpts, dpts, sizeof(dpts));
      m.data.assign(XT_ALIGN(sizeof(u)), 0);
      std::memcpy(m.data.data(), &u, sizeof(u));
    }
    r.matches.push_back(std::move(m));
  }
  if (counters != nullptr) {
    r.packets = counters->first;
    r.bytes = counters->second;
  }
  out = Command{};
  // libxtables' position after its loop: the last option and its value.
  out.loc = Location{line, words[n - 2].col_begin, words[n - 1].col_end};
  out.kind = CommandKind::append;
  out.chain = chain;
  out.rules.push_back(std::move(r));
  return true;
}

} // namespace fastrestore
