// See fast_rule.h. Every check here is a reason to decline, never an
// error: the libxtables path reports errors.
#include "parse/fast_rule.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_tcpudp.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdint>
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

// Four dotted decimal bytes, each as decimal() takes it.
bool ipv4(std::string_view s, uint8_t out[4]) {
  const size_t n = s.size();
  size_t i = 0;
  for (int k = 0; k < 4; ++k) {
    if (k > 0) {
      if (i == n || s[i] != '.')
        return false;
      ++i;
    }
    const size_t b = i;
    unsigned v = 0;
    while (i < n && i - b < 4 && s[i] >= '0' && s[i] <= '9')
      v = v * 10 + static_cast<unsigned>(s[i++] - '0');
    const size_t len = i - b;
    if (len == 0 || len > 3 || (len > 1 && s[b] == '0') || v > 255)
      return false;
    out[k] = static_cast<uint8_t>(v);
  }
  return i == n;
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

// The longest line scan() takes; a longer one goes the general way.
constexpr size_t kMaxLine = 256;
constexpr size_t kBitWords = kMaxLine / 64;

// One bit a byte of `s` (shorter than kMaxLine): set for a blank (space,
// tab, newline) and for every position past the end. False when `s` holds
// a double quote, which split_words treats specially.
bool blank_bits(std::string_view s, uint64_t bits[kBitWords]) {
  const size_t n = s.size();
  const size_t chunks = n / 16 + 1; // 16-byte chunks, with padding after s
  alignas(16) char buf[kMaxLine];
  std::memcpy(buf, s.data(), n);
  std::memset(buf + n, ' ', chunks * 16 - n);
  for (size_t w = 0; w < kBitWords; ++w)
    bits[w] = w * 64 >= chunks * 16 ? ~uint64_t{0} : 0;
#ifdef __SSE2__
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                nl = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"');
  int quotes = 0;
  for (size_t k = 0; k < chunks; ++k) {
    const __m128i v =
        _mm_load_si128(reinterpret_cast<const __m128i *>(buf + 16 * k));
    const __m128i b = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
        _mm_cmpeq_epi8(v, nl));
    quotes |= _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
    bits[k / 4] |=
        static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(b)))
        << (16 * (k % 4));
  }
  if (quotes != 0)
    return false;
#else
  for (size_t i = 0; i < chunks * 16; ++i) {
    const char c = buf[i];
    if (c == '"')
      return false;
    if (c == ' ' || c == '\t' || c == '\n')
      bits[i / 64] |= uint64_t{1} << (i % 64);
  }
#endif
  return true;
}

// The first position from `i` whose bit is `Set`; kMaxLine if none.
template <bool Set>
inline size_t next_bit(const uint64_t bits[kBitWords], size_t i) {
  size_t w = i / 64;
  if (w >= kBitWords)
    return kMaxLine;
  uint64_t x = (Set ? bits[w] : ~bits[w]) & (~uint64_t{0} << (i % 64));
  while (x == 0) {
    if (++w == kBitWords)
      return kMaxLine;
    x = Set ? bits[w] : ~bits[w];
  }
  return w * 64 + static_cast<size_t>(__builtin_ctzll(x));
}

} // namespace

bool FastRuleParser::parse(const std::vector<Token> &words,
                           const std::string &table, int line,
                           const std::pair<uint64_t, uint64_t> *counters,
                           Command &out) const {
  if (words.size() > kMaxWords)
    return false;
  Word w[kMaxWords];
  for (size_t i = 0; i < words.size(); ++i)
    w[i] = Word{words[i].text.data(), words[i].text.size(), words[i].col_begin,
                words[i].col_end};
  BasicAppend a;
  if (!parse_words(family_, w, words.size(), a) ||
      !settle(a, table, line, counters))
    return false;
  out = to_command(a);
  return true;
}

bool FastRuleParser::scan(std::string_view text, int col_offset,
                          const std::string &table, int line,
                          const std::pair<uint64_t, uint64_t> *counters,
                          BasicAppend &out) const {
  Word w[kMaxWords];
  size_t n;
  return split(text, col_offset, w, n) && parse_words(family_, w, n, out) &&
         settle(out, table, line, counters);
}

bool FastRuleParser::prescan(Family family, std::string_view text,
                             BasicAppend &out) {
  Word w[kMaxWords];
  size_t n;
  return split(text, 0, w, n) && parse_words(family, w, n, out);
}

bool FastRuleParser::settle(
    BasicAppend &a, const std::string &table, int line,
    const std::pair<uint64_t, uint64_t> *counters) const {
  if ((a.verdict == Verdict::drop && table == "nat") ||
      (a.verdict == Verdict::jump && !chains_.contains(a.jump_chain)))
    return false;
  a.loc.line = a.rule_loc.line = line;
  if (counters != nullptr) {
    a.packets = counters->first;
    a.bytes = counters->second;
    a.counters_set = true;
  }
  return true;
}

bool FastRuleParser::split(std::string_view text, int col_offset, Word *w,
                           size_t &n) {
  // Words are found from a bitmap of the blanks, not byte by byte.
  const size_t len = text.size();
  uint64_t bits[kBitWords];
  if (len >= kMaxLine || !blank_bits(text, bits))
    return false;
  n = 0;
  for (size_t i = next_bit<false>(bits, 0); i < len;
       i = next_bit<false>(bits, i)) {
    const size_t j = std::min(next_bit<true>(bits, i), len);
    if (n == kMaxWords)
      return false;
    w[n++] = Word{text.data() + i, j - i, col_offset + static_cast<int>(i) + 1,
                  col_offset + static_cast<int>(j)};
    i = j;
  }
  return true;
}

// Everything that does not depend on the block: the table (DROP in nat)
// and the chains declared so far (a jump) are settle()'s.
bool FastRuleParser::parse_words(Family family, const Word *words, size_t n,
                                 BasicAppend &r) {
  if (n < 2 || words[0].text() != "-A")
    return false;
  const std::string_view chain = words[1].text();
  if (chain.empty() || chain.size() >= XT_EXTENSION_MAXNAMELEN ||
      chain[0] == '-' || chain[0] == '!')
    return false;

  const bool v4 = family == Family::ipv4;
  r = BasicAppend{};
  r.chain = chain;
  r.rule_loc = Location{0, words[0].col_begin, words[n - 1].col_end};
  bool have_s = false, have_d = false, have_i = false, have_o = false,
       have_p = false, have_m = false, have_j = false;
  bool have_sport = false, have_dport = false;
  for (size_t i = 2; i < n; i += 2) {
    if (i + 1 >= n)
      return false;
    const std::string_view opt = words[i].text();
    const std::string_view arg = words[i + 1].text();
    if (opt.size() < 2 || opt[0] != '-')
      return false;
    // The option as one letter ('S' and 'D': --sport and --dport; the
    // commands -S and -D themselves are not this shape).
    const char o = opt.size() == 2
                       ? (opt[1] == 'S' || opt[1] == 'D' ? '\0' : opt[1])
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
      r.iniface = arg;
    } else if (o == 'o' && !have_o) {
      have_o = true;
      if (!iface(arg))
        return false;
      r.outiface = arg;
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
      if (!ports(arg, src ? r.spts : r.dpts))
        return false;
    } else if (o == 'j' && !have_j) {
      have_j = true;
      if (arg == "ACCEPT")
        r.verdict = Verdict::accept;
      else if (arg == "DROP")
        r.verdict = Verdict::drop;
      else if (arg == "RETURN")
        r.verdict = Verdict::ret;
      else {
        r.verdict = Verdict::jump; // if settle() finds the chain
        r.jump_chain = arg;
      }
    } else {
      return false;
    }
  }
  // iptables refuses -o on input chains and -i on output chains.
  if ((have_o && (chain == "PREROUTING" || chain == "INPUT")) ||
      (have_i && (chain == "POSTROUTING" || chain == "OUTPUT")))
    return false;
  r.port_match = have_m || have_sport || have_dport;
  // libxtables' position after its loop: the last option and its value.
  r.loc = Location{0, words[n - 2].col_begin, words[n - 1].col_end};
  return true;
}

Command to_command(const BasicAppend &a) {
  Rule r;
  r.loc = a.rule_loc;
  r.iniface = std::string(a.iniface);
  r.outiface = std::string(a.outiface);
  r.proto = a.proto;
  r.proto_set = a.proto_set;
  r.src = a.src;
  r.smsk = a.smsk;
  r.dst = a.dst;
  r.dmsk = a.dmsk;
  r.verdict = a.verdict;
  r.jump_chain = std::string(a.jump_chain);
  r.packets = a.packets;
  r.bytes = a.bytes;
  r.counters_set = a.counters_set;
  if (a.port_match) {
    XtBlob m;
    m.name = a.proto == IPPROTO_TCP ? "tcp" : "udp";
    if (a.proto == IPPROTO_TCP) {
      xt_tcp t{};
      std::memcpy(t.spts, a.spts, sizeof(t.spts));
      std::memcpy(t.dpts, a.dpts, sizeof(t.dpts));
      m.data.assign(XT_ALIGN(sizeof(t)), 0);
      std::memcpy(m.data.data(), &t, sizeof(t));
    } else {
      xt_udp u{};
      std::memcpy(u.spts, a.spts, sizeof(u.spts));
      std::memcpy(u.dpts, a.dpts, sizeof(u.dpts));
      m.data.assign(XT_ALIGN(sizeof(u)), 0);
      std::memcpy(m.data.data(), &u, sizeof(u));
    }
    r.matches.push_back(std::move(m));
  }
  Command out;
  out.loc = a.loc;
  out.kind = CommandKind::append;
  out.chain = std::string(a.chain);
  out.rules.push_back(std::move(r));
  return out;
}

} // namespace fastrestore
