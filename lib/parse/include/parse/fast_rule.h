// A parser for the commonest rule line, native to fastrestore:
//
//   -A CHAIN [-s ADDR[/LEN]] [-d ADDR[/LEN]] [-i IFACE] [-o IFACE]
//            [-p tcp|udp [-m tcp|udp] [--sport P[:P]] [--dport P[:P]]]
//            [-j ACCEPT|DROP|RETURN|known-chain]
//
// with numeric addresses and ports only, each option once, no '!'. It
// builds exactly the Command libxtables' parse yields (the tcp and udp
// match payloads included); a unit test holds the two to the same output.
// Any other line, including every line iptables would refuse, is declined
// (false) and goes to XtParser's libxtables path, so errors and everything
// unusual keep iptables' own handling.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastrestore/ir.h"
#include "lex/lexer.h"
#include "sys/name_set.h"

namespace fastrestore {

class FastRuleParser {
public:
  explicit FastRuleParser(Family family) : family_(family) {}

  // A chain name: "-j NAME" then jumps to it (as libxtables does for an
  // announced chain).
  void announce_chain(std::string_view name) { chains_.insert(name); }
  const NameSet &chains() const { return chains_; }

  // From the words split_words made of a line.
  bool parse(const std::vector<Token> &words, const std::string &table,
             int line, const std::pair<uint64_t, uint64_t> *counters,
             Command &out) const;

  // From the text of a line after any [p:b] prefix, which takes the
  // first `col_offset` columns; splits it as split_words would (a line
  // with a quote is declined) and allocates nothing.
  bool scan(std::string_view text, int col_offset, const std::string &table,
            int line, const std::pair<uint64_t, uint64_t> *counters,
            BasicAppend &out) const;

  // scan() without what depends on the block (the table, the chains
  // declared): it touches nothing shared, so another thread can run it
  // ahead of the line's turn. settle() then finishes it, or declines.
  static bool prescan(Family family, std::string_view text, BasicAppend &out);
  bool settle(BasicAppend &a, const std::string &table, int line,
              const std::pair<uint64_t, uint64_t> *counters) const;

private:
  // Trivial, so that an array of them costs nothing to set up.
  struct Word {
    const char *data;
    size_t size;
    int col_begin, col_end;
    std::string_view text() const { return {data, size}; }
  };
  // The most words a line of the shape above has.
  static constexpr size_t kMaxWords = 18;

  // The words of `text`, as split_words would make them.
  static bool split(std::string_view text, int col_offset, Word *w, size_t &n);
  static bool parse_words(Family family, const Word *words, size_t n,
                          BasicAppend &out);

  Family family_;
  NameSet chains_;
};

} // namespace fastrestore
