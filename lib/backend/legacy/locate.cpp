#include "legacy/legacy.h"

#include "fastrestore/private_netns.h"
#include "fastrestore/restore_options.h"
#include "parse/restore_parser.h"
#include "parse/restore_writer.h"

namespace fastrestore::legacy {

int locate_refused_line(const RestoreConfig &cfg, const BlockSource &block) {
  const int first = block.first(), count = block.count();
  if (count < 3 || count > 200000)
    return 0;
  // 0 when no namespace could be made, or the child died.
  return in_private_netns([&] {
           RestoreConfig probe_cfg = cfg;
           probe_cfg.noflush = false;
           probe_cfg.test = false;
           probe_cfg.verbose = 0;
           probe_cfg.no_lock = true;
           auto loads = [&](int k) {
             try {
               auto w = make_restore_writer(probe_cfg);
               block.reread_prefix(*w, k);
               return true;
             } catch (...) {
               return false;
             }
           };
           // Lines [1, count-2] are between the table line and COMMIT.
           int lo = 0, hi = count - 2;
           if (loads(hi))
             return 0;
           while (hi - lo > 1) {
             int mid = lo + (hi - lo) / 2;
             if (loads(mid))
               lo = mid;
             else
               hi = mid;
           }
           return first + hi;
         })
      .value_or(0);
}

} // namespace fastrestore::legacy
