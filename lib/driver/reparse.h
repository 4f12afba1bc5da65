// Reading a kept block again (BlockText) through a parser of its own: the
// retry after a generation change, the whole-block model and the legacy
// failure locator's prefixes all parse the block's lines a second time.
#pragma once

#include "block_text.h"
#include "parse/restore_parser.h"
#include "parse/rule_parser.h"

namespace fastrestore {

// Feeds lines text.first()..last into `sink` through a new RestoreParser.
// With commit_at > 0 a COMMIT line numbered commit_at follows them;
// otherwise a block they leave open (the next table line or the end of the
// input ended it) is finished at `last`.
void reparse_block(const BlockText &text, RuleParser &xt,
                   const ParseOptions &opts, BlockSink &sink, int last,
                   int commit_at = 0);

} // namespace fastrestore
