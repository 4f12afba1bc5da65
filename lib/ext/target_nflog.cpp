// NFLOG target: a native log expression (group, prefix, snaplen,
// queue threshold).
#include <linux/netfilter/xt_NFLOG.h>

#include <cstring>
#include <string>

#include "ext/ext.h"

namespace fastrestore {

bool lower_target_nflog(const XtBlob &t, const LowerCtx &ctx) {
  xt_nflog_info info{};
  if (t.data.size() < sizeof(info))
    return false;
  std::memcpy(&info, t.data.data(), sizeof(info));
  std::string prefix;
  if (info.prefix[0] != '\0')
    prefix = t.udata.empty()
                 ? std::string(info.prefix,
                               strnlen(info.prefix, sizeof(info.prefix)))
                 : t.udata;
  uint32_t snaplen = info.len;
  uint16_t threshold = info.threshold;
  ctx.out.log(prefix.empty() ? nullptr : &prefix, info.group,
              (info.flags & XT_NFLOG_F_COPY_LEN) ? &snaplen : nullptr,
              info.threshold ? &threshold : nullptr);
  return true;
}

} // namespace fastrestore
