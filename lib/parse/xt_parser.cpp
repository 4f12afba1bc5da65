// Rule-line parsing through libxtables; see xt_parser.h for the contract.
// The option loop mirrors iptables 1.8.9's do_parse(): same option table,
// same getopt_long conventions ("-" leading optstring, so words come back in
// order), same demand-loading of the protocol match, same checks after the
// loop. It is written for fastrestore and adds word positions to errors.
#include "fastrestore/xt_parser.h"

#include "fastrestore/chain_names.h"

#include "fastrestore/plugin_failure.h"
#include "fastrestore/stats.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <xtables.h>

#include <cctype>
#include <cstdarg>
#include <cstring>

#include "fastrestore/fast_rule.h"
#include "fastrestore/protocols.h"
#include "fastrestore/tables.h"
#include "xt_state.h"

namespace fastrestore {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == '\n')
    ++i;
  return s.substr(i);
}

__attribute__((noreturn)) void exit_err_cb(enum xtables_exittype status,
                                           const char *msg, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, msg);
  vsnprintf(buf, sizeof(buf), msg, ap);
  va_end(ap);
  throw PluginFailure{static_cast<int>(status), trim(buf)};
}

RevisionProbe *g_probe = nullptr;

int compat_rev_cb(const char *name, uint8_t rev, int opt) {
  return g_probe && g_probe->supported(name, rev, opt) ? 1 : 0;
}

// iptables' long options (the same names getopt_long resolves, including
// abbreviations).
struct option g_base_opts[] = {
    {"append", 1, nullptr, 'A'},        {"delete", 1, nullptr, 'D'},
    {"check", 1, nullptr, 'C'},         {"insert", 1, nullptr, 'I'},
    {"replace", 1, nullptr, 'R'},       {"list", 2, nullptr, 'L'},
    {"list-rules", 2, nullptr, 'S'},    {"flush", 2, nullptr, 'F'},
    {"zero", 2, nullptr, 'Z'},          {"new-chain", 1, nullptr, 'N'},
    {"delete-chain", 2, nullptr, 'X'},  {"rename-chain", 1, nullptr, 'E'},
    {"policy", 1, nullptr, 'P'},        {"source", 1, nullptr, 's'},
    {"destination", 1, nullptr, 'd'},   {"src", 1, nullptr, 's'},
    {"dst", 1, nullptr, 'd'},           {"protocol", 1, nullptr, 'p'},
    {"in-interface", 1, nullptr, 'i'},  {"jump", 1, nullptr, 'j'},
    {"table", 1, nullptr, 't'},         {"match", 1, nullptr, 'm'},
    {"numeric", 0, nullptr, 'n'},       {"out-interface", 1, nullptr, 'o'},
    {"verbose", 0, nullptr, 'v'},       {"wait", 2, nullptr, 'w'},
    {"wait-interval", 2, nullptr, 'W'}, {"exact", 0, nullptr, 'x'},
    {"fragments", 0, nullptr, 'f'},     {"version", 0, nullptr, 'V'},
    {"help", 2, nullptr, 'h'},          {"line-numbers", 0, nullptr, '0'},
    {"modprobe", 1, nullptr, 'M'},      {"set-counters", 1, nullptr, 'c'},
    {"goto", 1, nullptr, 'g'},          {"ipv4", 0, nullptr, '4'},
    {"ipv6", 0, nullptr, '6'},          {nullptr, 0, nullptr, 0},
};

xtables_globals g_globals = {
    0,       "fastrestore", "1.8.9 (nf_tables)", g_base_opts,
    nullptr, exit_err_cb,   compat_rev_cb,
};

bool g_initialised = false;

} // namespace

const char *kOptString() {
  return "-:A:C:D:E:F::I:L::M:N:P:VX::Z::c:d:i:j:o:p:s:t:R:S::W::46bfg:h::m:"
         "nvw::x";
}

XtParser::XtParser(Family family, std::unique_ptr<RevisionProbe> probe)
    : family_(family), fast_(std::make_unique<FastRuleParser>(family)) {
  static std::unique_ptr<RevisionProbe> owned;
  owned = std::move(probe);
  g_probe = owned.get();
  uint8_t proto = family == Family::ipv4 ? NFPROTO_IPV4 : NFPROTO_IPV6;
  if (!g_initialised) {
    if (xtables_init_all(&g_globals, proto) < 0)
      throw Error({{}, "failed to initialise libxtables", ExitCode::format});
    g_initialised = true;
  } else {
    xtables_set_nfproto(proto);
  }
}

XtParser::~XtParser() = default;

// libxtables keeps announced chains in a 512-bucket hash (a million
// chains would cost minutes of strcmp): the chains are kept here instead
// and looked up before libxtables is asked for a target.
void XtParser::announce_chain(const std::string &name) {
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
  Command cmd;
  if (fast_on_ && fast_->parse(words, table, line, counters, cmd))
    return cmd;
  XtRuleState st(family_, table, words, counters, &fast_->chains());
  try {
    st.run();
    return st.finish(line);
  } catch (PluginFailure &f) {
    Diagnostic d;
    d.loc = st.error_location(line);
    d.message = f.message;
    // iptables exits with the libxtables status itself.
    d.code = static_cast<ExitCode>(static_cast<int>(f.status));
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
