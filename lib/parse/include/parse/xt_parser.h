// Parsing of one rule line (-A/-I/-D/... with its matches and target)
// through the installed libxtables plugins.
//
// The base options (-p -s -d -i -o -f -j -g -c and the commands) are handled
// here; every other option goes to the plugin that registered it, through
// libxtables' own option tables and getopt_long, so abbreviations,
// inversions, defaults and error texts are those of iptables 1.8.9. The
// result is a Command whose rules carry the plugins' binary blobs, so the
// libxtables per-rule state is released before the next line is parsed.
//
// libxtables is process-global: only one XtParser may exist at a time.
// Errors are thrown as fastrestore::Error with the line and the column range
// of the word being parsed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/ir.h"
#include "lex/lexer.h"
#include "parse/rule_parser.h"
#include "xtables/revision_probe.h"

namespace fastrestore {

class FastRuleParser;

class XtParser : public RuleParser {
public:
  XtParser(Family family, std::unique_ptr<RevisionProbe> probe);
  ~XtParser();
  XtParser(const XtParser &) = delete;
  XtParser &operator=(const XtParser &) = delete;

  // Parses the words of a rule line (after any [p:b] prefix) for `table`.
  // The words' text is used as argv and may be modified.
  // `counters` carries the [p:b] prefix when --counters is in effect.
  Command parse(std::vector<Token> &words, const std::string &table, int line,
                std::string_view source,
                const std::pair<uint64_t, uint64_t> *counters) override;

  bool parse_basic(std::string_view text, int col_offset,
                   const std::string &table, int line,
                   const std::pair<uint64_t, uint64_t> *counters,
                   BasicAppend &out) override;

  bool settle_basic(BasicAppend &a, const std::string &table,
                    int line) override;

  // Tells libxtables a name is a chain, so -j NAME never tries to load a
  // plugin of that name.
  void announce_chain(std::string_view name) override;

  Family family() const override { return family_; }

  // -L and -S lines are checked as the iptables command line checks them,
  // then do nothing (XtRuleState::allow_listing).
  void set_listing(bool on) { listing_ = on; }

  // Lines of the commonest shape are parsed natively (see fast_rule.h);
  // off, every line goes through libxtables (for tests).
  void set_fast_path(bool on) { fast_on_ = on; }

private:
  Family family_;
  std::unique_ptr<FastRuleParser> fast_;
  bool fast_on_ = true;
  bool listing_ = false;
};

} // namespace fastrestore
