// The line structure of iptables-save text: "*table", ":CHAIN POLICY
// [p:b]", rule lines with an optional "[p:b]" prefix, "COMMIT", comments.
//
// Lines are fed one at a time; each complete block is handed to the
// on_commit callback when its COMMIT line is read, so a caller reading a
// pipe applies every block as soon as it arrives. Rule lines are parsed
// immediately through the XtParser. Errors throw fastrestore::Error with the
// exit status iptables-nft-restore uses for the same input.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "fastrestore/ir.h"
#include "fastrestore/xt_parser.h"

namespace fastrestore {

struct ParseOptions {
  bool counters = false;  // -c: honour [p:b]
  std::string only_table; // -T: ignore other tables
};

class RestoreParser {
public:
  using CommitFn = std::function<void(Block &&)>;

  RestoreParser(XtParser &xt, ParseOptions opts, CommitFn on_commit);

  // `line` without its trailing newline; `lineno` is 1-based.
  void feed(std::string_view line, int lineno);
  // End of input after `lines` lines.
  void finish(int lines);

  bool in_table() const { return block_.has_value(); }

private:
  void begin_table(std::string_view line, int lineno);
  void chain_line(std::string_view line, int lineno);
  void rule_line(std::string_view line, int lineno);

  XtParser &xt_;
  ParseOptions opts_;
  CommitFn on_commit_;
  std::optional<Block> block_;
  bool skipping_ = false; // inside a table that -T excludes
};

} // namespace fastrestore
