#include "fastrestore/cli.h"
#include "fastrestore/process_heap.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "apply_cli.h"
#include "config_file.h"
#include "diff_cli.h"
#include "ebtables_cli.h"
#include "fastrestore/ipsets.h"
#include "fastrestore/restore.h"
#include "iptables_cli.h"
#include "program.h"
#include "snapshot_cli.h"

namespace po = boost::program_options;

namespace fastrestore {
namespace {

const char kUsage[] =
    "Usage: fastrestore [-4|-6|--bridge] [-c] [-n] [-t] [-v] [-T table]\n"
    "                   [-w [secs]] [-W usecs] [-M command] [FILE]\n"
    "       fastrestore save [-4|-6|--bridge] [-t table] [...]   (text)\n"
    "       fastrestore save --binary FILE [...]\n"
    "       fastrestore commit FILE [...]\n"
    "       fastrestore diff [...] [FILE]\n"
    "       fastrestore apply [--confirm SECONDS] [...] FILE\n"
    "       fastrestore iptables|ip6tables ARGS...\n"
    "       fastrestore ebtables ARGS...\n"
    "Loads iptables-save text (standard input, or FILE) into nf_tables,\n"
    "one transaction per COMMIT (with --legacy: into x_tables, one table\n"
    "replacement per COMMIT).\n"
    "Subcommands (each takes --help):\n"
    "  save      print the kernel's tables as iptables-save does, or with\n"
    "            --binary save them to a snapshot FILE\n"
    "  commit    load a snapshot FILE (- for standard input), one\n"
    "            transaction\n"
    "  diff      what loading FILE (- or none: standard input) would\n"
    "            change, as a unified diff; sends nothing\n"
    "  apply     load FILE, and put the tables back unless the change is\n"
    "            confirmed within SECONDS (apply --confirm confirms)\n"
    "  iptables, ip6tables\n"
    "            the iptables command line (-A, -C, -D, -I, -L, -S, ...)\n"
    "  ebtables  the ebtables command line\n";

// The wait options, which iptables-restore reads itself: -w and -W take
// the next word for their value unless it starts with '-' or '!'
// (xs_has_arg), or a value attached to the long name (--wait=5).
struct WaitOptions {
  bool wait = false, interval = false;
  std::optional<std::string> wait_value, interval_value;
};

// The command line's words without the wait options, which go to `out`
// (`stats`: the program takes --stats).
std::vector<std::string> normalise(int argc, char **argv, WaitOptions &out,
                                   bool stats) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool w = a == "-w" || a == "--wait" || a.rfind("--wait=", 0) == 0;
    const bool iw = a == "-W" || a == "--wait-interval" ||
                    a.rfind("--wait-interval=", 0) == 0;
    if (!w && !iw) {
      // --stats alone is the text form: its value is never the next word
      // (the FILE), only given after `=`.
      args.push_back(stats && a.size() >= 6 &&
                             std::string("--stats").rfind(a, 0) == 0
                         ? "--stats=text"
                         : a);
      continue;
    }
    (w ? out.wait : out.interval) = true;
    std::optional<std::string> &value = w ? out.wait_value : out.interval_value;
    value.reset();
    if (const size_t eq = a.find('='); eq != std::string::npos)
      value = a.substr(eq + 1);
    else if (i + 1 < argc && argv[i + 1][0] != '-' && argv[i + 1][0] != '!')
      value = argv[++i];
  }
  return args;
}

// A parameter problem of the command line (status 2), as the replaced tool
// prints it ("Error occurred at line: 0" and its hint), or fastrestore's.
int parameter_problem(const Program &program, const RestoreConfig &cfg,
                      const std::string &message) {
  if (cfg.upstream.name.empty()) {
    command_line_error(program, message);
    return 2;
  }
  Diagnostic d;
  d.message = message;
  std::cerr << format_upstream(d, {}, cfg.upstream);
  return 2;
}

// The legacy tool's -w SECONDS (any number sscanf's %i reads; none: wait
// for ever) and deprecated -W USEC; 0 when they are good.
int legacy_wait(const Program &program, RestoreConfig &cfg,
                const WaitOptions &w) {
  if (w.wait) {
    cfg.wait = -1;
    if (w.wait_value &&
        std::sscanf(w.wait_value->c_str(), "%i", &cfg.wait) != 1)
      return parameter_problem(program, cfg, "wait seconds not numeric");
  }
  if (!w.interval)
    return 0;
  unsigned usec = 0;
  if (!w.interval_value)
    return parameter_problem(program, cfg, "wait interval value required");
  if (std::sscanf(w.interval_value->c_str(), "%u", &usec) != 1)
    return parameter_problem(program, cfg, "wait interval not numeric");
  if (usec > 999999)
    return parameter_problem(program, cfg,
                             "too long usec wait " + std::to_string(usec) +
                                 " > 999999 usec");
  std::cerr << "Ignoring deprecated --wait-interval option.\n";
  if (cfg.wait == 0) {
    std::cerr << "Option --wait-interval requires option --wait\n";
    return 1;
  }
  return 0;
}

// Standard descriptors a caller closed are opened on /dev/null, so that no
// socket or file the program opens later takes their place (a netlink
// socket read as standard input would block forever). Returns whether
// standard input was closed.
bool open_closed_std_fds() {
  bool stdin_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
      continue;
    if (fd == 0)
      stdin_closed = true;
    int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) { // cannot happen: the lowest free one
      dup2(got, fd);
      close(got);
    }
  }
  return stdin_closed;
}

// Whether the process runs one command of the iptables or ebtables
// command line (the program so named, or `fastrestore iptables ...`).
bool runs_one_command(const Program &program, int argc, char **argv) {
  if (program.kind == ProgramKind::iptables ||
      program.kind == ProgramKind::ebtables)
    return true;
  if (program.kind != ProgramKind::fastrestore || argc < 2)
    return false;
  const std::string sub = argv[1];
  return sub == "iptables" || sub == "ip6tables" || sub == "ebtables";
}

// A single command's process ends as soon as its output is out: what is
// left to free (the C++ runtime's locales and streams, buffers kept for
// reuse, sockets) goes with the process, and freeing it piece by piece
// (munmap by munmap) costs a command more than some of its work. Not
// under the sanitizers, whose leak check runs at exit.
[[noreturn]] void end_command(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (!exit_checks_leaks())
    _exit(status);
  std::exit(status);
}

} // namespace

int cli_main(int argc, char **argv) {
  const Program program = identify_program(argv[0]);
  const bool one_command = runs_one_command(program, argc, argv);
  if (!one_command)
    use_huge_pages_for_heap();
  const bool stdin_closed = open_closed_std_fds();
  if (one_command)
    end_command(program.kind == ProgramKind::ebtables ||
                        (program.kind == ProgramKind::fastrestore &&
                         std::strcmp(argv[1], "ebtables") == 0)
                    ? ebtables_main(program, argc, argv)
                    : iptables_main(program, argc, argv));
  // Subcommands only under fastrestore's own name: iptables-restore save
  // loads the file named save, as the original does.
  if (program.kind == ProgramKind::fastrestore && argc > 1) {
    const std::string sub = argv[1];
    if (sub == "save" || sub == "commit")
      return snapshot_main(program, argc, argv);
    if (sub == "diff")
      return diff_main(program, argc, argv);
    if (sub == "apply")
      return apply_main(program, argc, argv);
  }
  if (program.kind == ProgramKind::save)
    return save_program_main(program, argc, argv);
  RestoreConfig cfg;
  cfg.family = program.family;
  cfg.backend = program.backend;

  po::options_description desc("Options");
  std::string wait, wait_interval, modprobe, backend, stats;
  // clang-format off
  desc.add_options()
    ("help,h", "print this help and exit")
    ("version,V", "print the version and exit")
    ("ipv4,4", "read iptables-save text (the default)")
    ("ipv6,6", "read ip6tables-save text")
    ("bridge", "read ebtables-save text (the bridge family)")
    ("counters,c", "restore packet and byte counters")
    ("noflush,n", "add to the tables instead of replacing them")
    ("test,t", "parse, check and build the transactions, send nothing")
    ("coalesce", po::value<int>(),
     "with --noflush, send the blocks that arrive within this many "
     "milliseconds of each other as one transaction (each block still "
     "ends as it would alone)")
    ("all-or-nothing", "send every block of the input as one transaction "
     "at the end of the input, so that any error (in any block, from the "
     "parser or the kernel) leaves every table unchanged")
    ("incremental", "replace each table by sending the kernel only what "
     "changes: chains and rules that stay keep their handles and counters "
     "(nf_tables; with --legacy the table is replaced whole)")
    ("optimize", "in table replacements, put each run of rules that differ "
     "only in their source or destination address into an ipset matched by "
     "one rule (command line only: other tools see the set rules)")
    ("optimize-min", po::value<size_t>(&cfg.optimize_min),
     "the shortest run --optimize merges (default 8)")
    ("stats", po::value<std::string>(&stats)->implicit_value("text"),
     "after each COMMIT, print its costs to stderr: reading and "
     "parsing, extensions, batch building, kernel time, bytes sent, rules, "
     "peak RSS (--stats=json: one JSON object a COMMIT, with its status)")
    ("log", "when the load ends, send one line to syslog: who loaded "
     "which input, which tables, and the result")
    ("verbose,v", po::value<std::vector<std::string>>()->zero_tokens()->composing(),
     "name each chain flushed or deleted and list each rule added, "
     "as iptables-restore -v does")
    ("table,T", po::value<std::string>(&cfg.table), "restore only this table")
    ("legacy", "use the legacy x_tables interface (one table replacement per "
     "COMMIT through libiptc) instead of nf_tables")
    ("backend", po::value<std::string>(&backend),
     "nft (the default) or legacy")
    ("wait,w", po::value<std::string>(&wait)->implicit_value(""),
     "with --legacy, give up on the xtables lock after this many seconds "
     "(nf_tables needs no lock)")
    ("wait-interval,W", po::value<std::string>(&wait_interval)->implicit_value(""),
     "accepted for compatibility")
    ("modprobe,M", po::value<std::string>(&modprobe),
     "accepted for compatibility (the kernel loads modules itself)");
  // clang-format on
  // Under an ebtables-restore name, the options ebtables-restore takes
  // (and -V).
  po::options_description eb_desc("Options");
  // clang-format off
  eb_desc.add_options()
    ("noflush,n", "add to the tables instead of replacing them")
    ("verbose,v", po::value<std::vector<std::string>>()->zero_tokens()->composing(),
     "name each chain flushed or deleted and list each rule added")
    ("version,V", "print the version and exit");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::string>(),
                       "input file (default: standard input)");
  po::options_description all;
  all.add(program.kind == ProgramKind::ebtables_restore ? eb_desc : desc)
      .add(hidden);
  po::positional_options_description pos;
  pos.add("file", 1);

  po::variables_map vm;
  WaitOptions wait_options;
  const std::vector<std::string> args = normalise(
      argc, argv, wait_options, program.kind != ProgramKind::ebtables_restore);
  try {
    vm = parse_command_line(args, all, pos);
  } catch (const po::error &e) {
    return command_line_error(program, e, all, args);
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << desc;
    return 0;
  }
  if (vm.count("ipv4") + vm.count("ipv6") + vm.count("bridge") > 1)
    return command_line_error(program, "-4, -6 and --bridge exclude each "
                                       "other");
  if (vm.count("ipv4"))
    cfg.family = Family::ipv4;
  if (vm.count("ipv6"))
    cfg.family = Family::ipv6;
  if (vm.count("bridge"))
    cfg.family = Family::bridge;
  if (vm.count("legacy"))
    cfg.backend = Backend::legacy;
  if (!backend.empty()) {
    if (!parse_backend(backend, cfg.backend))
      return command_line_error(program, "--backend takes nft or legacy, "
                                         "not `" +
                                             backend + "'");
  }
  if (vm.count("version")) {
    print_version(cfg.backend);
    return 0;
  }
  cfg.counters = vm.count("counters") > 0;
  if (cfg.counters && cfg.family == Family::bridge) {
    // ebtables-restore: an option it does not take.
    return command_line_error(program, "--counters does not apply to ebtables "
                                       "input (its rules carry their "
                                       "counters with -c)");
  }
  cfg.noflush = vm.count("noflush") > 0;
  cfg.test = vm.count("test") > 0;
  cfg.verbose = vm.count("verbose") ? 1 : 0;
  cfg.stats = vm.count("stats") > 0;
  if (cfg.stats && stats != "text" && stats != "json")
    return command_line_error(program, "--stats takes text or json, not '" +
                                           stats + "'");
  cfg.stats_json = cfg.stats && stats == "json";
  if (vm.count("coalesce")) {
    cfg.coalesce_ms = vm["coalesce"].as<int>();
    if (cfg.coalesce_ms < 0)
      return command_line_error(program,
                                "--coalesce takes milliseconds (0 or more)");
  }
  // (A replacement is one transaction per table already.)
  if (vm.count("coalesce") && !cfg.noflush)
    return command_line_error(program, "--coalesce groups --noflush blocks "
                                       "into transactions; add --noflush");
  cfg.all_or_nothing = vm.count("all-or-nothing") > 0;
  cfg.incremental = vm.count("incremental") > 0;
  cfg.optimize = vm.count("optimize") > 0;
  if (cfg.optimize && cfg.noflush)
    return command_line_error(program, "--optimize applies to table "
                                       "replacements; drop --noflush");
  if (cfg.optimize && cfg.family == Family::bridge)
    return command_line_error(program, "--optimize applies to iptables and "
                                       "ip6tables input, not ebtables");
  if (cfg.optimize && cfg.all_or_nothing)
    return command_line_error(program,
                              "--optimize swaps and destroys its sets after "
                              "each table's commit; drop --all-or-nothing");
  if (vm.count("optimize-min") && cfg.optimize_min < 2)
    return command_line_error(program, "--optimize-min takes 2 or more");
  if (std::string error;
      !apply_config_file(config_file_path(), vm, cfg, error)) {
    std::cerr << (program.kind == ProgramKind::fastrestore ? "fastrestore"
                                                           : program.argv0)
              << ": " << error << "\n";
    return 2;
  }
  if (cfg.all_or_nothing && cfg.coalesce_ms >= 0)
    return command_line_error(program, "--all-or-nothing already sends every "
                                       "block in one transaction; drop "
                                       "--coalesce");
  if (cfg.all_or_nothing && cfg.backend == Backend::legacy)
    return command_line_error(program,
                              "--all-or-nothing needs nf_tables: legacy "
                              "x_tables replaces each table on its own");
  {
    Program as_run = program;
    as_run.family = cfg.family;
    as_run.backend = cfg.backend;
    cfg.upstream = upstream_tool(as_run);
  }
  if (vm.count("log")) // (else as the configuration file says)
    cfg.log = true;
  // Under fastrestore's own name only: the replaced tools print none.
  cfg.progress = cfg.verbose == 0 && cfg.upstream.name.empty() &&
                 isatty(STDERR_FILENO) == 1;
  // iptables-nft-restore ignores -w and -W with whatever value; the legacy
  // tool reads them (parse_wait_time, parse_wait_interval).
  if (cfg.backend == Backend::legacy) {
    if (int status = legacy_wait(program, cfg, wait_options))
      return status;
  }

  int fd = STDIN_FILENO;
  if (!vm.count("file") && stdin_closed) {
    std::cerr << "fastrestore: standard input is closed: nothing to read "
                 "(give a FILE, or the rules on standard input)\n";
    return 1;
  }
  if (vm.count("file")) {
    cfg.input_name = vm["file"].as<std::string>();
    fd = open(cfg.input_name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (cfg.upstream.name.empty())
        std::cerr << "fastrestore: cannot open " << cfg.input_name << ": "
                  << std::strerror(errno) << "\n";
      else // the replaced tool's words
        std::cerr << "Can't open " << cfg.input_name << ": "
                  << std::strerror(errno) << "\n";
      return 1;
    }
  }

  std::unique_ptr<nft::Transport> transport;
  try {
    // Also with --test: --noflush commands by position read the kernel.
    if (cfg.backend == Backend::nft)
      transport = nft::make_netlink_transport();
  } catch (const Error &e) {
    std::cerr << format_diagnostic(e.diag());
    return static_cast<int>(e.diag().code);
  }
  int rc = run_restore(fd, cfg, transport.get(), std::cerr);
  if (fd != STDIN_FILENO)
    close(fd);
  // Rules that matched --optimize's sets may have been replaced: the sets
  // no rule uses go (an --optimize load does this itself).
  if (!cfg.test && !cfg.optimize && cfg.family != Family::bridge)
    ipset::tidy(cfg.family == Family::ipv6);
  return rc;
}

} // namespace fastrestore
