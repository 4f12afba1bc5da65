// Private to the driver: the sink in front of the restore writer that
// runs each block's COMMIT to its end. When the writer answers
// read_again (restore_writer.h), the block's lines are read again from
// its text into the writer and the COMMIT is asked again, in a loop here,
// so nothing calls back into the writer from inside its COMMIT.
#pragma once

#include "parse/block_source.h"
#include "parse/restore_writer.h"

namespace fastrestore {

// Hands a block's entries to the writer; its COMMIT is a subclass's.
class ToWriter : public BlockSink {
public:
  explicit ToWriter(RestoreWriter &writer) : writer_(writer) {}

  void begin(const std::string &table, const Location &loc) override {
    writer_.begin(table, loc);
  }
  void declare(ChainDecl &&decl) override { writer_.declare(std::move(decl)); }
  void command(Command &&cmd) override { writer_.command(std::move(cmd)); }
  void append_basic(const BasicAppend &a) override { writer_.append_basic(a); }

protected:
  RestoreWriter &writer_;
};

class BlockCommitter : public ToWriter {
public:
  BlockCommitter(RestoreWriter &writer, const BlockSource &text)
      : ToWriter(writer), text_(text) {}
  void commit(const Location &loc) override;

private:
  const BlockSource &text_;
};

} // namespace fastrestore
