// ebtables rule lines through libxtables; see eb_parser.h. The option loop
// follows ebtables-nft 1.8.9's do_commandeb() for the commands a restore
// file holds, written for fastrestore with word positions in errors
// (eb_state.h: eb_loop.cpp, eb_finish.cpp).
#include "fastrestore/eb_parser.h"

#include "diag/stats.h"
#include "eb_state.h"
#include "sys/name_lookups.h"
#include "xtables/plugin_failure.h"
#include "xtables/xtables_setup.h"

namespace fastrestore {

namespace eb {
std::unordered_set<std::string> g_chains;
} // namespace eb

EbParser::EbParser() {
  use_xtables(Family::bridge, nullptr);
}

EbParser::~EbParser() = default;

// Kept here rather than announced to libxtables, whose 512-bucket hash of
// chain names grows quadratic with many chains.
void EbParser::announce_chain(std::string_view name) {
  eb::g_chains.emplace(name);
}

// The table does not change how an ebtables line parses (the chain checks
// are by name); counters come with -c in the line.
Command EbParser::parse(std::vector<Token> &words, const std::string &,
                        int line, std::string_view source,
                        const std::pair<uint64_t, uint64_t> *) {
  PhaseTimer timer(phase_stats().extensions_s);
  const LookupWatch watch; // name_lookups.h
  switch_xtables(Family::bridge);
  eb::Line l(words);
  try {
    Command c = l.run(line);
    c.loc = l.where(line);
    return c;
  } catch (PluginFailure &f) {
    Diagnostic d = diagnostic_of(f);
    d.loc = l.where(line);
    d.source = std::string(source);
    throw Error(std::move(d));
  }
}

} // namespace fastrestore
