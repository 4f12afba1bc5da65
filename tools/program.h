// Who the program is. fastrestore answers to the names of the tools it
// replaces (iptables-restore, ip6tables-legacy-save, ebtables, ...); the
// name decides the kind of command, the family and the backend, and how
// command-line errors are worded. Callers run the names update-alternatives
// manages (/usr/sbin/iptables-restore), which hide the backend's name, so
// the links the program was reached through are followed too: the first
// name along them that says -legacy or -nft picks the backend.
#pragma once

#include <boost/program_options.hpp>

#include <string>
#include <vector>

#include "fastrestore/backend.h"
#include "fastrestore/diagnostic.h"
#include "fastrestore/ir.h"

namespace fastrestore {

enum class ProgramKind {
  fastrestore,
  restore,
  save,
  ebtables,
  ebtables_restore,
  iptables // the iptables command line (iptables, ip6tables, -nft)
};

struct Program {
  ProgramKind kind = ProgramKind::fastrestore;
  Family family = Family::ipv4;
  Backend backend = Backend::nft;
  std::string argv0; // as given: getopt's messages start with it
  std::string name;  // the tool name that decided the kind
};

Program identify_program(const char *argv0);

// The replaced tool's name and version as it prints them in its messages
// ("iptables-nft-restore v1.8.9 (nf_tables): ..."; the legacy tool says
// "iptables-restore" under any name), for a restore run under an upstream
// tool's name; an empty name for fastrestore's own.
UpstreamTool upstream_tool(const Program &p);

// "fastrestore vX.Y.Z (nf_tables)" (or "(legacy)") on stdout, for -V.
void print_version(Backend backend);

// The backend --backend names (nft or legacy); false for another word.
bool parse_backend(const std::string &word, Backend &out);

// Parses args (without the program name) in Unix style, as getopt_long
// does: an option given twice takes its last value. Throws po::error.
boost::program_options::variables_map parse_command_line(
    const std::vector<std::string> &args,
    const boost::program_options::options_description &options,
    const boost::program_options::positional_options_description &positional);

// A command-line error as the replaced tool words it (getopt's message,
// then the tool's hint line), printed to stderr; returns the exit status
// (1, as iptables-restore, iptables-save and ebtables-restore exit).
// `known` and `args` are what was parsed; `sub` names a fastrestore
// subcommand ("save", "commit") or is empty.
int command_line_error(const Program &p, const boost::program_options::error &e,
                       const boost::program_options::options_description &known,
                       const std::vector<std::string> &args,
                       const std::string &sub = "");
// The same for a message of fastrestore's own.
int command_line_error(const Program &p, const std::string &message,
                       const std::string &sub = "");

// `args` (the words after the program's or subcommand's name) parsed with
// `options` and `positional`; false after the error is printed as
// command_line_error prints it for `sub` (exit status 1).
bool parse_words(
    const Program &p, const std::vector<std::string> &args,
    const boost::program_options::options_description &options,
    const boost::program_options::positional_options_description &positional,
    boost::program_options::variables_map &vm, const std::string &sub);

// The same for a subcommand that takes `options` and at most one
// positional FILE (vm["file"]).
bool parse_subcommand(
    const Program &p,
    const boost::program_options::options_description &options,
    const std::vector<std::string> &args, const std::string &sub,
    boost::program_options::variables_map &vm);

} // namespace fastrestore
