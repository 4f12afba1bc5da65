// NFLOG target: a native log expression (group, prefix, snaplen,
// queue threshold).
#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/expr.h>
#include <linux/netfilter/xt_NFLOG.h>

#include <cstring>
#include <new>

#include "fastrestore/ext.h"

namespace fastrestore {

bool lower_target_nflog(const XtBlob &t, const LowerCtx &ctx) {
  xt_nflog_info info{};
  if (t.data.size() < sizeof(info))
    return false;
  std::memcpy(&info, t.data.data(), sizeof(info));
  nftnl_expr *e = nftnl_expr_alloc("log");
  if (e == nullptr)
    throw std::bad_alloc();
  if (info.prefix[0] != '\0') {
    std::string prefix =
        t.udata.empty() ? std::string(info.prefix,
                                      strnlen(info.prefix, sizeof(info.prefix)))
                        : t.udata;
    nftnl_expr_set_str(e, NFTNL_EXPR_LOG_PREFIX, prefix.c_str());
  }
  nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, info.group);
  if (info.flags & XT_NFLOG_F_COPY_LEN)
    nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_SNAPLEN, info.len);
  if (info.threshold)
    nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_QTHRESHOLD, info.threshold);
  nftnl_rule_add_expr(ctx.rule, e);
  return true;
}

} // namespace fastrestore
