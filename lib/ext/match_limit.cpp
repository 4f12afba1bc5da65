// limit match: a native limit expression in packets per the coarsest unit
// that represents the rate exactly (the conversion iptables-nft uses), and
// back.
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_limit.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "ext/ext.h"

namespace fastrestore {

bool lower_match_limit(const XtBlob &m, const LowerCtx &ctx) {
  xt_rateinfo info{};
  if (m.data.size() < offsetof(xt_rateinfo, prev))
    return false;
  std::memcpy(&info, m.data.data(), std::min(m.data.size(), sizeof(info)));
  if (info.avg == 0)
    return false;
  static const uint32_t mult[] = {
      XT_LIMIT_SCALE * 24 * 60 * 60, // day
      XT_LIMIT_SCALE * 60 * 60,      // hour
      XT_LIMIT_SCALE * 60,           // minute
      XT_LIMIT_SCALE,                // second
  };
  size_t i = 1;
  for (; i < sizeof(mult) / sizeof(mult[0]); ++i)
    if (info.avg > mult[i] || mult[i] / info.avg < mult[i] % info.avg)
      break;
  ctx.out.limit(mult[i - 1] / info.avg, mult[i - 1] / XT_LIMIT_SCALE,
                info.burst, NFT_LIMIT_PKTS, 0);
  return true;
}

void raise_match_limit(uint64_t rate, uint64_t unit, uint32_t burst,
                       unsigned char *data) {
  auto *info = reinterpret_cast<xt_rateinfo *>(data);
  info->avg =
      rate != 0 ? static_cast<uint32_t>(XT_LIMIT_SCALE * unit / rate) : 0;
  info->burst = burst;
}

} // namespace fastrestore
