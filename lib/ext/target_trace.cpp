// TRACE target: set meta nftrace to 1.
#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/expr.h>
#include <linux/netfilter/nf_tables.h>

#include <new>

#include "fastrestore/ext.h"

namespace fastrestore {

bool lower_target_trace(const XtBlob &, const LowerCtx &ctx) {
  nftnl_expr *imm = nftnl_expr_alloc("immediate");
  nftnl_expr *meta = nftnl_expr_alloc("meta");
  if (imm == nullptr || meta == nullptr)
    throw std::bad_alloc();
  nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_DREG, NFT_REG32_01);
  nftnl_expr_set_u8(imm, NFTNL_EXPR_IMM_DATA, 1);
  nftnl_rule_add_expr(ctx.rule, imm);
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_KEY, NFT_META_NFTRACE);
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_SREG, NFT_REG32_01);
  nftnl_rule_add_expr(ctx.rule, meta);
  return true;
}

} // namespace fastrestore
