// TRACE target: set meta nftrace to 1.
#include <linux/netfilter/nf_tables.h>

#include "ext/ext.h"

namespace fastrestore {

bool lower_target_trace(const XtBlob &, const LowerCtx &ctx) {
  ctx.out.immediate_u8(NFT_REG32_01, 1);
  ctx.out.meta_set(NFT_META_NFTRACE, NFT_REG32_01);
  return true;
}

} // namespace fastrestore
