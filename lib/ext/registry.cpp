#include "ext/ext.h"

namespace fastrestore {
namespace {

constexpr NativeExtension kNative[] = {
    {"tcp", false, kInet, -1, lower_match_tcp},
    {"udp", false, kInet, -1, lower_match_udp},
    {"mark", false, kInet, 1, lower_match_mark},
    {"limit", false, kInet | kBridge, -1, lower_match_limit},
    {"NFLOG", true, kInet, -1, lower_target_nflog},
    {"TRACE", true, kInet, -1, lower_target_trace},
    {"among", false, kBridge, -1, lower_match_among},
    {"802_3", false, kBridge, -1, lower_match_802_3},
};

} // namespace

const NativeExtension *find_native_extension(std::string_view name, bool target,
                                             Family family, int revision) {
  const uint8_t mask = family == Family::bridge ? kBridge : kInet;
  for (const auto &e : kNative)
    if (e.target == target && (e.families & mask) && name == e.name &&
        (e.revision < 0 || e.revision == revision))
      return &e;
  return nullptr;
}

void lower_match(const XtBlob &m, const LowerCtx &ctx) {
  if (const auto *ext =
          find_native_extension(m.name, false, ctx.family, m.revision))
    if (ext->lower(m, ctx))
      return;
  ctx.out.xt(false, m.name, m.revision, m.data.data(), m.data.size());
}

void lower_target(const XtBlob &t, const LowerCtx &ctx) {
  if (const auto *ext =
          find_native_extension(t.name, true, ctx.family, t.revision))
    if (ext->lower(t, ctx))
      return;
  ctx.out.xt(true, t.name, t.revision, t.data.data(), t.data.size());
}

void lowering_error(const LowerCtx &ctx, std::string message) {
  Diagnostic d;
  d.loc = ctx.loc;
  d.message = std::move(message);
  d.code = ExitCode::parameter;
  throw Error(std::move(d));
}

} // namespace fastrestore
