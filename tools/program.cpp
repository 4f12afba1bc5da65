#include "program.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <iostream>
#include <set>

#include "fastrestore/version.h"

namespace po = boost::program_options;

namespace fastrestore {
namespace {

std::string base_name(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool starts_with(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The kind and family a tool name stands for; false for other names.
bool tool_name(const std::string &name, Program &p) {
  const bool ip4 = starts_with(name, "iptables");
  const bool ip6 = starts_with(name, "ip6tables");
  const bool eb = starts_with(name, "ebtables");
  if (!ip4 && !ip6 && !eb)
    return false;
  if (ends_with(name, "-save"))
    p.kind = ProgramKind::save;
  else if (ends_with(name, "-restore"))
    p.kind = eb ? ProgramKind::ebtables_restore : ProgramKind::restore;
  else if (eb && (name == "ebtables" || name == "ebtables-nft"))
    p.kind = ProgramKind::ebtables;
  else if (name == "iptables" || name == "ip6tables" ||
           name == "iptables-nft" || name == "ip6tables-nft")
    p.kind = ProgramKind::iptables;
  else
    return false; // another name: family left alone
  p.family = ip6 ? Family::ipv6 : eb ? Family::bridge : Family::ipv4;
  return true;
}

// The file execvp ran for a name without a slash: the first executable
// of that name along PATH.
std::string search_path(const std::string &name) {
  const char *env = getenv("PATH");
  std::string path = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos)
      colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = colon + 1;
  }
  return "";
}

} // namespace

UpstreamTool upstream_tool(const Program &p) {
  const bool legacy = p.backend == Backend::legacy;
  const std::string version = std::string(FASTRESTORE_IPTABLES_VERSION) +
                              (legacy ? " (legacy)" : " (nf_tables)");
  switch (p.kind) {
  case ProgramKind::restore:
    if (legacy)
      return {p.family == Family::ipv6 ? "ip6tables-restore"
                                       : "iptables-restore",
              version};
    return {base_name(p.argv0), version};
  case ProgramKind::ebtables_restore:
    return {"ebtables-restore", version};
  default:
    return {};
  }
}

Program identify_program(const char *argv0) {
  Program p;
  p.argv0 = argv0;
  std::string path = argv0;
  if (path.find('/') == std::string::npos)
    path = search_path(path);
  bool kind_found = tool_name(base_name(argv0), p);
  bool backend_found = false;
  if (kind_found)
    p.name = base_name(argv0);
  // At most 40 links, as the kernel follows.
  for (int hop = 0; hop < 40 && !path.empty(); ++hop) {
    const std::string name = base_name(path);
    if (!kind_found && tool_name(name, p)) {
      kind_found = true;
      p.name = name;
    }
    if (!backend_found && (name.find("-legacy") != std::string::npos ||
                           name.find("-nft") != std::string::npos)) {
      backend_found = true;
      p.backend = name.find("-legacy") != std::string::npos ? Backend::legacy
                                                            : Backend::nft;
    }
    char buf[PATH_MAX];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    if (n <= 0)
      break;
    std::string target(buf, static_cast<size_t>(n));
    if (target[0] != '/') {
      size_t slash = path.rfind('/');
      target = (slash == std::string::npos ? "." : path.substr(0, slash)) +
               "/" + target;
    }
    path = target;
  }
  if (!kind_found)
    p.name = "fastrestore";
  return p;
}

void print_version(Backend backend) {
  std::cout << "fastrestore v" << kVersion << " " << backend_label(backend)
            << "\n";
}

bool parse_backend(const std::string &word, Backend &out) {
  if (word != "nft" && word != "legacy")
    return false;
  out = word == "legacy" ? Backend::legacy : Backend::nft;
  return true;
}

po::variables_map
parse_command_line(const std::vector<std::string> &args,
                   const po::options_description &options,
                   const po::positional_options_description &positional) {
  po::parsed_options parsed = po::command_line_parser(args)
                                  .options(options)
                                  .positional(positional)
                                  .style(po::command_line_style::unix_style)
                                  .run();
  // The last of each named option only (positional ones all stay).
  std::set<std::string> seen;
  std::vector<po::option> kept;
  for (auto it = parsed.options.rbegin(); it != parsed.options.rend(); ++it)
    if (it->position_key >= 0 || seen.insert(it->string_key).second)
      kept.insert(kept.begin(), *it);
  parsed.options = std::move(kept);
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  return vm;
}

namespace {

// The line the replaced tool prints after getopt's message.
std::string hint(const Program &p, const std::string &sub) {
  const std::string base = base_name(p.argv0);
  const char *family = p.family == Family::ipv6 ? "ip6tables" : "iptables";
  switch (p.kind) {
  case ProgramKind::restore:
    return std::string("Try `") +
           (p.backend == Backend::legacy ? family + std::string("-restore")
                                         : base) +
           " -h' for more information.";
  case ProgramKind::save:
    return std::string("Look at manual page `") +
           (p.backend == Backend::legacy ? family + std::string("-save")
                                         : base) +
           ".8' for more information.";
  case ProgramKind::ebtables_restore:
    return "Usage: ebtables-restore [ --verbose ] [ --noflush ]";
  case ProgramKind::ebtables:
    return "Try `ebtables -h' or 'ebtables --help' for more information.";
  case ProgramKind::iptables:
    return std::string("Try `") + family + " -h' or '" + family +
           " --help' for more information.";
  case ProgramKind::fastrestore:
    break;
  }
  return "Try `fastrestore" + (sub.empty() ? "" : " " + sub) +
         " --help' for more information.";
}

// getopt's wording of a Boost error: "unrecognized option '--bogus'",
// "invalid option -- 'x'", "option requires an argument -- 'T'", ...
std::string getopt_message(const po::error &e,
                           const po::options_description &known,
                           const std::vector<std::string> &args) {
  if (auto *u = dynamic_cast<const po::unknown_option *>(&e)) {
    const std::string o = u->get_option_name();
    if (o.size() >= 2 && o[0] == '-' && o[1] != '-') {
      // A bundle of short options (-cx): getopt names the first unknown.
      size_t i = 1;
      while (i + 1 < o.size() &&
             known.find_nothrow("-" + o.substr(i, 1), false) != nullptr)
        ++i;
      return "invalid option -- '" + o.substr(i, 1) + "'";
    }
    return "unrecognized option '" + o + "'";
  }
  if (auto *a = dynamic_cast<const po::ambiguous_option *>(&e)) {
    std::string m =
        "option '" + a->get_option_name() + "' is ambiguous; possibilities:";
    for (const auto &alt : a->alternatives())
      m += " '--" + alt + "'";
    return m;
  }
  if (auto *s = dynamic_cast<const po::invalid_command_line_syntax *>(&e)) {
    const std::string o = s->get_option_name();
    switch (s->kind()) {
    case po::invalid_syntax::missing_parameter: {
      // Only the last word can lack its value; Boost names the option by
      // its long name however it was spelt.
      const std::string last = args.empty() ? o : args.back();
      if (last.size() >= 2 && last[0] == '-' && last[1] != '-')
        return "option requires an argument -- '" +
               last.substr(last.size() - 1) + "'";
      return "option '" + o + "' requires an argument";
    }
    case po::invalid_syntax::extra_parameter:
      return "option '" + o + "' doesn't allow an argument";
    default:
      break;
    }
  }
  return e.what();
}

} // namespace

int command_line_error(const Program &p, const po::error &e,
                       const po::options_description &known,
                       const std::vector<std::string> &args,
                       const std::string &sub) {
  if (dynamic_cast<const po::too_many_positional_options_error *>(&e)) {
    if (p.kind == ProgramKind::fastrestore)
      return command_line_error(p,
                                "unknown arguments found on the command "
                                "line (one FILE at most)",
                                sub);
    std::cerr << "Unknown arguments found on commandline\n";
    return 1;
  }
  return command_line_error(p, getopt_message(e, known, args), sub);
}

int command_line_error(const Program &p, const std::string &message,
                       const std::string &sub) {
  std::string who = p.argv0;
  if (p.kind == ProgramKind::fastrestore)
    who = sub.empty() ? "fastrestore" : "fastrestore " + sub;
  std::cerr << who << ": " << message << "\n" << hint(p, sub) << "\n";
  return 1;
}

bool parse_words(
    const Program &p, const std::vector<std::string> &args,
    const boost::program_options::options_description &options,
    const boost::program_options::positional_options_description &positional,
    boost::program_options::variables_map &vm, const std::string &sub) {
  namespace po = boost::program_options;
  try {
    vm = parse_command_line(args, options, positional);
  } catch (const po::error &e) {
    command_line_error(p, e, options, args, sub);
    return false;
  }
  return true;
}

bool parse_subcommand(
    const Program &p,
    const boost::program_options::options_description &options,
    const std::vector<std::string> &args, const std::string &sub,
    boost::program_options::variables_map &vm) {
  namespace po = boost::program_options;
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description pos;
  pos.add("file", 1);
  return parse_words(p, args, all, pos, vm, sub);
}

} // namespace fastrestore
