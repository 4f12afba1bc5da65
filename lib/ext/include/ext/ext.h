// Lowering of matches and targets to nf_tables expressions.
//
// A few extensions have a native nf_tables form that iptables-nft 1.8.9
// emits instead of the compat expression (tcp, udp, mark, limit, NFLOG,
// TRACE for ip and ip6; limit and among for the bridge, where 802_3 is
// checked); each lives in its own unit under lib/ext and registers here by
// name, families and revision. Everything else becomes a compat
// "match"/"target" expression that carries the plugin's binary unchanged.
// The nf_tables rule encoder reaches the units only through this header;
// the units write through the backend's expression writer (nft_expr.h).
// Each unit also raises its struct back from the values the save's decoder
// (lib/save, a register machine as iptables-nft's) reads from the
// expressions, so that both directions of a conversion sit together.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/nft_expr.h"
#include "fastrestore/ir.h"

namespace fastrestore {

struct LowerCtx {
  nft::ExprWriter &out;
  Family family;
  uint8_t compat_proto; // the rule's -p (0: none), for tcp/udp checks
  Location loc;         // the rule, for errors
  // Bridge rules: the ebt_entry bitmask (EBT_802_3 for -p LENGTH), and the
  // transaction ids of the anonymous sets made for the rule's among
  // matches, taken in order (`next_set` counts those used).
  uint32_t eb_bitmask = 0;
  const std::vector<uint32_t> *set_ids = nullptr;
  size_t *next_set = nullptr;
};

// Returns false when this blob has no native form and must go compat.
using NativeLowering = bool (*)(const XtBlob &, const LowerCtx &);

// The families a native form is for.
enum FamilyMask : uint8_t {
  kInet = 1,   // ipv4 and ipv6
  kBridge = 2, // bridge
};

struct NativeExtension {
  const char *name;
  bool target;
  uint8_t families; // FamilyMask bits
  int revision;     // the plugin revision the lowering reads; -1: any
  NativeLowering lower;
};

// The native form of extension `name` of `revision` in `family`, or
// nullptr.
const NativeExtension *find_native_extension(std::string_view name, bool target,
                                             Family family, int revision);

void lower_match(const XtBlob &m, const LowerCtx &ctx);
void lower_target(const XtBlob &t, const LowerCtx &ctx);

// Native lowerings, one per unit.
bool lower_match_tcp(const XtBlob &, const LowerCtx &);
bool lower_match_udp(const XtBlob &, const LowerCtx &);
bool lower_match_mark(const XtBlob &, const LowerCtx &);
bool lower_match_limit(const XtBlob &, const LowerCtx &);
bool lower_target_nflog(const XtBlob &, const LowerCtx &);
bool lower_target_trace(const XtBlob &, const LowerCtx &);
bool lower_match_among(const XtBlob &, const LowerCtx &);
bool lower_match_802_3(const XtBlob &, const LowerCtx &);

// Raising, the lowerings' inverse (the save's decoder, lib/save, reads the
// expressions as iptables-nft 1.8.9 does and hands each unit what they
// carry): the plugin's struct of a native form, written into `data`, the
// plugin's zeroed struct.
void raise_match_limit(uint64_t rate, uint64_t unit, uint32_t burst,
                       unsigned char *data);
void raise_match_mark(uint32_t mark, uint32_t mask, bool invert,
                      unsigned char *data);
// One compare of the transport header's ports (NFT_CMP_*, -1: that port
// not compared) into the tcp or udp match's ranges and inversions.
void raise_match_tcp_ports(uint32_t op, int sport, int dport,
                           unsigned char *data);
void raise_match_udp_ports(uint32_t op, int sport, int dport,
                           unsigned char *data);
// The tcp flags compared (under `mask`), inverted or not.
void raise_match_tcp_flags(uint8_t cmp, uint8_t mask, bool invert,
                           unsigned char *data);
// One direction of among from its anonymous set of `count` pairs (each key
// a MAC, then 2 bytes of padding and an IPv4 address when `ip`): `data` is
// the among struct (among.h) with room for `count` more pairs, zeroed, at
// the end; the direction is set and its pairs go in sorted, after the
// source pairs (a source direction moves the destination pairs behind its
// own). False, with the reason, for a key too long or more than `count`.
bool raise_match_among(uint8_t *data, bool dst, bool inv, bool ip, size_t count,
                       const std::vector<std::vector<uint8_t>> &keys,
                       const char **error);
// NFLOG from a log expression with a group: iptables-nft's struct, with
// room for nft's longer prefix (128 bytes); `snaplen` when given.
std::vector<unsigned char> raise_target_nflog(uint16_t group,
                                              uint16_t threshold,
                                              const uint32_t *snaplen,
                                              std::string_view prefix);

// Port ranges of tcp/udp (host order), shared by both lowerings.
void lower_ports(const LowerCtx &ctx, const uint16_t src[2], bool inv_src,
                 const uint16_t dst[2], bool inv_dst);

// One port compare (NFT_CMP_*, `port` -1: none) into a [min, max] range
// and its inversion flag, shared by both raisings.
void raise_port_range(uint16_t *ports, uint8_t *invflags, uint32_t op, int port,
                      uint8_t invflag);

// Throws a parameter-problem Error at the rule's location.
[[noreturn]] void lowering_error(const LowerCtx &ctx, std::string message);

} // namespace fastrestore
