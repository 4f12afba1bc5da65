#include "parse/restore_parser.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "fastrestore/tables.h"
#include "lex/lexer.h"
#include "parse/chain_names.h"

namespace fastrestore {
namespace {

// How iptables-restore words a failure where fastrestore's words differ
// (Diagnostic::frame, upstream).
struct Words {
  Frame frame = Frame::by_code;
  std::optional<std::string> text;
};

[[noreturn]] void fail(int lineno, std::string_view source, std::string msg,
                       ExitCode code, int col_begin = 0, int col_end = 0,
                       Words words = {}) {
  Diagnostic d;
  d.loc = Location{lineno, col_begin, col_end};
  d.message = std::move(msg);
  d.code = code;
  d.source = std::string(source);
  d.frame = words.frame;
  d.upstream = std::move(words.text);
  throw Error(std::move(d));
}

// A failure of the file's own structure (status 2), which
// iptables-restore words "PROG: line N MSG".
[[noreturn]] void fail_structure(int lineno, std::string_view source,
                                 const std::string &msg, int col_begin,
                                 int col_end) {
  fail(lineno, source, msg, ExitCode::parameter, col_begin, col_end,
       Words{Frame::tool_named, "line " + std::to_string(lineno) + " " + msg});
}

// The next word separated by blanks, as strtok(" \t\n") finds it.
std::string_view next_word(std::string_view s, size_t &pos, int &col) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t'))
    ++pos;
  size_t start = pos;
  while (pos < s.size() && s[pos] != ' ' && s[pos] != '\t')
    ++pos;
  col = static_cast<int>(start) + 1;
  return s.substr(start, pos - start);
}

bool parse_counter_pair(std::string_view s, uint64_t &p, uint64_t &b) {
  std::string tmp(s);
  unsigned long long pp, bb;
  if (sscanf(tmp.c_str(), "[%llu:%llu]", &pp, &bb) != 2)
    return false;
  p = pp;
  b = bb;
  return true;
}

} // namespace

void BlockCollector::begin(const std::string &table, const Location &loc) {
  block_ = Block{};
  block_.table = table;
  block_.loc = loc;
}

void BlockCollector::declare(ChainDecl &&decl) {
  block_.entries.push_back({std::move(decl), std::nullopt});
}

void BlockCollector::command(Command &&cmd) {
  block_.entries.push_back({std::nullopt, std::move(cmd)});
}

void BlockCollector::commit(const Location &loc) {
  block_.commit_loc = loc;
  on_commit_(std::move(block_));
}

RestoreParser::RestoreParser(RuleParser &xt, ParseOptions opts, BlockSink &sink)
    : xt_(xt), opts_(std::move(opts)), sink_(sink) {}

void RestoreParser::feed(std::string_view line, int lineno, BasicAppend *pre) {
  // iptables-restore handles lines as C strings: a NUL ends the line, which
  // then has no newline (an unterminated quote keeps none).
  const size_t nul = line.find('\0');
  const bool cut = nul != std::string_view::npos;
  if (cut) {
    line = line.substr(0, nul);
    pre = nullptr; // scanned with the bytes past the NUL
  }
  if (line.empty()) {
    if (cut) // not an empty line: a command of no words
      empty_command(line, lineno);
    return;
  }
  if (line[0] == '#') {
    if (opts_.verbose) {
      fwrite(line.data(), 1, line.size(), stdout);
      fputc('\n', stdout);
      fflush(stdout);
    }
    return;
  }
  if (in_table_ && line == "COMMIT") {
    in_table_ = false;
    sink_.commit(Location{lineno, 1, 6});
    return;
  }
  if (ends_table(line))
    next_table(line, lineno);
  if (line[0] == '*' && !in_table_) {
    begin_table(line, lineno);
    return;
  }
  if (skipping_) {
    if (line == "COMMIT")
      skipping_ = false;
    return;
  }
  if (line[0] == ':' && in_table_) {
    chain_line(line, lineno);
    return;
  }
  if (in_table_) {
    rule_line(line, lineno, pre, !cut);
    return;
  }
  if (!ignored_outside())
    outside_table(line, lineno);
}

bool RestoreParser::ignored_outside() const {
  // With -T, a line outside any block is passed over while the last table
  // line named another table; the legacy tool also before any table line.
  if (opts_.only_table.empty())
    return false;
  if (!last_table_)
    return opts_.legacy;
  return *last_table_ != opts_.only_table;
}

void RestoreParser::outside_table(std::string_view line, int lineno) {
  fail(lineno, line, "line is outside a table block (expected *TABLE)",
       ExitCode::format, 1, std::max(1, static_cast<int>(line.size())),
       Words{Frame::line_failed, ""});
}

void RestoreParser::empty_command(std::string_view line, int lineno) {
  if (skipping_)
    return;
  if (!in_table_) {
    if (!ignored_outside())
      outside_table(line, lineno);
    return;
  }
  // ebtables-restore takes a line without a command for a request of its
  // help text (which it prints) and goes on; iptables refuses it.
  if (xt_.family() == Family::bridge)
    return;
  fail(lineno, line, "no command specified", ExitCode::parameter);
}

void RestoreParser::next_table(std::string_view line, int lineno) {
  line = line.substr(0, line.find('\0'));
  int col = 0;
  table_name(line, lineno, col);
  end_table(lineno);
}

std::string_view RestoreParser::table_name(std::string_view line, int lineno,
                                           int &col) {
  size_t pos = 1;
  std::string_view name = next_word(line, pos, col);
  if (name.empty())
    fail_structure(lineno, line, "table name invalid", 1, 1);
  if (find_builtin_table(name, xt_.family()) != nullptr)
    return name;
  const std::string msg = "table name '" + std::string(name) + "' invalid";
  const int end = col + static_cast<int>(name.size()) - 1;
  if (!opts_.legacy)
    fail_structure(lineno, line, msg, col, end);
  // (the legacy tool finds no such table in the kernel)
  fail(lineno, line, msg, ExitCode::parameter, col, end,
       Words{Frame::tool_named,
             "unable to initialize table '" + std::string(name) + "'"});
}

void RestoreParser::end_table(int lineno) {
  in_table_ = false;
  sink_.commit(Location{lineno, 1, 1});
}

void RestoreParser::finish(int lines) {
  if (in_table_ && opts_.implicit_commit) {
    end_table(lines);
    return;
  }
  if (in_table_)
    fail(lines + 1, {},
         "COMMIT expected at line " + std::to_string(lines + 1) + " (table " +
             table_ + " opened at line " + std::to_string(table_line_) + ")",
         ExitCode::format, 0, 0,
         Words{Frame::tool_line,
               "COMMIT expected at line " + std::to_string(lines + 1)});
}

void RestoreParser::begin_table(std::string_view line, int lineno) {
  int col = 0;
  // Lines of a table -T leaves out are read and ignored up to its COMMIT,
  // or up to the next table line. The legacy tool compares the name with
  // -T before it checks it.
  if (opts_.legacy && !opts_.only_table.empty()) {
    size_t pos = 1;
    std::string_view word = next_word(line, pos, col);
    if (!word.empty() && word != opts_.only_table) {
      last_table_ = std::string(word);
      skipping_ = true;
      return;
    }
  }
  std::string_view name = table_name(line, lineno, col);
  last_table_ = std::string(name);
  skipping_ = !opts_.only_table.empty() && name != opts_.only_table;
  if (skipping_)
    return;
  in_table_ = true;
  table_ = std::string(name);
  builtin_ = find_builtin_table(table_, xt_.family());
  table_line_ = lineno;
  sink_.begin(table_,
              Location{lineno, col, col + static_cast<int>(name.size()) - 1});
}

bool RestoreParser::hand_over(std::string_view line, int lineno, LineFilter &to,
                              uint64_t hash) {
  if (!in_block() || line == "COMMIT" || !to.takes(line, lineno, hash))
    return false;
  if (line.empty() || line.front() != ':')
    return true;
  size_t pos = 1;
  int col = 0;
  const std::string_view name = next_word(line, pos, col);
  if (name.empty())
    return true;
  if (find_builtin_chain(*builtin_, name) == nullptr)
    xt_.announce_chain(name);
  return true;
}

void RestoreParser::chain_line(std::string_view line, int lineno) {
  size_t pos = 1;
  int col = 0, pcol = 0, ccol = 0;
  std::string_view name = next_word(line, pos, col);
  int name_end = col + static_cast<int>(name.size()) - 1;
  if (name.empty())
    fail_structure(lineno, line, "chain name invalid", 1, 1);
  if (name.size() >= 29)
    fail(lineno, line,
         "chain name `" + std::string(name) +
             "' too long (must be under 29 chars)",
         ExitCode::parameter, col, name_end,
         opts_.legacy
             ? Words{Frame::tool, "Invalid chain name `" + std::string(name) +
                                      "' (28 chars max)"}
             : Words{});
  // iptables-legacy-restore sets a policy on such a chain before anything
  // looks at its name, and refuses that (a user chain has no policy).
  std::string_view policy = next_word(line, pos, pcol);
  const bool legacy_policy = opts_.legacy && !policy.empty() && policy != "-";
  if ((name[0] == '-' || name[0] == '!') && !legacy_policy)
    fail(lineno, line,
         std::string("chain name not allowed to start with `") + name[0] + "'",
         ExitCode::parameter, col, name_end);
  // iptables-legacy-restore leaves these to libiptc (see ParseOptions).
  if (!opts_.legacy && is_verdict_name(name))
    fail(lineno, line, "chain name may not clash with target name",
         ExitCode::parameter, col, name_end);
  if (!opts_.legacy && has_white_space(name))
    fail(lineno, line, "Invalid chain name `" + std::string(name) + "'",
         ExitCode::parameter, col, name_end);
  if (policy.empty())
    fail_structure(lineno, line, "policy invalid", col, name_end);

  ChainDecl d;
  d.loc = Location{lineno, col, name_end};
  d.name = std::string(name);
  d.policy = std::string(policy);
  d.builtin = find_builtin_chain(*builtin_, name) != nullptr;
  // With -c, iptables-nft reads a built-in chain's counters; the legacy
  // tool those of any chain whose policy is not "-", and checks them before
  // the policy. iptables-nft checks the policy itself at COMMIT (see
  // declared_policy), the legacy tool here.
  const bool with_policy = opts_.legacy ? policy != "-" : d.builtin;
  if (opts_.counters && with_policy) {
    std::string_view ctrs = next_word(line, pos, ccol);
    if (ctrs.empty() || !parse_counter_pair(ctrs, d.packets, d.bytes))
      fail(lineno, line, "invalid policy counters for chain '" + d.name + "'",
           ExitCode::parameter, ccol,
           ccol + static_cast<int>(ctrs.size()) - (ctrs.empty() ? 0 : 1));
  }
  if (opts_.legacy && d.builtin && with_policy && policy != "ACCEPT" &&
      policy != "DROP")
    fail(lineno, line, "Bad policy name `" + d.policy + "'", ExitCode::format,
         pcol, pcol + static_cast<int>(policy.size()) - 1,
         Words{Frame::tool, "Can't set policy `" + d.policy + "' on `" +
                                d.name + "' line " + std::to_string(lineno) +
                                ": Bad policy name"});
  if (!d.builtin)
    xt_.announce_chain(d.name);
  sink_.declare(std::move(d));
}

void RestoreParser::rule_line(std::string_view line, int lineno,
                              BasicAppend *pre, bool newline) {
  // A scan made ahead of the line's turn is finished here; if it is not
  // after all, scanning the text again would not change that.
  if (pre != nullptr && xt_.settle_basic(*pre, table_, lineno)) {
    sink_.append_basic(*pre);
    return;
  }
  std::string_view rest = line;
  int offset = 0;
  std::pair<uint64_t, uint64_t> ctr{0, 0};
  bool have_ctr = false;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos)
      fail(lineno, line, "Bad line " + std::to_string(lineno) + ": need ]",
           ExitCode::parameter, 1, static_cast<int>(line.size()));
    std::string_view inner = rest.substr(1, close - 1);
    size_t colon = inner.find(':');
    if (colon == std::string_view::npos || colon == 0)
      fail(lineno, line, "Bad line " + std::to_string(lineno) + ": need :",
           ExitCode::parameter, 1, static_cast<int>(close) + 1,
           // (iptables' strtok finds no second counter, and says so)
           Words{Frame::tool,
                 "Bad line " + std::to_string(lineno) + ": need ]"});
    if (colon + 1 >= inner.size())
      fail(lineno, line, "Bad line " + std::to_string(lineno) + ": need ]",
           ExitCode::parameter, 1, static_cast<int>(close) + 1);
    if (opts_.counters) {
      std::string p(inner.substr(0, colon)), b(inner.substr(colon + 1));
      unsigned long long pp = 0, bb = 0;
      if (sscanf(p.c_str(), "%llu", &pp) != 1)
        fail(lineno, line, "-c packet counter not numeric", ExitCode::parameter,
             2, static_cast<int>(colon) + 1);
      if (sscanf(b.c_str(), "%llu", &bb) != 1)
        fail(lineno, line, "-c byte counter not numeric", ExitCode::parameter,
             static_cast<int>(colon) + 3, static_cast<int>(close));
      ctr = {pp, bb};
      have_ctr = true;
    }
    offset = static_cast<int>(close) + 1;
    rest = rest.substr(close + 1);
  }
  if (pre == nullptr && xt_.parse_basic(rest, offset, table_, lineno,
                                        have_ctr ? &ctr : nullptr, basic_)) {
    sink_.append_basic(basic_);
    return;
  }
  LexResult &lex = lex_;
  split_words(rest, lex, newline);
  if (!lex.error.empty())
    fail(lineno, line, lex.error, ExitCode::parameter, lex.error_col + offset,
         static_cast<int>(line.size()));
  for (auto &t : lex.tokens) {
    t.col_begin += offset;
    t.col_end += offset;
  }
  Command cmd =
      xt_.parse(lex.tokens, table_, lineno, line, have_ctr ? &ctr : nullptr);
  if (cmd.kind == CommandKind::none)
    return;
  sink_.command(std::move(cmd));
}

} // namespace fastrestore
