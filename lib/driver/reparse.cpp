#include "reparse.h"

namespace fastrestore {

void reparse_block(const BlockText &text, RuleParser &xt,
                   const ParseOptions &opts, BlockSink &sink, int last,
                   int commit_at) {
  RestoreParser again(xt, opts, sink);
  text.each(text.first(), last,
            [&](std::string_view line, int n) { again.feed(line, n); });
  if (commit_at > 0)
    again.feed("COMMIT", commit_at);
  else if (again.in_table())
    again.finish(last);
}

} // namespace fastrestore
