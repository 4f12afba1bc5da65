#include "iptables_cli.h"

#include <linux/netfilter.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "fastrestore/restore.h"
#include "fastrestore/tables.h"
#include "fastrestore/text_save.h"
#include "iptables_args.h"
#include "program.h"

namespace fastrestore {
namespace {

// The command line's name and version as iptables-nft prints them.
struct Self {
  std::string name; // "iptables" or "ip6tables"
  UpstreamTool tool;
  Family family = Family::ipv4;
  uint32_t nfproto() const {
    return family == Family::ipv6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
  }
};

std::string hint(const Self &s) {
  return "Try `" + s.name + " -h' or '" + s.name +
         " --help' for more information.\n";
}

// A parameter problem (status 2): "NAME vVERSION: MESSAGE", then the hint
// (the hint alone for an empty message).
int parameter_problem(const Self &s, const std::string &message,
                      bool bare = false) {
  if (!message.empty())
    std::cerr << (bare ? "" : s.tool.name + " v" + s.tool.version + ": ")
              << message << "\n";
  std::cerr << hint(s);
  return 2;
}

const char kUsage[] =
    "Usage: fastrestore iptables|ip6tables [-t TABLE] COMMAND [CHAIN] "
    "[RULE]\n"
    "       (or the program invoked as iptables, ip6tables, iptables-nft,\n"
    "       ip6tables-nft)\n"
    "Commands: -A CHAIN RULE, -C CHAIN RULE, -D CHAIN RULE, -D CHAIN N,\n"
    "  -I CHAIN [N] RULE, -R CHAIN N RULE, -S [CHAIN [N]], -F [CHAIN],\n"
    "  -Z [CHAIN], -N CHAIN, -X [CHAIN], -P CHAIN POLICY, -E OLD NEW.\n"
    "Options: -4, -6, -v, -w [SECONDS], -W USEC, --modprobe CMD, -V.\n"
    "Rules are written as for iptables, every match and target through\n"
    "the installed libxtables plugins; each command is one nf_tables\n"
    "transaction that reads only the chain it names.\n";

// A save line of the table, as iptables -S prints it: a chain's
// declaration as -P (a built-in chain) or -N, a rule as it is; with -v,
// the counters as "-c P B" after the policy or before the rule's target.
// Other lines (the table's, COMMIT) give "".
std::string list_rule_line(const std::string &line, bool verbose) {
  if (line.empty() || line[0] == '*' || line[0] == '#' || line == "COMMIT")
    return "";
  std::string counters; // " -c P B"
  std::string text = line;
  if (text[0] == '[') { // [P:B] -A ...
    const size_t colon = text.find(':'), close = text.find("] ");
    counters = " -c " + text.substr(1, colon - 1) + " " +
               text.substr(colon + 1, close - colon - 1);
    text = text.substr(close + 2);
  }
  if (text[0] == ':') { // :NAME POLICY [P:B]
    const size_t sp = text.find(' '), sp2 = text.find(' ', sp + 1);
    const std::string name = text.substr(1, sp - 1);
    const std::string policy = text.substr(sp + 1, sp2 - sp - 1);
    if (policy == "-")
      return "-N " + name;
    std::string c;
    if (verbose && sp2 != std::string::npos) {
      const std::string pb = text.substr(sp2 + 2, text.size() - sp2 - 3);
      const size_t colon = pb.find(':');
      c = " -c " + pb.substr(0, colon) + " " + pb.substr(colon + 1);
    }
    return "-P " + name + " " + policy + c;
  }
  if (!verbose)
    return text;
  // The target starts at the first " -j " or " -g " outside quotes.
  bool quoted = false;
  for (size_t i = 0; i + 4 <= text.size(); ++i) {
    if (text[i] == '\\' && quoted) {
      ++i;
      continue;
    }
    if (text[i] == '"')
      quoted = !quoted;
    if (!quoted &&
        (text.compare(i, 4, " -j ") == 0 || text.compare(i, 4, " -g ") == 0))
      return text.substr(0, i) + counters + text.substr(i);
  }
  return text + counters;
}

// Whether -S's line `out` is of chain `chain`.
bool named(const std::string &out, const std::string &chain) {
  const std::string name = out.substr(3, out.find(' ', 3) - 3);
  return name == chain;
}

// -S [CHAIN [N]]: the chain named (only it is read), or every chain of
// the table, in iptables-save's order; a built-in chain the kernel lacks
// as iptables-nft shows it (policy ACCEPT, no rules), as the save does.
int list_rules(const Self &s, const IptablesArgs &a, nft::Transport &t,
               const BuiltinTable &bt) {
  KernelTable kt = a.chain.empty()
                       ? t.read_table(s.nfproto(), a.table)
                       : t.read_chains(s.nfproto(), a.table, {a.chain});
  const bool listed =
      std::any_of(kt.chains.begin(), kt.chains.end(),
                  [&](const KernelChain &c) { return c.name == a.chain; });
  if (!a.chain.empty() && !listed &&
      find_builtin_chain(bt, a.chain) == nullptr) {
    std::cerr << s.tool.name << " v" << s.tool.version << ": chain `" << a.chain
              << "' in table `" << a.table
              << "' is incompatible, use 'nft' tool.\n";
    return 1;
  }
  kt.name = a.table;
  kt.exists = true;
  TextSaveOptions opts;
  opts.family = s.family;
  opts.counters = a.verbose > 0;
  std::string text, error;
  const int rc = table_save_text(opts, kt, text, &error);
  if (rc != 0) {
    std::cerr << s.name << ": " << error << "\n";
    return rc;
  }
  const size_t wanted = a.number.empty() ? 0 : std::stoul(a.number);
  size_t rule = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const std::string out = list_rule_line(line, a.verbose > 0);
    if (out.empty())
      continue;
    const bool is_rule = out.compare(0, 3, "-A ") == 0;
    // (The save declares every built-in chain: only CHAIN's lines.)
    if (!a.chain.empty() && !named(out, a.chain))
      continue;
    if (wanted != 0 && (!is_rule || ++rule != wanted))
      continue;
    std::cout << out << "\n";
  }
  return 0;
}

// -v -F, -v -Z and -v -X without a chain name each chain they touch: the
// built-in chains in hook order (-F makes those the kernel lacks, as
// iptables-nft does: `make` gets their declarations; -X names none),
// then the user chains by name.
std::vector<std::string> every_chain(const Self &s, const IptablesArgs &a,
                                     nft::Transport &t, const BuiltinTable &bt,
                                     std::string &make) {
  const KernelTable kt = t.read_chain_list(s.nfproto(), a.table);
  std::vector<std::string> names, users;
  for (const auto &kc : kt.chains)
    if (find_builtin_chain(bt, kc.name) == nullptr)
      users.push_back(kc.name);
  std::sort(users.begin(), users.end());
  if (a.command == 'X')
    return users; // (an idle built-in chain goes unnamed)
  auto exists = [&](const BuiltinChain &b) {
    return std::any_of(
        kt.chains.begin(), kt.chains.end(),
        [&](const KernelChain &kc) { return kc.name == b.name; });
  };
  // (Made in the table's own order, named in hook order.)
  for (int i = 0; i < bt.nchains && a.command == 'F'; ++i)
    if (!exists(bt.chains[i]))
      make += std::string(":") + bt.chains[i].name + " ACCEPT\n";
  for (const BuiltinChain *b : chains_in_hook_order(bt))
    if (a.command == 'F' || exists(*b))
      names.push_back(b->name);
  names.insert(names.end(), users.begin(), users.end());
  return names;
}

// A command that changes or checks the table: one --noflush block.
int kernel_command(const Self &s, const IptablesArgs &a, nft::Transport &t,
                   const BuiltinTable &bt) {
  const bool named = a.verbose > 0 && std::strchr("FZX", a.command) != nullptr;
  std::string make;
  std::vector<std::string> touched;
  if (named && a.chain.empty())
    touched = every_chain(s, a, t, bt, make);
  else if (named && (a.command != 'X' || !find_builtin_chain(bt, a.chain)))
    touched.push_back(a.chain); // (a built-in chain goes unnamed)
  RestoreConfig cfg;
  cfg.family = s.family;
  cfg.noflush = true;
  cfg.command_line = true;
  cfg.input_name = s.name;
  cfg.upstream = s.tool;
  cfg.verbose = a.verbose > 0 && std::strchr("ACDIR", a.command) ? 1 : 0;
  const std::string text =
      "*" + a.table + "\n" + make + iptables_restore_line(a) + "\nCOMMIT\n";
  const int rc = run_restore_text(text, cfg, &t, std::cerr);
  if (rc < 0) {
    std::cerr << s.name << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  // (Named as iptables-nft sends them: also when the kernel refuses,
  // status 4, a busy chain.)
  if (rc == 0 || rc == static_cast<int>(ExitCode::kernel))
    for (const auto &c : touched)
      std::cout << (a.command == 'F'   ? "Flushing"
                    : a.command == 'Z' ? "Zeroing"
                                       : "Deleting")
                << " chain `" << c << "'\n";
  return rc;
}

} // namespace

int iptables_main(const Program &program, int argc, char **argv) {
  Self s;
  s.family = program.family == Family::ipv6 ? Family::ipv6 : Family::ipv4;
  int first = 1;
  if (program.kind != ProgramKind::iptables) {
    // fastrestore iptables|ip6tables ARGS
    first = 2;
    s.family =
        std::strcmp(argv[1], "ip6tables") == 0 ? Family::ipv6 : Family::ipv4;
  }
  s.name = s.family == Family::ipv6 ? "ip6tables" : "iptables";
  s.tool = {s.name, std::string(FASTRESTORE_IPTABLES_VERSION) + " (nf_tables)"};
  std::vector<std::string> args(argv + first, argv + argc);
  IptablesArgs a;
  const auto error = read_iptables_args(args, s.family, a);
  // (Said as -W is read, before any error after it.)
  if (a.wait_interval)
    std::cerr << "Ignoring deprecated --wait-interval option.\n";
  if (error)
    return parameter_problem(s, error->message, error->bare);
  if (a.version) {
    std::cout << s.tool.name << " v" << s.tool.version << "\n";
    return 0;
  }
  if (a.help) {
    std::cout << kUsage;
    return 0;
  }
  if (a.command == 0)
    return parameter_problem(s, "no command specified");
  const BuiltinTable *bt = find_builtin_table(a.table, s.family);
  if (bt == nullptr) {
    std::cerr << s.tool.name << " v" << s.tool.version << ": table '" << a.table
              << "' does not exist\n"
              << "Perhaps " << s.name
              << " or your kernel needs to be upgraded.\n";
    return 3;
  }
  if (a.command == 'L')
    return parameter_problem(
        s, "-L is not in fastrestore's iptables command line yet; -S "
           "lists the rules");
  std::unique_ptr<nft::Transport> transport;
  try {
    transport = nft::make_netlink_transport();
    if (a.command == 'S')
      return list_rules(s, a, *transport, *bt);
    return kernel_command(s, a, *transport, *bt);
  } catch (const Error &e) {
    std::cerr << format_upstream_command(e.diag(), s.tool);
    return static_cast<int>(e.diag().code);
  }
}

} // namespace fastrestore
