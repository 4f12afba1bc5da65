// `fastrestore diff [-4|-6|--bridge] [--legacy] [-n] [-c] [-T table]
// [--color[=WHEN]] [--commands | --json] [FILE]`: the input read as a restore
// with the same options would read it, loaded into a copy of the tables it
// names in a private network namespace (load_preview.h), and the tables' saves
// before and after printed as a unified diff (or as the commands that make the
// change, or as JSON: table_changes.h). Nothing is sent to the caller's
// kernel.
#include "diff_cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "fastrestore/load_preview.h"
#include "fastrestore/noflush_commands.h"
#include "fastrestore/table_changes.h"
#include "fastrestore/unified_diff.h"
#include "fastrestore/xt_lookup.h"

namespace po = boost::program_options;

namespace fastrestore {
namespace {

constexpr int kTrouble = 2; // diff(1)'s status for trouble

bool read_input(int fd, std::string &out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0)
      return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

// The hunk's place in the saves: `*table CHAIN` (the table line above the
// line, and the chain the line declares or appends to).
std::string section(const std::vector<std::string_view> &lines, size_t i) {
  std::string table, chain;
  for (size_t k = i + 1; k-- > 0;)
    if (!lines[k].empty() && lines[k].front() == '*') {
      table = std::string(lines[k]);
      break;
    }
  const std::string_view l = i < lines.size() ? lines[i] : std::string_view();
  std::string_view rest;
  if (l.rfind("-A ", 0) == 0)
    rest = l.substr(3);
  else if (!l.empty() && l.front() == ':')
    rest = l.substr(1);
  if (!rest.empty())
    chain = std::string(rest.substr(0, rest.find(' ')));
  return chain.empty() ? table : table + " " + chain;
}

} // namespace

int diff_main(const Program &program, int argc, char **argv) {
  po::options_description desc("Options");
  std::string color = "auto";
  // clang-format off
  desc.add_options()
    ("help,h", "print this help and exit")
    ("ipv4,4", "read iptables-save text (the default)")
    ("ipv6,6", "read ip6tables-save text")
    ("bridge", "read ebtables-save text (the bridge family)")
    ("legacy", "compare with the legacy x_tables tables")
    ("noflush,n", "the input adds to the tables (as restore --noflush)")
    ("counters,c", "compare packet and byte counters too (restore -c)")
    ("optimize", "preview a load with --optimize (rules matching its sets "
     "are compared as the rules they stand for)")
    ("table,T", po::value<std::string>(), "only this table of the input")
    ("color", po::value<std::string>(&color)->implicit_value("always"),
     "colour the diff: auto (on a terminal, the default), always or never")
    ("commands", "print the --noflush restore input that makes the change "
     "(rule numbers as the tables are now) instead of the diff")
    ("json", "print the changes as one JSON object (chains added and "
     "removed, policies changed, rules added and removed with their chain "
     "and position) instead of the diff")
    ("verbose,v", "say on standard error how the kernel's side was known "
     "(the journal, or a copy of the tables)");
  // clang-format on
  po::variables_map vm;
  if (!parse_subcommand(program, desc, {argv + 2, argv + argc}, "diff", vm))
    return kTrouble;
  if (vm.count("help")) {
    std::cout << "Usage: fastrestore diff [-4|-6|--bridge] [--legacy] [-n] "
                 "[-c] [-T table] [-v] [--optimize]\n"
                 "                        [--color[=WHEN]] [--commands | "
                 "--json] [FILE]\n"
                 "Prints what loading FILE (restore input; standard input "
                 "without FILE or\nwith -) would change in the tables it "
                 "names, as a unified diff of their\nsaves; sends nothing.\n"
                 "Exit status: "
                 "0 no change, 1 changes, 2 trouble (bad input, a table "
                 "that\ncannot be read).\n\n"
              << desc;
    return 0;
  }
  RestoreConfig cfg;
  cfg.family = program.family;
  cfg.backend = program.backend;
  const int families =
      int(vm.count("ipv4")) + int(vm.count("ipv6")) + int(vm.count("bridge"));
  if (families > 1) {
    command_line_error(program, "-4, -6 and --bridge exclude each other",
                       "diff");
    return kTrouble;
  }
  if (vm.count("ipv6"))
    cfg.family = Family::ipv6;
  else if (vm.count("bridge"))
    cfg.family = Family::bridge;
  else if (vm.count("ipv4"))
    cfg.family = Family::ipv4;
  if (vm.count("legacy"))
    cfg.backend = Backend::legacy;
  cfg.noflush = vm.count("noflush") > 0;
  cfg.counters = vm.count("counters") > 0;
  cfg.optimize = vm.count("optimize") > 0;
  if (cfg.optimize && (cfg.noflush || cfg.family == Family::bridge)) {
    command_line_error(program,
                       "--optimize applies to iptables and ip6tables "
                       "table replacements",
                       "diff");
    return kTrouble;
  }
  if (vm.count("table"))
    cfg.table = vm["table"].as<std::string>();
  if (cfg.family == Family::bridge && cfg.backend == Backend::legacy) {
    command_line_error(program, "there are no legacy bridge tables", "diff");
    return kTrouble;
  }
  const bool json = vm.count("json") > 0;
  if (json && vm.count("commands")) {
    command_line_error(program, "--json and --commands exclude each other",
                       "diff");
    return kTrouble;
  }
  if (color != "auto" && color != "always" && color != "never") {
    command_line_error(
        program, "--color takes auto, always or never, not `" + color + "'",
        "diff");
    return kTrouble;
  }

  std::string input;
  std::string name = "-";
  int fd = STDIN_FILENO;
  // ("-": standard input, as without FILE.)
  if (vm.count("file") && vm["file"].as<std::string>() != "-") {
    name = vm["file"].as<std::string>();
    cfg.input_name = name;
    fd = open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      std::cerr << "fastrestore diff: cannot open " << name << ": "
                << std::strerror(errno) << "\n";
      return kTrouble;
    }
  }
  const bool read_ok = read_input(fd, input);
  if (fd != STDIN_FILENO)
    close(fd);
  if (!read_ok) {
    std::cerr << "fastrestore diff: cannot read " << name << ": "
              << std::strerror(errno) << "\n";
    return kTrouble;
  }

  std::string how;
  const LoadPreview preview = preview_load(input, cfg, &how);
  if (vm.count("verbose") && preview.status == 0)
    std::cerr << "fastrestore diff: the kernel's tables as told by " << how
              << "\n";
  if (preview.status != 0) {
    if (!preview.error.empty())
      std::cerr << "fastrestore diff: " << preview.error << "\n";
    if (json)
      std::cout << failure_json(kTrouble, !preview.error.empty()
                                              ? preview.error
                                              : "the input would not load (the "
                                                "message is on standard error)")
                << std::endl;
    return kTrouble; // never 1: a broken file is not a change
  }
  if (json) {
    std::vector<TableChanges> changes;
    bool changed = false;
    for (const TableTexts &t : preview.tables) {
      changes.push_back(table_changes(t));
      changed = changed || !changes.back().empty();
    }
    std::cout << changes_json(changes) << std::endl;
    return changed ? 1 : 0;
  }
  if (vm.count("commands")) {
    std::string commands;
    for (const TableTexts &t : preview.tables)
      commands += noflush_commands(
          t.before, t.after, cfg.family, cfg.counters,
          [](std::string_view name) {
            return peek_target(std::string(name).c_str()) != nullptr;
          });
    std::cout << commands;
    std::cout.flush();
    return commands.empty() ? 0 : 1;
  }
  std::string before, after;
  for (const TableTexts &t : preview.tables) {
    before += t.before;
    after += t.after;
  }
  const std::vector<std::string_view> a = split_lines(before);
  const std::vector<std::string_view> b = split_lines(after);
  UnifiedDiffOptions opts;
  opts.a_name = "kernel";
  opts.b_name = name;
  opts.color =
      color == "always" || (color == "auto" && isatty(STDOUT_FILENO) == 1);
  opts.section = [&](bool b_side, size_t line) {
    return section(b_side ? b : a, line);
  };
  const std::string text = unified_diff(a, b, opts);
  std::cout << text;
  std::cout.flush();
  return text.empty() ? 0 : 1;
}

} // namespace fastrestore
