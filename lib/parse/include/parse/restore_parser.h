// The line structure of iptables-save text: "*table", ":CHAIN POLICY
// [p:b]", rule lines with an optional "[p:b]" prefix, "COMMIT", comments.
//
// Lines are fed one at a time and every piece of a block goes to a
// BlockSink as soon as it is read (the table, each declaration, each
// command, the COMMIT), so a caller can encode rules while reading and
// apply each block when its COMMIT arrives. Rule lines are parsed
// immediately through the XtParser. Errors throw fastrestore::Error with the
// exit status iptables-nft-restore uses for the same input.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "fastrestore/ir.h"
#include "lex/lexer.h"
#include "parse/rule_parser.h"

namespace fastrestore {

struct BuiltinTable;

struct ParseOptions {
  bool counters = false;  // -c: honour [p:b]
  std::string only_table; // -T: ignore other tables
  bool verbose = false;   // -v: echo comment lines to stdout, as iptables
  // ebtables-restore: a table line or the end of input also commits the
  // open table (COMMIT lines are still taken).
  bool implicit_commit = false;
  // iptables-legacy-restore: chain lines are not checked for verdict names
  // or white space (libiptc refuses the former when it creates the chain).
  bool legacy = false;
};

class BlockSink {
public:
  virtual ~BlockSink() = default;
  virtual void begin(const std::string &table, const Location &loc) = 0;
  virtual void declare(ChainDecl &&decl) = 0;
  virtual void command(Command &&cmd) = 0;
  // The commonest append (see BasicAppend); a backend that can encode it
  // directly overrides this.
  virtual void append_basic(const BasicAppend &a) { command(to_command(a)); }
  virtual void commit(const Location &loc) = 0;
};

// In front of the parser (--incremental): each line of a block, before
// it is parsed; true when the filter takes it as it is (a line known
// unchanged from the state journal), and the parser is not to see it.
// `hash` is the line's hash64 when the reader made it already (else 0).
class LineFilter {
public:
  virtual ~LineFilter() = default;
  virtual bool takes(std::string_view line, int lineno, uint64_t hash) = 0;
};

// A sink that collects whole blocks.
class BlockCollector : public BlockSink {
public:
  using CommitFn = std::function<void(Block &&)>;
  explicit BlockCollector(CommitFn on_commit)
      : on_commit_(std::move(on_commit)) {}
  void begin(const std::string &table, const Location &loc) override;
  void declare(ChainDecl &&decl) override;
  void command(Command &&cmd) override;
  void commit(const Location &loc) override;

private:
  CommitFn on_commit_;
  Block block_;
};

class RestoreParser {
public:
  RestoreParser(RuleParser &xt, ParseOptions opts, BlockSink &sink);

  // `line` without its trailing newline; `lineno` is 1-based.
  // `pre`, when given, is the line's scan made ahead of its turn
  // (FastRuleParser::prescan of the whole line).
  void feed(std::string_view line, int lineno, BasicAppend *pre = nullptr);
  // End of input after `lines` lines.
  void finish(int lines);

  bool in_table() const { return in_table_; }
  // Inside a table block that is not skipped (-T): a line here that is not
  // COMMIT or a new table is the block's.
  bool in_block() const { return in_table_ && !skipping_; }
  // Offers `line`, a line of a block being read other than its COMMIT, to
  // `to` before it is fed; true when `to` took it, and the line is then
  // not to be fed. A user chain's declaration taken is still announced to
  // the rule parser (a later `-j NAME` jumps to that chain). `hash`: the
  // line's hash64, when known (else 0).
  bool hand_over(std::string_view line, int lineno, LineFilter &to,
                 uint64_t hash = 0);
  // With implicit_commit: whether `line` (a table line while a table is
  // open) commits the open table; end_table() does it.
  bool ends_table(std::string_view line) const {
    return opts_.implicit_commit && in_table_ && !line.empty() &&
           line[0] == '*';
  }
  void end_table(int lineno);
  // ends_table() and end_table() for the table line `line`, whose name is
  // checked first: ebtables-restore refuses a bad table name before it
  // commits the open table.
  void next_table(std::string_view line, int lineno);

private:
  void begin_table(std::string_view line, int lineno);
  // The name of table line `line` and its column; throws when no built-in
  // table has it.
  std::string_view table_name(std::string_view line, int lineno, int &col);
  void empty_command(std::string_view line, int lineno);
  void chain_line(std::string_view line, int lineno);
  // `newline`: the line ended in a newline (not cut short by a NUL).
  void rule_line(std::string_view line, int lineno, BasicAppend *pre,
                 bool newline);
  [[noreturn]] void outside_table(std::string_view line, int lineno);
  bool ignored_outside() const;

  RuleParser &xt_;
  ParseOptions opts_;
  BlockSink &sink_;
  bool in_table_ = false;
  std::string table_;
  const BuiltinTable *builtin_ = nullptr; // table_'s (found once a block)
  int table_line_ = 0;
  bool skipping_ = false;                 // inside a table that -T excludes
  std::optional<std::string> last_table_; // of the last table line
  LexResult lex_;                         // reused from line to line
  BasicAppend basic_;
};

} // namespace fastrestore
