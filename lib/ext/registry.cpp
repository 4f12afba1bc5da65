#include "fastrestore/ext.h"

namespace fastrestore {
namespace {

constexpr NativeExtension kNative[] = {
    {"tcp", false, lower_match_tcp},     {"udp", false, lower_match_udp},
    {"mark", false, lower_match_mark},   {"limit", false, lower_match_limit},
    {"NFLOG", true, lower_target_nflog}, {"TRACE", true, lower_target_trace},
};

} // namespace

const NativeExtension *find_native_extension(std::string_view name,
                                             bool target) {
  for (const auto &e : kNative)
    if (e.target == target && name == e.name)
      return &e;
  return nullptr;
}

void lower_match(const XtBlob &m, const LowerCtx &ctx) {
  if (const auto *ext = find_native_extension(m.name, false))
    if (ext->lower(m, ctx))
      return;
  ctx.out.xt(false, m.name, m.revision, m.data.data(), m.data.size());
}

void lower_target(const XtBlob &t, const LowerCtx &ctx) {
  if (const auto *ext = find_native_extension(t.name, true))
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
