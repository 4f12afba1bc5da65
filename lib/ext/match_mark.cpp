// mark match (revision 1, as registered): meta mark, an optional mask, cmp;
// and back.
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_mark.h>

#include <cstring>

#include "ext/ext.h"

namespace fastrestore {

bool lower_match_mark(const XtBlob &m, const LowerCtx &ctx) {
  xt_mark_mtinfo1 info{};
  if (m.data.size() < sizeof(info))
    return false;
  std::memcpy(&info, m.data.data(), sizeof(info));
  ctx.out.meta_load(NFT_META_MARK);
  if (info.mask != 0xffffffff)
    ctx.out.bitwise(&info.mask, sizeof(info.mask));
  ctx.out.cmp(info.invert ? NFT_CMP_NEQ : NFT_CMP_EQ, &info.mark,
              sizeof(info.mark));
  return true;
}

void raise_match_mark(uint32_t mark, uint32_t mask, bool invert,
                      unsigned char *data) {
  auto *info = reinterpret_cast<xt_mark_mtinfo1 *>(data);
  if (invert)
    info->invert = 1;
  info->mark = mark;
  info->mask = mask;
}

} // namespace fastrestore
