// NFLOG target: a native log expression (group, prefix, snaplen,
// queue threshold), and back.
#include <linux/netfilter/xt_NFLOG.h>

#include <algorithm>
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

std::vector<unsigned char> raise_target_nflog(uint16_t group,
                                              uint16_t threshold,
                                              const uint32_t *snaplen,
                                              std::string_view prefix) {
  struct NflogInfo {
    uint32_t len;
    uint16_t group, threshold, flags, pad;
    char prefix[128];
  } info{};
  info.group = group;
  info.threshold = threshold;
  if (snaplen != nullptr) {
    info.len = *snaplen;
    info.flags = XT_NFLOG_F_COPY_LEN;
  }
  if (!prefix.empty())
    std::memcpy(info.prefix, prefix.data(),
                std::min(prefix.size(), sizeof(info.prefix) - 1));
  std::vector<unsigned char> out(sizeof(info));
  std::memcpy(out.data(), &info, sizeof(info));
  return out;
}

} // namespace fastrestore
