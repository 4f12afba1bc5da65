// BlockCommitter (block_committer.h): a block's COMMIT until the writer
// is done with it.
#include "block_committer.h"

namespace fastrestore {
namespace {

// The block's lines read again into the writer, all but the COMMIT, which
// the loop asks for itself.
class AllButCommit : public BlockSink {
public:
  explicit AllButCommit(RestoreWriter &writer) : writer_(writer) {}
  void begin(const std::string &table, const Location &loc) override {
    writer_.begin(table, loc);
  }
  void declare(ChainDecl &&decl) override { writer_.declare(std::move(decl)); }
  void command(Command &&cmd) override { writer_.command(std::move(cmd)); }
  void append_basic(const BasicAppend &a) override { writer_.append_basic(a); }
  bool takes_unparsed(std::string_view line, int lineno,
                      uint64_t hash) override {
    return writer_.takes_unparsed(line, lineno, hash);
  }
  void commit(const Location &) override {}

private:
  RestoreWriter &writer_;
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
