#include "ebtables_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <linux/netfilter.h>

#include "fastrestore/eb_list.h"
#include "fastrestore/eb_parser.h"
#include "fastrestore/kernel_state.h"
#include "fastrestore/private_netns.h"
#include "fastrestore/restore.h"
#include "fastrestore/restore_word.h"
#include "fastrestore/snapshot.h"
#include "fastrestore/tables.h"
#include "fastrestore/version.h"
#include "fastrestore/xtables_bridge.h"
#include "program.h"

namespace fastrestore {
namespace {

const char kUsage[] =
    "Usage: fastrestore ebtables [-t TABLE] COMMAND [CHAIN] [RULE]\n"
    "       (or the program invoked as ebtables)\n"
    "Commands: -A CHAIN RULE, -I CHAIN [N] RULE, -D CHAIN RULE,\n"
    "  -D CHAIN N[:M], -P CHAIN POLICY, -N CHAIN, -X [CHAIN],\n"
    "  -E OLD NEW, -F [CHAIN], -Z [CHAIN], --init-table.\n"
    "  -L [CHAIN] [--Ln] [--Lc] [--Lx] [--Lmac2].\n"
    "Atomic files (--atomic-file FILE, or EBTABLES_ATOMIC_FILE):\n"
    "  --atomic-init, --atomic-save, --atomic-commit; every other command\n"
    "  works on the file (-A to a built-in chain appends without reading\n"
    "  it).\n"
    "Rules are written as for ebtables; each command is one nf_tables\n"
    "transaction.\n";

// How the command names itself: "ebtables" under that name, otherwise
// "fastrestore ebtables" (set once, by ebtables_main).
std::string g_self = "fastrestore ebtables";

// A bad command line: status 2, as ebtables' parameter problems.
int usage_error(const std::string &msg) {
  std::cerr << g_self << ": " << msg << "\n"
            << "Try `" << g_self << " -h' or '" << g_self
            << " --help' for more information.\n";
  return 2;
}

// "N:M" (both positive, N <= M).
bool range(const std::string &s, unsigned &a, unsigned &b) {
  size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    return false;
  char *end;
  unsigned long x = strtoul(s.c_str(), &end, 10);
  if (end != s.c_str() + colon || x == 0)
    return false;
  unsigned long y = strtoul(s.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || y < x || y > 1000000)
    return false;
  a = static_cast<unsigned>(x);
  b = static_cast<unsigned>(y);
  return true;
}

// A counter of -C: digits, after an optional + or - (add, subtract).
bool counter(const std::string &w) {
  size_t i = w[0] == '+' || w[0] == '-' ? 1 : 0;
  return i < w.size() &&
         w.find_first_not_of("0123456789", i) == std::string::npos;
}

// -C CHAIN [N[:M]] PCNT BCNT, checked as ebtables-nft 1.8.9 checks it; it
// then changes nothing and fails (status 1), and so does this.
int change_counters(const std::vector<std::string> &words) {
  if (words.size() < 2 || words[1][0] == '-' || words[1] == "!")
    return usage_error("No chain name specified");
  std::vector<std::string> rest(words.begin() + 2, words.end());
  if (rest.size() < 2 || rest[0][0] == '-' || rest[1][0] == '-')
    return usage_error("The command -C needs at least 2 arguments");
  size_t first = 0;
  if (rest.size() >= 3 &&
      (rest[2][0] != '-' ||
       std::isdigit(static_cast<unsigned char>(rest[2][1])))) {
    unsigned a, b;
    if (rest.size() != 3)
      return usage_error(
          "No extra options allowed with -C start_nr[:end_nr] pcnt bcnt");
    if (!range(rest[0], a, b) &&
        !(rest[0].find_first_not_of("0123456789") == std::string::npos &&
          std::strtoul(rest[0].c_str(), nullptr, 10) > 0))
      return usage_error("Something is wrong with the rule number "
                         "specification '" +
                         rest[0] + "'");
    first = 1;
  }
  for (size_t i = first; i < first + 2; ++i)
    if (!counter(rest[i]))
      return usage_error("Packet counter '" + rest[i] + "' invalid");
  std::cerr << g_self
            << ": -C (change counters) is not implemented by ebtables-nft "
               "1.8.9, which fails it; nothing was changed\n";
  return 1;
}

// The arguments as ebtables' getopt_long reads them, for the options this
// command line handles itself: a long option abbreviated, or with its
// value after '=', is spelt out (--lis -> --list, --table=nat -> --table
// nat), and a bundle of flags is split (-Lv -> -L -v). Every other word
// goes to the rule as it is (the rule parser resolves its options alike).
std::vector<std::string> canonical_args(int argc, char **argv, int first) {
  static const char *const kOwn[] = {
      "list",  "table", "init-table", "Lc",         "Ln",      "Lx",
      "Lmac2", "zero",  "verbose",    "concurrent", "version", "help"};
  static const char *const kAtomic[] = {"atomic-file", "atomic-init",
                                        "atomic-save", "atomic-commit"};
  std::vector<std::string> out;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      const size_t eq = a.find('=');
      const std::string name =
          a.substr(2, eq == std::string::npos ? eq : eq - 2);
      std::string canon = ebtables_long_option(name);
      if (canon.empty()) { // fastrestore's atomic file options
        for (const char *o : kAtomic)
          if (std::strncmp(o, name.c_str(), name.size()) == 0)
            canon = canon.empty() ? o : "-"; // "-": ambiguous
        if (canon == "-")
          canon.clear();
      }
      const bool own = std::find_if(std::begin(kOwn), std::end(kOwn),
                                    [&](const char *o) {
                                      return canon == o;
                                    }) != std::end(kOwn) ||
                       canon.rfind("atomic-", 0) == 0;
      if (own) {
        out.push_back("--" + canon);
        // ebtables ignores the value of --list= and --zero= (it reads
        // their chain from the next word only).
        if (eq != std::string::npos && canon != "list" && canon != "zero")
          out.push_back(a.substr(eq + 1));
        continue;
      }
    } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' &&
               a.find_first_not_of("vVhLZ", 1) == std::string::npos) {
      for (size_t c = 1; c < a.size(); ++c)
        out.push_back(std::string("-") + a[c]);
      continue;
    }
    out.push_back(a);
  }
  return out;
}

// One ebtables command (or --init-table) as one --noflush block against
// the kernel of the current network namespace.
// `listed`: the command follows a listing of every chain (-L -Z), after
// which ebtables-nft makes the missing built-in chains, as -v -F does.
int kernel_command(const std::string &table,
                   const std::vector<std::string> &words, bool init,
                   bool verbose = false, bool listed = false) {
  RestoreConfig cfg;
  cfg.family = Family::bridge;
  cfg.command_line = true;
  cfg.input_name = g_self;
  cfg.verbose = verbose ? 1 : 0;
  if (init && !words.empty())
    return usage_error("--init-table takes no other command");
  if (!init && words.empty())
    return usage_error("no command specified");
  std::unique_ptr<nft::Transport> transport;
  try {
    transport = nft::make_netlink_transport();
  } catch (const Error &e) {
    std::cerr << format_diagnostic(e.diag());
    return static_cast<int>(e.diag().code);
  }
  std::string text = "*" + table + "\n";
  // With -v, -F and -Z name each chain they touch, and -F of every chain
  // makes the table's missing built-in chains first, as ebtables-nft -v
  // does (it lists them, then flushes what it listed).
  const bool flush = !init && (words[0] == "-F" || words[0] == "--flush");
  const bool zero = !init && (words[0] == "-Z" || words[0] == "--zero");
  std::vector<std::string> touched;
  if ((flush || zero) && words.size() == 2) {
    touched.push_back(words[1]);
  } else if ((flush || zero) && words.size() == 1 && (verbose || listed)) {
    // (The chains' names only: one chain dump, no rules.)
    const KernelTable kt = transport->read_chain_list(NFPROTO_BRIDGE, table);
    const BuiltinTable *bt = find_builtin_table(table, Family::bridge);
    const std::vector<const BuiltinChain *> bases =
        bt != nullptr ? chains_in_hook_order(*bt)
                      : std::vector<const BuiltinChain *>{};
    std::vector<std::string> users;
    for (const auto &kc : kt.chains)
      if (!kc.base)
        users.push_back(kc.name);
    std::sort(users.begin(), users.end());
    for (const BuiltinChain *b : bases) {
      const bool exists = std::any_of(
          kt.chains.begin(), kt.chains.end(),
          [&](const KernelChain &kc) { return kc.name == b->name; });
      if ((flush || listed) && !exists)
        text += std::string(":") + b->name + " ACCEPT\n";
      if (exists || flush || listed)
        touched.push_back(b->name);
    }
    touched.insert(touched.end(), users.begin(), users.end());
  }
  if (init) {
    // An empty block: the table goes, as with ebtables-nft, whose next
    // command makes the built-in chains again, accepting.
  } else {
    cfg.noflush = true;
    unsigned a, b;
    const bool new_chain = words[0] == "-N" || words[0] == "--new-chain";
    const auto policy = std::find_if(words.begin(), words.end(), [](auto &w) {
      return w == "-P" || w == "--policy";
    });
    if (new_chain && words.size() == 4 && policy == words.begin() + 2) {
      // -N CHAIN -P POLICY, which ebtables allows: two commands.
      text += "-N " + restore_word(words[1]) + "\n-P " +
              restore_word(words[1]) + " " + restore_word(words[3]) + "\n";
    } else if (words.size() == 3 &&
               (words[0] == "-D" || words[0] == "--delete") &&
               range(words[2], a, b)) {
      // Rules a..b: deleting rule a that many times.
      for (unsigned n = a; n <= b; ++n)
        text += "-D " + restore_word(words[1]) + " " + std::to_string(a) + "\n";
    } else {
      for (size_t i = 0; i < words.size(); ++i)
        text += (i ? " " : "") + restore_word(words[i]);
      text += "\n";
    }
  }
  text += "COMMIT\n";
  if (flush || zero)
    cfg.verbose = 0; // named here, below
  int rc = run_restore_text(text, cfg, transport.get(), std::cerr);
  if (rc < 0) {
    std::cerr << g_self << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  if (rc == 0 && verbose)
    for (const auto &c : touched)
      std::cout << (flush ? "Flushing" : "Zeroing") << " chain `" << c << "'\n";
  return rc;
}

// Runs fn in a new, empty network namespace and returns its status (1 when
// no namespace could be made, after saying why).
int in_netns(const std::function<int()> &fn) {
  NetnsFailure failure;
  std::optional<int> rc = in_private_netns(fn, &failure);
  if (failure.stage == NetnsFailure::fork)
    std::cerr << g_self << ": fork: " << std::strerror(failure.error) << "\n";
  else if (failure.stage == NetnsFailure::unshare)
    std::cerr << g_self << ": a private network namespace for the atomic file: "
              << std::strerror(failure.error) << "\n";
  return rc.value_or(1);
}

// -L of an atomic file. The plugins print what they are given as it is
// (the kernel checked it when it took the rule), so a damaged or forged
// file could crash them: the file's table is committed into a private
// network namespace first, where the kernel checks every rule, and listed
// from there.
int list_atomic_file(const std::string &file, const EbListOptions &opts) {
  try {
    if (!snapshot::holds_table(file, NFPROTO_BRIDGE, opts.table)) {
      std::cerr << g_self << ": " << file << " holds no table " << opts.table
                << "\n";
      return 1;
    }
  } catch (const snapshot::SnapshotError &e) {
    std::cerr << g_self << ": " << e.what() << "\n";
    return 1;
  }
  return in_netns([&] {
    try {
      snapshot::Options commit_opts;
      commit_opts.family = NFPROTO_BRIDGE;
      commit_opts.family_given = true;
      snapshot::commit(file, commit_opts, std::cout);
    } catch (const snapshot::SnapshotError &e) {
      std::cerr << g_self << ": " << e.what() << "\n";
      return 1;
    }
    return ebtables_list(opts);
  });
}

// The atomic file options: init, save and commit, or -A on the file.
int atomic_main(const std::string &file, const std::string &op,
                const std::string &table, std::vector<std::string> &words,
                bool init) {
  if (file.empty())
    return usage_error(op + " needs --atomic-file FILE (or "
                            "EBTABLES_ATOMIC_FILE)");
  try {
    snapshot::Options opts;
    opts.family = NFPROTO_BRIDGE;
    opts.family_given = true;
    if (op == "--atomic-init") {
      snapshot::atomic_init(file, table);
    } else if (op == "--atomic-save") {
      opts.counters = true;
      opts.table = table;
      snapshot::save(file, opts);
    } else if (op == "--atomic-commit") {
      snapshot::commit(file, opts, std::cout);
    } else {
      const BuiltinTable *policy_table =
          find_builtin_table(table, Family::bridge);
      if (words.size() == 3 && (words[0] == "-P" || words[0] == "--policy") &&
          policy_table != nullptr &&
          find_builtin_chain(*policy_table, words[1]) != nullptr) {
        snapshot::atomic_policy(file, table, words[1], words[2]);
        return 0;
      }
      const BuiltinTable *bt = find_builtin_table(table, Family::bridge);
      const bool append_builtin =
          words.size() >= 2 && (words[0] == "-A" || words[0] == "--append") &&
          bt != nullptr && find_builtin_chain(*bt, words[1]) != nullptr;
      if (!append_builtin) {
        // Any other command: the file's table is committed into a private
        // network namespace, the command runs there as against the
        // kernel, and the table is saved back (atomically). Its cost
        // grows with the file; appends to built-in chains do not.
        return in_netns([&] {
          try {
            snapshot::commit(file, opts, std::cout);
            int rc = kernel_command(table, words, init);
            if (rc != 0)
              return rc;
            snapshot::Options save_opts = opts;
            save_opts.counters = true;
            save_opts.table = table;
            snapshot::save(file, save_opts);
            return 0;
          } catch (const snapshot::SnapshotError &e) {
            std::cerr << g_self << ": " << e.what() << "\n";
            return 1;
          }
        });
      }
      std::vector<Token> tokens;
      std::string source;
      for (const auto &w : words) {
        Token t;
        t.text = w;
        t.col_begin = static_cast<int>(source.size()) + 1;
        source += (source.empty() ? "" : " ") + w;
        t.col_end = static_cast<int>(source.size());
        tokens.push_back(std::move(t));
      }
      EbParser parser;
      Command cmd = parser.parse(tokens, table, 1, source, nullptr);
      snapshot::atomic_append(file, table, cmd.chain, cmd.rules);
    }
  } catch (const snapshot::SnapshotError &e) {
    std::cerr << g_self << ": " << e.what() << "\n";
    return 1;
  } catch (const Error &e) {
    std::cerr << g_self << ": " << e.diag().message << "\n";
    return static_cast<int>(e.diag().code);
  }
  return 0;
}

} // namespace

int ebtables_main(const Program &program, int argc, char **argv) {
  // "ebtables ARGS" or "fastrestore ebtables ARGS".
  const int first = program.kind == ProgramKind::ebtables ? 1 : 2;
  if (program.kind == ProgramKind::ebtables)
    g_self = "ebtables";
  if (argc <= first) { // as ebtables: its help
    std::cout << kUsage;
    return 0;
  }
  bool verbose = false;
  std::string table = "filter";
  std::vector<std::string> words;
  bool init = false;
  const char *env = getenv("EBTABLES_ATOMIC_FILE");
  std::string atomic = env != nullptr ? env : "", atomic_op;
  bool list = false;
  EbListOptions list_opts;
  std::vector<std::string> list_flags;
  const std::vector<std::string> args = canonical_args(argc, argv, first);
  const int n = static_cast<int>(args.size());
  for (int i = 0; i < n; ++i) {
    const std::string &a = args[i];
    if (a == "-t" || a == "--table") {
      if (i + 1 >= n)
        return usage_error("option " + a + " needs a table name");
      table = args[++i];
    } else if (a.rfind("--table=", 0) == 0) {
      table = a.substr(8);
    } else if (a == "-V" || a == "--version") {
      std::cout << "fastrestore ebtables v" << kVersion << " (nf_tables)\n";
      return 0;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--init-table") {
      init = true;
    } else if (a == "--concurrent") {
      // ebtables-nft takes no lock (nf_tables needs none), nor does this.
    } else if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (a == "--atomic-file") {
      if (i + 1 >= n)
        return usage_error("--atomic-file needs a file name");
      atomic = args[++i];
    } else if (a.rfind("--atomic-file=", 0) == 0) {
      atomic = a.substr(14);
    } else if (a == "--atomic-init" || a == "--atomic-save" ||
               a == "--atomic-commit") {
      atomic_op = a;
    } else if (a == "-L" || a == "--list") {
      list = true;
      // An optional chain name follows, as in ebtables.
      if (i + 1 < n && args[i + 1][0] != '-')
        list_opts.chain = args[++i];
    } else if ((a == "--Lc" || a == "--Ln" || a == "--Lx" || a == "--Lmac2") &&
               !list) {
      return usage_error("Use " + a + " with -L"); // as ebtables: -L first
    } else if (a == "--Lc") {
      list_flags.push_back(a);
      list_opts.counters = true;
    } else if (a == "--Ln") {
      list_flags.push_back(a);
      list_opts.line_numbers = true;
    } else if (a == "--Lx" || a == "--Lmac2") {
      // Accepted and, as in ebtables-nft, without effect on the listing.
      list_flags.push_back(a);
    } else {
      words.push_back(a);
    }
  }
  const BuiltinTable *bt = find_builtin_table(table, Family::bridge);
  if (bt == nullptr) {
    std::cerr << g_self << ": table '" << table << "' does not exist\n";
    return 3;
  }
  if (!list && !list_flags.empty())
    return usage_error("Use " + list_flags.front() + " with -L");
  if (!list && !words.empty() &&
      (words[0] == "-C" || words[0] == "--change-counters"))
    return change_counters(words);
  if (list) {
    // -L [CHAIN] may go with -Z [CHAIN] (one chain for both): the listing,
    // then the counters zeroed.
    bool zero = false;
    for (size_t i = 0; i < words.size(); ++i) {
      if (!zero && (words[i] == "-Z" || words[i] == "--zero")) {
        zero = true;
        if (i + 1 < words.size() && words[i + 1][0] != '-')
          list_opts.chain = words[++i];
        continue;
      }
      if (words[i][0] == '-' && words[i].size() > 1)
        return usage_error("Multiple commands are not allowed");
      return usage_error("Bad argument : '" + words[i] + "'");
    }
    if (init || !atomic_op.empty())
      return usage_error("Multiple commands are not allowed");
    if (zero && !atomic.empty())
      return usage_error("-Z with -L works on the kernel's table, not on "
                         "an atomic file");
    if (std::find(list_flags.begin(), list_flags.end(), "--Lx") !=
            list_flags.end() &&
        list_opts.line_numbers)
      return usage_error("--Lx is not compatible with --Ln");
    list_opts.table = table;
    if (!atomic.empty())
      return list_atomic_file(atomic, list_opts);
    int rc = ebtables_list(list_opts);
    if (rc != 0 || !zero)
      return rc;
    std::vector<std::string> z{"-Z"};
    if (!list_opts.chain.empty())
      z.push_back(list_opts.chain);
    return kernel_command(table, z, false, false, list_opts.chain.empty());
  }
  if (!atomic_op.empty() || !atomic.empty())
    return atomic_main(atomic, atomic_op, table, words, init);
  return kernel_command(table, words, init, verbose);
}

} // namespace fastrestore
