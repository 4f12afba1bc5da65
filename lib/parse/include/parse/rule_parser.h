// What the restore line parser needs of a rule-line parser: XtParser for
// iptables lines, EbParser for ebtables lines.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastrestore/ir.h"
#include "lex/lexer.h"

namespace fastrestore {

class RuleParser {
public:
  virtual ~RuleParser() = default;
  // Parses the words of a rule line (after any [p:b] prefix) for `table`;
  // `counters` carries the prefix when --counters is in effect.
  virtual Command parse(std::vector<Token> &words, const std::string &table,
                        int line, std::string_view source,
                        const std::pair<uint64_t, uint64_t> *counters) = 0;
  // The commonest line's shape without splitting it into words (see
  // BasicAppend): `text` follows any [p:b] prefix, which takes the first
  // `col_offset` columns. False: not that shape, use parse().
  virtual bool parse_basic(std::string_view text, int col_offset,
                           const std::string &table, int line,
                           const std::pair<uint64_t, uint64_t> *counters,
                           BasicAppend &out) {
    (void)text, (void)col_offset, (void)table, (void)line, (void)counters,
        (void)out;
    return false;
  }
  // Finishes a BasicAppend made ahead of its turn from a whole line
  // (FastRuleParser::prescan) with what depends on the block; false: not
  // after all, use parse().
  virtual bool settle_basic(BasicAppend &a, const std::string &table,
                            int line) {
    (void)a, (void)table, (void)line;
    return false;
  }
  // A chain declared in the input: "-j NAME" jumps to it.
  virtual void announce_chain(std::string_view name) = 0;
  virtual Family family() const = 0;
};

} // namespace fastrestore
