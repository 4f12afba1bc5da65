// The block being read, as the driver keeps it, for a backend's restore
// writer that must show one of its lines or read it again: the nf_tables
// writer after a generation change and for the whole-block model, the
// legacy writer to find the line of a table the kernel refused. The
// driver implements it (its BlockText and the restore parser), so that no
// backend needs the driver or the parser.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "parse/restore_parser.h"

namespace fastrestore {

class BlockSource {
public:
  virtual ~BlockSource() = default;

  // The block's first line (its table line), and how many of its lines
  // are kept: through the line being read, or its COMMIT.
  virtual int first() const = 0;
  virtual int count() const = 0;
  // The text of line `n`, or "" when it is not in the block.
  virtual std::string line(int n) const = 0;
  // Calls fn(text, n) for the lines from..to (inclusive), in order.
  virtual void
  each(int from, int to,
       const std::function<void(std::string_view, int)> &fn) const = 0;

  // Parses the block's kept lines again, as they were first parsed, into
  // `sink` (a block they leave open is finished at the last of them).
  virtual void reread(BlockSink &sink) const = 0;
  // Parses the table line and the `k` lines after it, then a COMMIT at
  // the block's last line, into `sink`.
  virtual void reread_prefix(BlockSink &sink, int k) const = 0;
};

} // namespace fastrestore
