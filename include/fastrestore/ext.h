// Lowering of matches and targets to nf_tables expressions.
//
// A few extensions have a native nf_tables form that iptables-nft 1.8.9
// emits instead of the compat expression (tcp, udp, mark, limit, NFLOG,
// TRACE); each lives in its own unit under lib/ext and registers here by
// name. Everything else becomes a compat "match"/"target" expression that
// carries the plugin's binary unchanged.
#pragma once

#include <cstdint>
#include <string_view>

#include "fastrestore/ir.h"
#include "fastrestore/nft_expr.h"

namespace fastrestore {

struct LowerCtx {
  nft::ExprWriter &out;
  Family family;
  uint8_t compat_proto; // the rule's -p (0: none), for tcp/udp checks
  Location loc;         // the rule, for errors
};

// Returns false when this blob has no native form and must go compat.
using NativeLowering = bool (*)(const XtBlob &, const LowerCtx &);

struct NativeExtension {
  const char *name;
  bool target;
  NativeLowering lower;
};

const NativeExtension *find_native_extension(std::string_view name,
                                             bool target);

void lower_match(const XtBlob &m, const LowerCtx &ctx);
void lower_target(const XtBlob &t, const LowerCtx &ctx);

// Native lowerings, one per unit.
bool lower_match_tcp(const XtBlob &, const LowerCtx &);
bool lower_match_udp(const XtBlob &, const LowerCtx &);
bool lower_match_mark(const XtBlob &, const LowerCtx &);
bool lower_match_limit(const XtBlob &, const LowerCtx &);
bool lower_target_nflog(const XtBlob &, const LowerCtx &);
bool lower_target_trace(const XtBlob &, const LowerCtx &);

// Port ranges of tcp/udp (host order), shared by both lowerings.
void lower_ports(const LowerCtx &ctx, const uint16_t src[2], bool inv_src,
                 const uint16_t dst[2], bool inv_dst);

// Throws a parameter-problem Error at the rule's location.
[[noreturn]] void lowering_error(const LowerCtx &ctx, std::string message);

} // namespace fastrestore
