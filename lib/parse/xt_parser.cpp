// Rule-line parsing through libxtables; see xt_parser.h for the contract.
// The option loop mirrors iptables 1.8.9's do_parse(): same option table,
// same getopt_long conventions ("-" leading optstring, so words come back in
// order), same demand-loading of the protocol match, same checks after the
// loop. It is written for fastrestore and adds word positions to errors.
#include "parse/xt_parser.h"

#include "parse/chain_names.h"
#include "sys/name_lookups.h"

#include "diag/stats.h"
#include "xtables/plugin_failure.h"
#include "xtables/xtables_setup.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <xtables.h>

#include <cctype>
#include <cstdarg>
#include <cstring>

#include "fastrestore/tables.h"
#include "parse/fast_rule.h"
#include "parse/protocols.h"
#include "xt_state.h"

namespace fastrestore {

const char *kOptString() {
  return "-:A:C:D:E:F::I:L::M:N:P:VX::Z::c:d:i:j:o:p:s:t:R:S::W::46bfg:h::m:"
         "nvw::x";
}

XtParser::XtParser(Family family, std::unique_ptr<RevisionProbe> probe)
    : family_(family), fast_(std::make_unique<FastRuleParser>(family)) {
  use_xtables(family, std::move(probe));
}

XtParser::~XtParser() = default;

// libxtables keeps announced chains in a 512-bucket hash (a million
// chains would cost minutes of strcmp): the chains are kept here instead
// and looked up before libxtables is asked for a target.
void XtParser::announce_chain(std::string_view name) {
  // A name with white space (legacy declares one) can never be jumped to:
  // -j refuses it as a target name, so the scanner must not take it.
  if (!has_white_space(name))
    fast_->announce_chain(name);
}

bool XtParser::parse_basic(std::string_view text, int col_offset,
                           const std::string &table, int line,
                           const std::pair<uint64_t, uint64_t> *counters,
                           BasicAppend &out) {
  PhaseTimer timer(phase_stats().extensions_s);
  return fast_on_ && fast_->scan(text, col_offset, table, line, counters, out);
}

bool XtParser::settle_basic(BasicAppend &a, const std::string &table,
                            int line) {
  return fast_on_ && fast_->settle(a, table, line, nullptr);
}

Command XtParser::parse(std::vector<Token> &words, const std::string &table,
                        int line, std::string_view source,
                        const std::pair<uint64_t, uint64_t> *counters) {
  PhaseTimer timer(phase_stats().extensions_s);
  const LookupWatch watch; // name_lookups.h
  Command cmd;
  if (fast_on_ && fast_->parse(words, table, line, counters, cmd))
    return cmd;
  switch_xtables(family_);
  XtRuleState st(family_, table, words, counters, &fast_->chains());
  if (listing_)
    st.allow_listing();
  try {
    st.run();
    return st.finish(line);
  } catch (PluginFailure &f) {
    // iptables exits with the libxtables status itself.
    Diagnostic d = diagnostic_of(f);
    d.loc = st.error_location(line);
    d.source = std::string(source);
    throw Error(std::move(d));
  } catch (Error &e) {
    e.diag().source = std::string(source);
    if (e.diag().loc.line == 0)
      e.diag().loc = st.error_location(line);
    throw;
  }
}

} // namespace fastrestore
