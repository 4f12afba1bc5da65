// ebtables' side of libxtables (implemented in lib/xtables, which owns
// libxtables' process-global state): ebtables' own option table, and the
// extensions ebtables-nft 1.8.9 loads up front, in its order, with the
// option table they make together. use_xtables(Family::bridge, ...) loads
// them; EbParser reads them for every line.
#pragma once

#include <string>
#include <vector>

struct option;
struct xtables_match;
struct xtables_target;

namespace fastrestore::eb {

// ebtables' short options, as getopt_long takes them.
extern const char kOptString[];

struct Loaded {
  std::vector<xtables_match *> matches;
  std::vector<xtables_target *> watchers, targets;
  struct option *opts = nullptr;
};
// The extensions loaded up front; null before use_xtables(Family::bridge).
const Loaded *loaded();

// An extension's data back to its initial state.
void reset_match(xtables_match *m);
void reset_target(xtables_target *t);
// `opts` with a target's options merged in (a new table, or `opts`).
struct option *merge(struct option *opts, xtables_target *t);

} // namespace fastrestore::eb

namespace fastrestore {

// The long option of ebtables' own table that `name` (without its dashes)
// names, as getopt_long resolves it: exactly, or as the unique start of
// one; empty when it names none or several.
std::string ebtables_long_option(const std::string &name);

} // namespace fastrestore
