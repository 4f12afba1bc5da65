#include "helpers.h"

#include <cstdio>
#include <libnftnl/rule.h>

#include <memory>

#include "fastrestore/lexer.h"
#include "fastrestore/nft_rule.h"
#include "fastrestore/tables.h"

namespace fastrestore::test {
namespace {

class AllRevisions : public RevisionProbe {
public:
  bool supported(const char *, uint8_t, int) override { return true; }
};

} // namespace

XtParser &xt_parser(Family family) {
  static std::unique_ptr<XtParser> parser;
  if (!parser || parser->family() != family) {
    parser.reset();
    parser =
        std::make_unique<XtParser>(family, std::make_unique<AllRevisions>());
  }
  return *parser;
}

Command parse_line(const std::string &line, Family family,
                   const std::string &table) {
  LexResult lex = split_words(line);
  return xt_parser(family).parse(lex.tokens, table, 1, line, nullptr);
}

std::string render_rule(const std::string &line, Family family,
                        const std::string &table) {
  Command cmd = parse_line(line, family, table);
  if (cmd.rules.empty())
    return "<no rule>";
  // Render what would be sent: parse the encoded message back with
  // libnftnl and print it.
  std::string msg =
      nft::rule_message(cmd.rules.front(), family, table, cmd.chain);
  nftnl_rule *r = nftnl_rule_alloc();
  nftnl_rule_nlmsg_parse(reinterpret_cast<const nlmsghdr *>(msg.data()), r);
  char buf[8192];
  nftnl_rule_snprintf(buf, sizeof(buf), r, NFTNL_OUTPUT_DEFAULT, 0);
  nftnl_rule_free(r);
  // Keep only the expressions, one per line.
  std::string text(buf), out;
  size_t pos = 0;
  while ((pos = text.find("  [ ", pos)) != std::string::npos) {
    size_t end = text.find(" ]", pos);
    out += text.substr(pos + 2, end + 2 - pos - 2) + "\n";
    pos = end;
  }
  return out;
}

Diagnostic parse_error(const std::string &line, Family family,
                       const std::string &table) {
  try {
    parse_line(line, family, table);
  } catch (const Error &e) {
    return e.diag();
  }
  return {};
}

Plan one_rule_plan() {
  Plan p;
  p.table = "filter";
  p.loc.line = 1;
  p.replace = true;
  PlannedChain in;
  in.name = "INPUT";
  in.loc.line = 2;
  in.builtin = find_builtin_chain(*find_builtin_table("filter"), "INPUT");
  Command c = parse_line("-A INPUT -j ACCEPT");
  c.rules[0].loc.line = 3;
  in.rules = c.rules;
  p.chains.push_back(in);
  return p;
}

} // namespace fastrestore::test
