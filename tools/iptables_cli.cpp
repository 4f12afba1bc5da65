#include "iptables_cli.h"

#include <linux/netfilter.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/ip_list.h"
#include "fastrestore/kernel_state.h"
#include "fastrestore/restore.h"
#include "fastrestore/restore_word.h"
#include "fastrestore/tables.h"
#include "fastrestore/text_save.h"
#include "fastrestore/unified_diff.h"
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
    "  -I CHAIN [N] RULE, -R CHAIN N RULE, -L [CHAIN [N]], -S [CHAIN [N]],\n"
    "  -F [CHAIN], -Z [CHAIN [N]], -N CHAIN, -X [CHAIN], -P CHAIN POLICY,\n"
    "  -E OLD NEW.\n"
    "Options: -4, -6, -v, -n, -x, --line-numbers, -w [SECONDS], -W USEC,\n"
    "  --modprobe CMD, -V.\n"
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

// The save lines of the chains `kt` holds (its table's lines too), with
// the counters when `counters`; 0, or the save's status with its message
// printed.
int save_lines(const Self &s, const std::string &table, KernelTable &kt,
               bool counters, std::vector<std::string> &lines) {
  kt.name = table;
  kt.exists = true;
  TextSaveOptions opts;
  opts.family = s.family;
  opts.counters = counters;
  std::string text, error;
  if (const int rc = table_save_text(opts, kt, text, &error); rc != 0) {
    std::cerr << s.name << ": " << error << "\n";
    return rc;
  }
  for (std::string_view line : split_lines(text))
    lines.emplace_back(line);
  return 0;
}

// -S [CHAIN [N]]: the chain named (only it is read), or every chain of
// the table, in iptables-save's order; a built-in chain the kernel lacks
// as iptables-nft shows it (policy ACCEPT, no rules), as the save does.
int list_rules(const Self &s, const IptablesArgs &a, nft::Transport &t,
               const BuiltinTable &bt) {
  KernelTable kt = a.chain.empty()
                       ? t.read_table(s.nfproto(), a.table)
                       : t.read_chains(s.nfproto(), a.table, {a.chain});
  if (!a.chain.empty() && !kt.find(a.chain) &&
      find_builtin_chain(bt, a.chain) == nullptr) {
    std::cerr << s.tool.name << " v" << s.tool.version << ": chain `" << a.chain
              << "' in table `" << a.table
              << "' is incompatible, use 'nft' tool.\n";
    return 1;
  }
  std::vector<std::string> lines;
  if (const int rc = save_lines(s, a.table, kt, a.verbose > 0, lines); rc != 0)
    return rc;
  const size_t wanted = a.rulenum;
  size_t rule = 0;
  for (const std::string &line : lines) {
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

// The restore's settings for a one-line block of the command line.
RestoreConfig command_config(const Self &s) {
  RestoreConfig cfg;
  cfg.family = s.family;
  cfg.noflush = true;
  cfg.command_line = true;
  cfg.input_name = s.name;
  cfg.upstream = s.tool;
  // A table's current journal record (--incremental) tells a command its
  // chain's rules; the command keeps the record current.
  cfg.incremental = true;
  cfg.journal_when_current = true;
  return cfg;
}

// -Z CHAIN N: rule N put back in its place with its counters zeroed, as
// iptables-nft does it (the rule as it reads it, sent as a replacement
// that keeps its handle): here its save text as -R. A missing chain is
// `Bad rule' (status 1); a rule number past the chain's end does nothing.
int zero_rule(const Self &s, const IptablesArgs &a, nft::Transport &t,
              const BuiltinTable &bt) {
  KernelTable kt = t.read_chains(s.nfproto(), a.table, {a.chain});
  if (!kt.find(a.chain)) {
    // iptables-nft's message comes from the errno its reads left: its
    // last read is of the table's built-in chain last by name, which
    // leaves EINVAL when that chain exists (a built-in chain named).
    std::string last;
    for (int i = 0; i < bt.nchains; ++i)
      last = std::max(last, std::string(bt.chains[i].name));
    const bool einval =
        find_builtin_chain(bt, a.chain) != nullptr &&
        t.read_chain_list(s.nfproto(), a.table).find(last) != nullptr;
    std::cerr << s.name
              << (einval ? ": Incompatible with this kernel.\n"
                         : ": Bad rule (does a matching rule exist in that "
                           "chain?).\n");
    return 1;
  }
  std::vector<std::string> lines;
  if (const int rc = save_lines(s, a.table, kt, false, lines); rc != 0)
    return rc;
  // (A rule that matches everything is "-A CHAIN" alone.)
  const std::string head = "-A " + a.chain;
  const size_t wanted = a.rulenum;
  size_t n = 0;
  for (const std::string &line : lines) {
    const bool of_chain =
        line == head || line.compare(0, head.size() + 1, head + " ") == 0;
    if (!of_chain || ++n != wanted)
      continue;
    const std::string block = "*" + a.table + "\n-R " + a.chain + " " +
                              a.number + line.substr(head.size()) +
                              "\nCOMMIT\n";
    return run_restore_text(block, command_config(s), &t, std::cerr);
  }
  return 0;
}

// -L [CHAIN [N]]: the chain named (only it is read), or every chain of
// the table, as iptables -L prints them.
int list_entries(const Self &s, const IptablesArgs &a, nft::Transport &t) {
  KernelTable kt = a.chain.empty()
                       ? t.read_table(s.nfproto(), a.table)
                       : t.read_chains(s.nfproto(), a.table, {a.chain});
  IpListOptions o;
  o.family = s.family;
  o.table = a.table;
  o.chain = a.chain;
  o.rule = a.rulenum;
  o.verbose = a.verbose > 0;
  o.numeric = a.numeric;
  o.exact = a.exact;
  o.line_numbers = a.line_numbers;
  std::string error;
  const int rc = iptables_list(o, kt, &error);
  if (rc != 0)
    std::cerr << s.tool.name << " v" << s.tool.version << ": " << error << "\n";
  return rc;
}

// -v -F, -v -Z and -v -X without a chain name each chain they touch: the
// built-in chains in hook order (-F and -L -Z make those the kernel
// lacks, as iptables-nft does: `make` gets their declarations; -X names
// none), then the user chains by name.
std::vector<std::string> every_chain(const Self &s, const IptablesArgs &a,
                                     nft::Transport &t, const BuiltinTable &bt,
                                     std::string &make, bool &table_exists) {
  const KernelTable kt = t.read_chain_list(s.nfproto(), a.table);
  table_exists = kt.exists;
  std::vector<std::string> names, users;
  for (const auto &kc : kt.chains)
    if (find_builtin_chain(bt, kc.name) == nullptr)
      users.push_back(kc.name);
  std::sort(users.begin(), users.end());
  if (a.command == 'X')
    return users; // (an idle built-in chain goes unnamed)
  const bool made = a.command == 'F' || a.list_zero;
  // (-F makes them in the table's own order, -L -Z in hook order; both
  // name them in hook order.)
  for (int i = 0; i < bt.nchains && a.command == 'F'; ++i)
    if (!kt.find(bt.chains[i].name))
      make += std::string(":") + bt.chains[i].name + " ACCEPT\n";
  for (const BuiltinChain *b : chains_in_hook_order(bt)) {
    if (a.list_zero && !kt.find(b->name))
      make += std::string(":") + b->name + " ACCEPT\n";
    if (made || kt.find(b->name) != nullptr)
      names.push_back(b->name);
  }
  names.insert(names.end(), users.begin(), users.end());
  return names;
}

// -v -F, -Z, -X: "Flushing chain `NAME'" a chain.
void print_touched(const IptablesArgs &a,
                   const std::vector<std::string> &touched) {
  for (const auto &c : touched)
    std::cout << (a.command == 'F'   ? "Flushing"
                  : a.command == 'Z' ? "Zeroing"
                                     : "Deleting")
              << " chain `" << c << "'\n";
}

// A listing's words other than its own options (-n, -x, --line-numbers),
// checked as iptables checks them: by the rule parser, whose -L and -S
// lines change nothing (-Z CHAIN N takes the options -S takes). 0 when
// they pass.
int check_listing_words(const Self &s, IptablesArgs a, nft::Transport &t) {
  // (-L's own options alone and once each need no parser.)
  std::vector<std::string> words = a.rule;
  std::sort(words.begin(), words.end());
  const bool own =
      a.command == 'L' &&
      std::adjacent_find(words.begin(), words.end()) == words.end() &&
      std::all_of(words.begin(), words.end(), [](const auto &w) {
        return w == "-n" || w == "-x" || w == "--line-numbers";
      });
  if (a.rule.empty() || own)
    return 0;
  if (a.command == 'Z')
    a.command = 'S';
  const std::string text =
      "*" + a.table + "\n" + iptables_restore_line(a) + "\nCOMMIT\n";
  return run_restore_text(text, command_config(s), &t, std::cerr);
}

// A command that changes or checks the table: one --noflush block.
int kernel_command(const Self &s, const IptablesArgs &a, nft::Transport &t,
                   const BuiltinTable &bt) {
  const bool named = a.verbose > 0 && std::strchr("FZX", a.command) != nullptr;
  std::string make;
  std::vector<std::string> touched;
  bool table_exists = true;
  if ((named || a.list_zero) && a.chain.empty())
    touched = every_chain(s, a, t, bt, make, table_exists);
  else if (named && (a.command != 'X' || !find_builtin_chain(bt, a.chain)))
    touched.push_back(a.chain); // (a built-in chain goes unnamed)
  if (a.list_zero && !a.chain.empty() && find_builtin_chain(bt, a.chain)) {
    const KernelTable kt = t.read_chains(s.nfproto(), a.table, {a.chain});
    table_exists = kt.exists;
    if (!kt.find(a.chain))
      make = ":" + a.chain + " ACCEPT\n";
  }
  if (!named)
    touched.clear();
  // -L -Z zeroes the built-in chains the listing made up, which creates
  // them; in a table the kernel lacks, iptables-nft's first such zeroing
  // fails (status 4).
  if (a.list_zero && !make.empty() && !table_exists) {
    print_touched(a, touched);
    std::cerr << s.tool.name << " v" << s.tool.version
              << ":  CHAIN_ZERO failed (No such file or directory): chain "
              << make.substr(1, make.find(' ') - 1) << "\n";
    return static_cast<int>(ExitCode::kernel);
  }
  RestoreConfig cfg = command_config(s);
  cfg.verbose = a.verbose > 0 && std::strchr("ACDIR", a.command) ? 1 : 0;
  // -v -X deletes the user chains in the order it names them (by name;
  // without -v, the kernel's order): each named first, then the rest.
  std::string lines = make;
  if (a.command == 'X' && a.chain.empty())
    for (const std::string &c : touched)
      lines += "-X " + restore_word(c) + "\n";
  const std::string text =
      "*" + a.table + "\n" + lines + iptables_restore_line(a) + "\nCOMMIT\n";
  const int rc = run_restore_text(text, cfg, &t, std::cerr);
  if (rc < 0) {
    std::cerr << s.name << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  // (Named as iptables-nft sends them: also when the kernel refuses,
  // status 4, a busy chain.)
  if (rc == 0 || rc == static_cast<int>(ExitCode::kernel))
    print_touched(a, touched);
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
  // Standard output is written out at exit as iptables' is (stderr does
  // not flush it first).
  std::cerr.tie(nullptr);
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
  std::unique_ptr<nft::Transport> transport;
  try {
    transport = nft::make_netlink_transport();
    if (a.command == 'S' || a.command == 'L' || a.zero_rule)
      if (const int rc = check_listing_words(s, a, *transport); rc != 0)
        return rc;
    if (a.command == 'S' || a.command == 'L') {
      const int rc = a.command == 'S' ? list_rules(s, a, *transport, *bt)
                                      : list_entries(s, a, *transport);
      if (rc != 0 || !a.list_zero)
        return rc;
      IptablesArgs zero = a; // then the counters zeroed, as -Z does
      zero.command = 'Z';
      zero.rule.clear(); // (-n, -x, --line-numbers: the listing's)
      if (zero.zero_rule)
        return zero_rule(s, zero, *transport, *bt);
      zero.number.clear(); // (-L CHAIN N -Z: the whole chain's)
      zero.rulenum = 0;
      return kernel_command(s, zero, *transport, *bt);
    }
    if (a.command == 'Z' && !a.number.empty())
      return zero_rule(s, a, *transport, *bt);
    return kernel_command(s, a, *transport, *bt);
  } catch (const Error &e) {
    std::cerr << format_upstream_command(e.diag(), s.tool);
    return static_cast<int>(e.diag().code);
  }
}

} // namespace fastrestore
