// `fastrestore save --binary FILE` and `fastrestore commit FILE`.
#include "snapshot_cli.h"

#include <linux/netfilter.h>

#include <boost/program_options.hpp>

#include <iostream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastrestore/diagnostic.h"
#include "fastrestore/snapshot.h"
#include "fastrestore/text_save.h"
#include "program.h"

namespace po = boost::program_options;

namespace fastrestore {
namespace {

// The options both commands share: family and backend.
void common(po::options_description &d) {
  // clang-format off
  d.add_options()
    ("help,h", "print this help and exit")
    ("ipv4,4", "IPv4 tables (the default)")
    ("ipv6,6", "IPv6 tables")
    ("bridge", "bridge tables (ebtables)")
    ("legacy", "legacy x_tables instead of nf_tables")
    ("backend", po::value<std::string>(), "nft (the default) or legacy");
  // clang-format on
}

// Reads family and backend into opts; false (after a message) on misuse.
bool take_common(const Program &program, const po::variables_map &vm,
                 snapshot::Options &opts, const char *cmd) {
  int families =
      int(vm.count("ipv4")) + int(vm.count("ipv6")) + int(vm.count("bridge"));
  if (families > 1) {
    command_line_error(program, "-4, -6 and --bridge exclude each other", cmd);
    return false;
  }
  opts.family_given = families == 1;
  opts.family = vm.count("ipv6")     ? NFPROTO_IPV6
                : vm.count("bridge") ? NFPROTO_BRIDGE
                                     : NFPROTO_IPV4;
  if (vm.count("legacy")) {
    opts.backend = Backend::legacy;
    opts.backend_given = true;
  }
  if (vm.count("backend")) {
    const auto &b = vm["backend"].as<std::string>();
    if (!parse_backend(b, opts.backend)) {
      command_line_error(program,
                         "--backend takes nft or legacy, not `" + b + "'", cmd);
      return false;
    }
    opts.backend_given = true;
  }
  return true;
}

// The text save (iptables-save's output) to stdout, or to FILE with -f.
int text_save_main(const po::variables_map &vm, const snapshot::Options &opts) {
  TextSaveOptions t;
  t.family = opts.family == NFPROTO_IPV6     ? Family::ipv6
             : opts.family == NFPROTO_BRIDGE ? Family::bridge
                                             : Family::ipv4;
  t.backend = opts.backend;
  t.table = opts.table;
  t.counters = opts.counters;
  t.expand = vm.count("expand") > 0;
  if (vm.count("file")) {
    const std::string &path = vm["file"].as<std::string>();
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
      std::cerr << "fastrestore save: cannot write " << path << ": "
                << std::strerror(errno) << "\n";
      return 1;
    }
    close(fd);
  }
  return text_save(t);
}

int save_main(const Program &program, int argc, char **argv) {
  po::options_description desc("Options");
  common(desc);
  // clang-format off
  desc.add_options()
    ("binary", po::value<std::string>(),
     "write a binary snapshot to FILE instead of printing text")
    ("counters,c", "include packet and byte counters")
    ("table,t", po::value<std::string>(), "only this table")
    ("file,f", po::value<std::string>(), "print to FILE instead of stdout")
    ("expand", "print each rule that matches a set of --optimize's as the "
     "rules it stands for, one per member")
    ("version,V", "print the version and exit")
    ("modprobe,M", po::value<std::string>(),
     "accepted for compatibility (the kernel loads modules itself)");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("table-T,T", po::value<std::string>(),
                       "-t, as once spelt");
  po::options_description all;
  all.add(desc);
  // The save tools' names take -t only, as they do.
  if (program.kind == ProgramKind::fastrestore)
    all.add(hidden);
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse_words(program, {argv + 1, argv + argc}, all, pos, vm, "save"))
    return 1;
  if (vm.count("help")) {
    std::cout << "Usage: fastrestore save [-4|-6|--bridge] [--legacy] [-c] "
                 "[-t table] [-f FILE] [--expand]\n"
                 "       fastrestore save --binary FILE [-4|-6|--bridge] "
                 "[--legacy] [-c] [-t table]\n"
                 "Prints the kernel's tables of one family as iptables-save "
                 "(ip6tables-save,\nebtables-save) does, or with --binary "
                 "saves them to FILE, atomically.\n\n"
              << desc;
    return 0;
  }
  snapshot::Options opts;
  if (!take_common(program, vm, opts, "save"))
    return 1;
  if (!opts.family_given)
    opts.family = program.family == Family::ipv6     ? NFPROTO_IPV6
                  : program.family == Family::bridge ? NFPROTO_BRIDGE
                                                     : NFPROTO_IPV4;
  if (!opts.backend_given)
    opts.backend = program.backend;
  if (vm.count("version")) {
    print_version(opts.backend);
    return 0;
  }
  opts.counters = vm.count("counters") > 0;
  if (vm.count("table"))
    opts.table = vm["table"].as<std::string>();
  else if (vm.count("table-T"))
    opts.table = vm["table-T"].as<std::string>();
  if (!vm.count("binary"))
    return text_save_main(vm, opts);
  const std::string path = vm["binary"].as<std::string>();
  try {
    snapshot::SaveStats st = snapshot::save(path, opts);
    std::cerr << "fastrestore save: " << path << ": " << st.tables
              << " tables, " << st.chains << " chains, " << st.sets << " sets, "
              << st.rules << " rules, " << st.bytes << " bytes\n";
  } catch (const snapshot::SnapshotError &e) {
    std::cerr << "fastrestore save: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

int commit_main(const Program &program, int argc, char **argv) {
  po::options_description desc("Options");
  common(desc);
  // clang-format off
  desc.add_options()
    ("test,t", "check the snapshot and say what it would replace; send "
     "nothing")
    ("wait,w", po::value<int>()->default_value(0),
     "with --legacy, give up on the xtables lock after this many seconds")
    ("version,V", "print the version and the backend (as --legacy or "
     "--backend says) and exit");
  // clang-format on
  po::variables_map vm;
  // (argv[0] is "commit".)
  if (!parse_subcommand(program, desc, {argv + 1, argv + argc}, "commit", vm))
    return 1;
  if (vm.count("help")) {
    std::cout << "Usage: fastrestore commit FILE [-t] [-4|-6|--bridge] "
                 "[--legacy]\n"
                 "Replaces the tables saved in FILE (- for standard input) "
                 "with its content,\nin one transaction.\n\n"
              << desc;
    return 0;
  }
  snapshot::Options opts;
  if (!take_common(program, vm, opts, "commit"))
    return 1;
  if (vm.count("version")) {
    print_version(opts.backend);
    return 0;
  }
  if (!vm.count("file"))
    return command_line_error(program, "a snapshot FILE is required", "commit");
  opts.test = vm.count("test") > 0;
  opts.wait = vm["wait"].as<int>();
  try {
    snapshot::commit(vm["file"].as<std::string>(), opts, std::cout);
  } catch (const snapshot::SnapshotError &e) {
    std::cerr << "fastrestore commit: " << e.what() << "\n";
    return 1;
  } catch (const Error &e) { // the xtables lock
    std::cerr << "fastrestore commit: " << e.diag().message << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int snapshot_main(const Program &program, int argc, char **argv) {
  const std::string cmd = argv[1];
  // The command's own arguments, with the subcommand in argv[0]'s place.
  return cmd == "save" ? save_main(program, argc - 1, argv + 1)
                       : commit_main(program, argc - 1, argv + 1);
}

int save_program_main(const Program &program, int argc, char **argv) {
  return save_main(program, argc, argv);
}

} // namespace fastrestore
