// Sample records and a journal directory for the journal's tests
// (journal_test.cpp, journal_chain_test.cpp).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "journal/journal.h"

namespace fastrestore::test {

inline NetnsId ns(uint64_t cookie = 42) {
  return NetnsId{"0123456789abcdef0123456789abcdef", cookie};
}

inline TableState sample(size_t rules = 3) {
  TableState t;
  StateChain input;
  input.name = "INPUT";
  input.base = true;
  input.hook = 1;
  input.prio = -150;
  input.type = "filter";
  input.has_policy = true;
  input.policy = 0;
  for (size_t i = 0; i < rules; ++i)
    input.rules.push_back(
        {0x1111 * (i + 1), 1000 + 3 * i, 77 + i, false, 0, 0});
  input.rules.push_back({7, 5, 0, false, 0, 0}); // a smaller handle after
  t.fingerprint = 0xfeed;
  t.block = 0xb10c;
  t.next_handle = 0x1234567890;
  t.chains.push_back(input);
  StateChain web;
  web.name = "web";
  t.chains.push_back(web);
  StateChain returns; // a bridge user chain has a policy
  returns.name = "returns";
  returns.has_policy = true;
  returns.policy = 0xfffffffb;
  t.chains.push_back(returns);
  t.sets.push_back({"fastrestore-00112233445566aa", 0xd1ce, 10000});
  t.sets.push_back({"fastrestore-00112233445566bb", 0, 8});
  return t;
}

inline bool same(const TableState &a, const TableState &b) {
  if (a.chains.size() != b.chains.size() || a.fingerprint != b.fingerprint ||
      a.block != b.block || a.next_handle != b.next_handle || a.sets != b.sets)
    return false;
  for (size_t c = 0; c < a.chains.size(); ++c) {
    const StateChain &x = a.chains[c], &y = b.chains[c];
    if (x.name != y.name || x.base != y.base || x.hook != y.hook ||
        x.prio != y.prio || x.type != y.type || x.has_policy != y.has_policy ||
        x.policy != y.policy || x.rules.size() != y.rules.size())
      return false;
    for (size_t r = 0; r < x.rules.size(); ++r)
      if (x.rules[r].key != y.rules[r].key ||
          x.rules[r].line != y.rules[r].line ||
          x.rules[r].handle != y.rules[r].handle)
        return false;
  }
  return true;
}

// A fresh root-only directory for one test.
struct Dir {
  std::string path;
  Dir() {
    char tmpl[] = "/tmp/journal_test.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Dir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name) const { return path + "/" + name; }
};

inline uint32_t gen(uint32_t g) {
  return g;
}

// Journal::record of `t` (nullptr: the table forgotten), the ruleset's
// generation being `now` when the journal asks.
inline bool keep(Journal &j, uint32_t family, const std::string &table,
                 uint32_t before, uint32_t after, const TableState *t,
                 uint32_t now, std::string *why) {
  Journal::Encoded e;
  if (t != nullptr)
    e = j.encode(family, table, *t);
  return j.record(
      family, table, before, after, t != nullptr ? &e : nullptr,
      [now] { return now; }, why);
}

} // namespace fastrestore::test
