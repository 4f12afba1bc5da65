// Per-line state of EbParser (private to lib/parse), split as XtParser's
// is: the option loop (eb_loop.cpp) and what follows it (eb_finish.cpp).
// ebtables' option table and the extensions it loads up front are
// libxtables' (xtables_bridge.h).
#pragma once

#include <getopt.h>
#include <xtables.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "fastrestore/ir.h"
#include "fastrestore/xtables_bridge.h"
#include "lex/lexer.h"

namespace fastrestore::eb {

// The declared chains: "-j NAME" jumps to one of them without asking
// libxtables for a target of that name.
extern std::unordered_set<std::string> g_chains;

// One match or watcher of the rule being parsed, with its own copy of the
// extension's data (the extension object is shared by every rule).
struct Item {
  xtables_match *match = nullptr;
  xtables_target *watcher = nullptr;
  xt_entry_match *m = nullptr;
  xt_entry_target *t = nullptr;
  unsigned flags = 0;
};

class Line {
public:
  explicit Line(std::vector<Token> &words) : words_(words) {
    argv_.push_back(const_cast<char *>("ebtables"));
    for (auto &w : words_)
      argv_.push_back(w.text.data());
    argv_.push_back(nullptr);
  }
  ~Line() {
    for (auto &it : items_) {
      free(it.m);
      free(it.t);
    }
    if (target_ != nullptr)
      reset_target(target_);
  }

  Command run(int line);
  Location where(int line) const {
    int i = std::min<int>(last_word_, static_cast<int>(words_.size())) - 1;
    if (i < 0 || words_.empty())
      return {line, 0, 0};
    int j = std::min<int>(i + (has_arg_ ? 1 : 0),
                          static_cast<int>(words_.size()) - 1);
    return {line, words_[i].col_begin, words_[j].col_end};
  }

private:
  int argc() const { return static_cast<int>(argv_.size()) - 1; }
  bool inverse(const char *option);
  void check_once(unsigned bit) {
    if (flags_ & bit)
      xtables_error(PARAMETER_PROBLEM, "Multiple use of same option not "
                                       "allowed");
    flags_ |= bit;
  }
  bool extension_option(int c);

  // The option loop's steps (eb_loop.cpp), one per kind of option.
  void need_rule_command() const;
  void command_option(int c, Command &cmd);
  void interface_option(int c, Rule &r, const std::string &chain);
  void jump_option(struct option *&opts);
  void mac_option(int c, Rule &r);
  void counters_option(Rule &r);
  void proto_option(Rule &r);
  // After the loop (eb_finish.cpp): the command's kind, the extensions'
  // final checks, and the rule.
  Command finish(Command cmd, Rule &r, int line);

  std::vector<Token> &words_;
  std::vector<char *> argv_;
  std::vector<Item> items_;
  xtables_target *target_ = nullptr;
  std::string jumpto_;
  int invert_ = 0;
  unsigned flags_ = 0;
  int last_word_ = 0;
  bool has_arg_ = false;
  char command_ = 0; // the line's command (its option letter), once seen
};

} // namespace fastrestore::eb
