// The decoder behind decode_rule (private to lib/save): one object per
// rule, fed the rule's expressions in order, keeping the registers as
// iptables-nft 1.8.9 keeps them and filling the SavedRule. Its members are
// defined in three files along iptables' own seams: decode.cpp (the
// registers, meta, cmp, immediate, matches and targets), decode_inet.cpp
// (ip and ip6 payloads, transport ports, icmp, range) and
// decode_bridge.cpp (ebtables-nft's meta, payloads and among). The structs
// of the extensions with a native form (limit, mark, tcp, udp, NFLOG) are
// raised by their units in lib/ext (ext.h), beside their lowerings, and so
// is among's (from its set's keys, which decode_bridge.cpp finds).
#pragma once

#include <cstdint>
#include <cstring>

#include <linux/netfilter/nf_tables.h>

#include "decode.h"
#include "expr_reader.h"
#include "fastrestore/xt_lookup.h"
#include "print/saved_rule.h"
#include "regs.h"
#include "xtables/plugin_entry.h"

namespace fastrestore::save {

class Decoder {
public:
  Decoder(SavedRule &r, Family family, const SetResolver *sets)
      : r_(r), family_(family), bridge_(family == Family::bridge), sets_(sets) {
  }

  // One expression of the rule, in order.
  void expr(const ExprReader &e);
  // The rule's user data: iptables-nft's comment.
  void comment(const nlattr *udata);

private:
  void fail(const char *msg) { r_.errors.emplace_back(msg); }

  // decode.cpp: registers, meta, cmp, immediate, matches and targets.
  void payload(const ExprReader &e);
  void meta(const ExprReader &e);
  // meta nftrace set 1: the TRACE target.
  void meta_set(const ExprReader &e);
  void cmp(const ExprReader &e);
  bool generic_meta(const Reg &reg, const ExprReader &e);
  uint32_t reg_mask(uint32_t regnum);
  static void parse_ifname(const uint8_t *name, uint32_t len, char *dst,
                           unsigned char *mask);
  // nft's form of "! -o +".
  void parse_invalid_iface(char *iface, unsigned char *mask, uint8_t bit);
  void immediate(const ExprReader &e);
  // iptables' ops->parse_target: ebtables-nft lists its log and nflog
  // watchers with the matches.
  void set_target(PluginEntry t, const char *name);
  // A match iptables-nft builds for a native expression (nft_create_match):
  // printed for ip and ip6, never listed for the bridge family.
  void add_created(PluginEntry m);
  // A match passed to ops->parse_match. ebtables-nft's list append sets
  // the first entry's successor, so a rule lists its first and its last.
  void add_parsed(PluginEntry m);
  void match(const ExprReader &e);
  void target(const ExprReader &e);
  void limit(const ExprReader &e);
  // nft's log with a group: NFLOG, with room for nft's longer prefix.
  void log(const ExprReader &e);

  // decode_inet.cpp: the ip and ip6 families.
  void family_meta(const Reg &reg, const ExprReader &e);
  void family_payload(const Reg &reg, const ExprReader &e);
  bool hop_limit(const ExprReader &e);
  // The tcp or udp match the rule's port and flag expressions fill in,
  // created at the first of them.
  unsigned char *tcpudp(bool tcp);
  void th_port(int sport, int dport, uint32_t op);
  void transport(const ExprReader &e);
  void icmp(const Reg &sreg, const uint8_t *d, uint32_t dlen);
  void range(const ExprReader &e);

  // decode_bridge.cpp: the bridge family.
  void bridge_meta(const Reg &reg, const ExprReader &e);
  void bridge_payload(const Reg &reg, const ExprReader &e);
  void among(const ExprReader &e);

  // The compared data, as every file reads it.
  static bool neq(const ExprReader &e) {
    return e.u32(NFTA_CMP_OP) == NFT_CMP_NEQ;
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

  SavedRule &r_;
  Family family_;
  bool bridge_;
  const SetResolver *sets_;
  Regs regs_{r_.errors};
  int tcpudp_ = -1;
};

} // namespace fastrestore::save
