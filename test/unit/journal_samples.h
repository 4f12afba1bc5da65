// Sample records and a journal directory for the journal's tests
// (journal_test.cpp, journal_chain_test.cpp, the journal fuzz target).
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

// A chain and its rules as the journal keeps them (counters aside).
inline bool same_chain(const StateChain &a, const StateChain &b) {
  if (a.name != b.name || a.base != b.base || a.hook != b.hook ||
      a.prio != b.prio || a.type != b.type || a.has_policy != b.has_policy ||
      a.policy != b.policy || a.rules.size() != b.rules.size())
    return false;
  for (size_t i = 0; i < a.rules.size(); ++i)
    if (a.rules[i].key != b.rules[i].key ||
        a.rules[i].line != b.rules[i].line ||
        a.rules[i].handle != b.rules[i].handle)
      return false;
  return true;
}

inline bool same(const TableState &a, const TableState &b) {
  if (a.chains.size() != b.chains.size() || a.fingerprint != b.fingerprint ||
      a.block != b.block || a.next_handle != b.next_handle || a.sets != b.sets)
    return false;
  for (size_t c = 0; c < a.chains.size(); ++c)
    if (!same_chain(a.chains[c], b.chains[c]))
      return false;
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
