// BlockCommitter (block_committer.h): a block's COMMIT until the writer
// is done with it.
#include "block_committer.h"

namespace fastrestore {
namespace {

// The block's lines read again into the writer, all but the COMMIT, which
// the loop asks for itself.
class AllButCommit : public ToWriter {
public:
  using ToWriter::ToWriter;
  void commit(const Location &) override {}
};

} // namespace

void BlockCommitter::commit(const Location &loc) {
  // (The writer bounds how often it asks: it refuses a block the kernel's
  // rules keep changing under.)
  while (writer_.end_block(loc) == BlockOutcome::read_again) {
    AllButCommit again(writer_);
    text_.reread(again);
  }
}

} // namespace fastrestore
