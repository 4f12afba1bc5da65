// `fastrestore apply [-4|-6|--bridge] [--legacy] [--confirm SECONDS] FILE`
// and `fastrestore apply --confirm`. The tables FILE names are saved as
// text with their counters (a table it would make is noted as absent),
// FILE is loaded (nf_tables: one transaction, --all-or-nothing; legacy:
// one replacement per table), and a detached watcher (apply_pending.h)
// puts the saved text back after SECONDS (10 unless given) unless the
// change is confirmed: at the prompt on the terminal, or by `fastrestore
// apply --confirm` from another shell. The watcher rolls back only when
// the tables are still as the load left them.
#include "apply_cli.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "apply_pending.h"
#include "fastrestore/load_preview.h"

namespace po = boost::program_options;

namespace fastrestore {
namespace {

constexpr int kDefaultSeconds = 10;

bool mkdirs(const std::string &dir) {
  for (size_t at = 1; at != std::string::npos;) {
    at = dir.find('/', at + 1);
    const std::string part = dir.substr(0, at);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

// A bad command line: the message and the hint, status 2.
int usage_error(const Program &program, const std::string &message) {
  command_line_error(program, message, "apply");
  return 2;
}

// `fastrestore apply --confirm`: every change of this namespace waiting.
int confirm_pending() {
  const std::vector<std::string> dirs = apply::pending_dirs();
  if (dirs.empty()) {
    std::cerr << "fastrestore apply: no change waits for confirmation here\n";
    return 1;
  }
  int rc = 0;
  for (const std::string &dir : dirs) {
    apply::write_text(dir + "/confirmed", "");
    apply::Outcome o;
    if (!apply::wait_outcome(dir, 5, o)) {
      std::cerr << "fastrestore apply: the watcher of " << dir
                << " did not answer\n";
      rc = 1;
      continue;
    }
    std::cout << "fastrestore apply: " << o.text << "\n";
    if (o.status != 0)
      rc = o.status;
  }
  return rc;
}

// The answer typed on the terminal before the deadline ("" at the
// deadline or at the end of input).
std::string ask(int seconds) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::string line;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          until - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0)
      return "";
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<long>(left, 200)));
    if (n < 0 && errno != EINTR)
      return "";
    if (n <= 0)
      continue;
    char c;
    const ssize_t r = read(STDIN_FILENO, &c, 1);
    if (r <= 0)
      return "";
    if (c == '\n')
      return line.empty() ? "\n" : line;
    line += c;
  }
}

} // namespace

int apply_main(const Program &program, int argc, char **argv) {
  po::options_description desc("Options");
  std::string confirm, backend;
  // clang-format off
  desc.add_options()
    ("help,h", "print this help and exit")
    ("ipv4,4", "iptables-save text (the default)")
    ("ipv6,6", "ip6tables-save text")
    ("bridge", "ebtables-save text (the bridge family)")
    ("legacy", "legacy x_tables (one table replacement per table, for the "
     "load and for the rollback)")
    ("backend", po::value<std::string>(&backend), "nft (the default) or legacy")
    ("confirm", po::value<std::string>(&confirm)->implicit_value(""),
     "with FILE: the seconds the change waits for its confirmation (10 "
     "unless given); alone: confirm the changes waiting in this network "
     "namespace");
  // clang-format on
  po::variables_map vm;
  if (!parse_subcommand(program, desc, {argv + 2, argv + argc}, "apply", vm))
    return 2;
  if (vm.count("help")) {
    std::cout
        << "Usage: fastrestore apply [-4|-6|--bridge] [--legacy] "
           "[--confirm SECONDS] FILE\n"
           "       fastrestore apply --confirm\n"
           "Loads FILE and puts the tables it replaced back after SECONDS "
           "unless the\nchange is confirmed: at the prompt, or with "
           "`fastrestore apply --confirm`\nfrom another shell. The rollback "
           "runs detached: it happens when the\nlogin ends.\n\n"
        << desc;
    return 0;
  }
  if (!vm.count("file")) {
    if (vm.count("confirm") && confirm.empty())
      return confirm_pending();
    return usage_error(program, "apply needs a FILE (or --confirm "
                                "alone, to confirm a change)");
  }
  int seconds = kDefaultSeconds;
  if (vm.count("confirm")) {
    char *end = nullptr;
    const long v = std::strtol(confirm.c_str(), &end, 10);
    if (confirm.empty() || *end != '\0' || v < 1 || v > 86400)
      return usage_error(program,
                         "--confirm takes seconds (1 to 86400), not `" +
                             confirm + "'");
    seconds = static_cast<int>(v);
  }
  apply::Target t;
  const int families =
      int(vm.count("ipv4")) + int(vm.count("ipv6")) + int(vm.count("bridge"));
  if (families > 1)
    return usage_error(program, "-4, -6 and --bridge exclude each other");
  t.family = vm.count("ipv6")     ? Family::ipv6
             : vm.count("bridge") ? Family::bridge
                                  : Family::ipv4;
  if (vm.count("legacy") || (vm.count("backend") && backend == "legacy"))
    t.backend = Backend::legacy;
  else if (vm.count("backend") && backend != "nft")
    return usage_error(program, "--backend takes nft or legacy");
  if (t.family == Family::bridge && t.backend == Backend::legacy)
    return usage_error(program, "there are no legacy bridge tables");

  // The file, read whole for the tables it names (the load reads it by
  // its path).
  const std::string file = vm["file"].as<std::string>();
  std::string input;
  {
    std::ifstream in(file);
    if (!in) {
      std::cerr << "fastrestore apply: cannot open " << file << ": "
                << std::strerror(errno) << "\n";
      return 1;
    }
    std::stringstream s;
    s << in.rdbuf();
    input = s.str();
  }
  const std::vector<std::string> tables = tables_named(input, "");
  if (tables.empty()) {
    std::cerr << "fastrestore apply: " << file << " names no table\n";
    return 1;
  }
  const std::string dir = apply::pending_dir(t);
  if (access((dir + "/input").c_str(), F_OK) == 0) {
    std::cerr << "fastrestore apply: a change of the " << t.name()
              << " tables waits for confirmation already (" << dir
              << "): confirm it (fastrestore apply --confirm) or let it roll "
                 "back first\n";
    return 1;
  }
  unlink((dir + ".result").c_str());
  if (!mkdirs(dir)) {
    std::cerr << "fastrestore apply: cannot make " << dir << ": "
              << std::strerror(errno) << "\n";
    return 1;
  }
  // What the load replaces: each table's save with its counters, or, for
  // a table the load makes, an empty block (the rollback empties it).
  std::string rollback;
  for (const std::string &table : tables) {
    std::string out;
    if (apply::run_self(apply::save_args(t, table, t.family != Family::bridge),
                        "", &out, false) == 0 &&
        !out.empty())
      rollback += out;
    else
      rollback += "*" + table + "\nCOMMIT\n";
  }
  std::string list;
  for (const std::string &table : tables)
    list += table + "\n";
  apply::write_text(dir + "/rollback.rules", rollback);
  apply::write_text(dir + "/tables", list);

  // The load: all of FILE or none of it.
  std::vector<std::string> load = t.options();
  if (t.backend == Backend::nft)
    load.push_back("--all-or-nothing");
  std::string path = file;
  if (char *real = realpath(file.c_str(), nullptr)) {
    path = real;
    free(real);
  }
  load.push_back(path);
  if (const int status = apply::run_self(load, "", nullptr, true);
      status != 0) {
    apply::remove_dir(dir);
    std::cerr << "fastrestore apply: " << file
              << " did not load (nothing of it was applied)\n";
    return status;
  }
  apply::write_text(dir + "/after.rules", apply::tables_text(t, tables));
  apply::write_text(dir + "/input", path);
  std::cout.flush();
  std::cerr.flush();
  if (!apply::start_watcher(dir, t, seconds)) {
    std::cerr << "fastrestore apply: could not start the watcher that rolls "
                 "back; "
              << file << " stays loaded\n";
    return 1;
  }
  std::string names;
  for (const std::string &table : tables)
    names += (names.empty() ? "" : ", ") + table;
  std::cerr << "fastrestore apply: loaded " << file << " (" << t.name()
            << " tables " << names
            << (t.backend == Backend::legacy
                    ? "; legacy: one table replacement each, and the "
                      "rollback the same"
                    : "; one transaction, and the rollback one too")
            << ")\n";
  if (isatty(STDIN_FILENO) != 1 || isatty(STDERR_FILENO) != 1) {
    std::cerr << "fastrestore apply: rolled back in " << seconds
              << " s unless confirmed: fastrestore apply --confirm\n";
    return 0;
  }
  std::cerr << "fastrestore apply: keep it? Type yes within " << seconds
            << " s (or run fastrestore apply --confirm elsewhere); "
               "anything else rolls back now: "
            << std::flush;
  const std::string answer = ask(seconds);
  if (answer == "yes")
    apply::write_text(dir + "/confirmed", "");
  else if (!answer.empty() && access(dir.c_str(), F_OK) == 0)
    apply::write_text(dir + "/rollback-now", "");
  if (answer.empty())
    std::cerr << "\n";
  apply::Outcome o;
  if (!apply::wait_outcome(dir, 30, o)) {
    std::cerr << "fastrestore apply: the watcher did not answer (" << dir
              << ")\n";
    return 1;
  }
  std::cerr << "fastrestore apply: " << o.text << "\n";
  return o.status;
}

} // namespace fastrestore
