// libxtables' set-up and its switching between families (see
// xtables_setup.h): iptables' globals for ip and ip6 (its option table, an
// error handler that throws, revision questions asked through a
// RevisionProbe), ebtables' for the bridge (bridge.cpp).
#include "xtables/xtables_setup.h"

#include <getopt.h>
#include <xtables.h>

#include <linux/netfilter.h>

#include <cstdarg>
#include <cstdio>
#include <string>

#include "fastrestore/diagnostic.h"
#include "globals.h"
#include "xtables/plugin_failure.h"

namespace fastrestore {
namespace {

__attribute__((noreturn)) void exit_err_cb(enum xtables_exittype status,
                                           const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  throw_plugin_failure(status, msg, ap, true);
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

void throw_plugin_failure(enum xtables_exittype status, const char *fmt,
                          va_list ap, bool trim_leading) {
  char buf[2048];
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::string s = buf;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  size_t i = 0;
  while (trim_leading && i < s.size() && s[i] == '\n')
    ++i;
  throw PluginFailure{static_cast<int>(status), s.substr(i), buf};
}

namespace {

// libxtables set up once a process, whichever family comes first: setting
// it up again would also empty its hash of the names it found no target
// of, losing (and leaking) what it holds. Later calls switch the family.
void set_up(xtables_globals *globals, uint8_t proto) {
  if (g_initialised) {
    xtables_set_params(globals);
    xtables_set_nfproto(proto);
    return;
  }
  if (xtables_init_all(globals, proto) < 0)
    throw Error({{}, "failed to initialise libxtables", ExitCode::format});
  g_initialised = true;
}

} // namespace

void use_xtables(Family family, std::unique_ptr<RevisionProbe> probe) {
  if (family == Family::bridge) {
    set_up(&eb::g_eb, NFPROTO_BRIDGE);
    eb::load_all();
    return;
  }
  static std::unique_ptr<RevisionProbe> owned;
  owned = std::move(probe);
  g_probe = owned.get();
  set_up(&g_globals, family == Family::ipv4 ? NFPROTO_IPV4 : NFPROTO_IPV6);
}

void switch_xtables(Family family) {
  if (family == Family::bridge) {
    xtables_set_params(&eb::g_eb);
    xtables_set_nfproto(NFPROTO_BRIDGE);
    return;
  }
  xtables_set_params(&g_globals);
  xtables_set_nfproto(family == Family::ipv4 ? NFPROTO_IPV4 : NFPROTO_IPV6);
}

} // namespace fastrestore
