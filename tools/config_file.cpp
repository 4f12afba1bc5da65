#include "config_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace po = boost::program_options;

namespace fastrestore {
namespace {

// The line of `text` that sets `name` (1-based), or 0.
int line_of(const std::string &text, const std::string &name) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] == '#')
      continue;
    size_t end = line.find_first_of(" \t=", i);
    if (line.compare(i, end == std::string::npos ? std::string::npos : end - i,
                     name) == 0)
      return n;
  }
  return 0;
}

} // namespace

std::string config_file_path() {
  const char *env = std::getenv("FASTRESTORE_CONFIG");
  return env != nullptr && *env != '\0' ? env : "/etc/fastrestore.conf";
}

bool apply_config_file(const std::string &path, const po::variables_map &given,
                       RestoreConfig &cfg, std::string &error) {
  std::ifstream file(path);
  if (!file) {
    if (errno == ENOENT)
      return true;
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::stringstream text;
  text << file.rdbuf();
  const std::string body = text.str();

  po::options_description settings;
  // clang-format off
  settings.add_options()
    ("incremental", po::value<bool>())
    ("coalesce", po::value<int>())
    ("stats", po::value<bool>());
  // clang-format on
  auto where = [&](const std::string &name) {
    int n = line_of(body, name);
    return path + (n > 0 ? ", line " + std::to_string(n) : "") + ": ";
  };
  po::variables_map vm;
  try {
    std::istringstream in(body);
    po::parsed_options parsed = po::parse_config_file(in, settings, true);
    for (const auto &o : parsed.options)
      if (o.unregistered) {
        static const std::set<std::string> meaning = {
            "noflush", "table",          "test",     "counters",    "verbose",
            "legacy",  "backend",        "family",   "ipv4",        "ipv6",
            "bridge",  "all-or-nothing", "optimize", "optimize-min"};
        error = where(o.string_key) + "`" + o.string_key + "' " +
                (meaning.count(o.string_key)
                     ? "changes what a restore means: give it on the "
                       "command line"
                     : "is no setting (incremental, coalesce, stats)");
        return false;
      }
    po::store(parsed, vm);
  } catch (const po::validation_error &e) {
    std::string name = e.get_option_name();
    name.erase(0, name.find_first_not_of('-'));
    error = where(name) + e.what();
    return false;
  } catch (const po::error &e) {
    error = path + ": " + e.what();
    return false;
  }
  if (vm.count("incremental") && !given.count("incremental"))
    cfg.incremental = vm["incremental"].as<bool>();
  // --all-or-nothing sends every block at once: no grouping to set.
  if (vm.count("coalesce") && !given.count("coalesce") &&
      !given.count("all-or-nothing")) {
    cfg.coalesce_ms = vm["coalesce"].as<int>();
    if (cfg.coalesce_ms < 0) {
      error = where("coalesce") + "coalesce takes milliseconds (0 or more)";
      return false;
    }
  }
  if (vm.count("stats") && !given.count("stats"))
    cfg.stats = vm["stats"].as<bool>();
  return true;
}

} // namespace fastrestore
