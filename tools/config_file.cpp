#include "config_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
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

constexpr size_t kMaxConfig = 64 * 1024;

// Whether a component of `path` (the file itself included) is a symlink
// that a user other than root owns: such a link can steer every restore.
bool foreign_link(const std::string &path, std::string &error) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string part = path.substr(0, end);
    struct stat st;
    if (!part.empty() && lstat(part.c_str(), &st) == 0 && S_ISLNK(st.st_mode) &&
        st.st_uid != 0) {
      error = path + ": reached through " + part +
              ", a symlink owned by another user than root";
      return true;
    }
    if (end == std::string::npos)
      return false;
  }
}

// The file's text, when it is a regular file owned by root and writable
// by root alone (as sshd's StrictModes asks of its files), of at most
// kMaxConfig bytes; nullopt when it does not exist. A FIFO or a device
// is refused without reading it.
bool read_config(const std::string &path, std::optional<std::string> &text,
                 std::string &error) {
  if (foreign_link(path, error))
    return false;
  const int fd =
      open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT)
      return true;
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    error = path + ": not a regular file";
  else if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    error = path + ": not owned by root and writable by root alone";
  else if (static_cast<uint64_t>(st.st_size) > kMaxConfig)
    error = path + ": larger than " + std::to_string(kMaxConfig) + " bytes";
  if (!error.empty()) {
    close(fd);
    return false;
  }
  std::string body(kMaxConfig + 1, '\0');
  size_t got = 0;
  while (got < body.size()) {
    const ssize_t n = read(fd, body.data() + got, body.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      error = path + ": " + std::strerror(errno);
    if (n <= 0)
      break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got > kMaxConfig)
    error = path + ": larger than " + std::to_string(kMaxConfig) + " bytes";
  if (!error.empty())
    return false;
  body.resize(got);
  text = std::move(body);
  return true;
}

} // namespace

std::string config_file_path() {
  const char *env = std::getenv("FASTRESTORE_CONFIG");
  return env != nullptr && *env != '\0' ? env : "/etc/fastrestore.conf";
}

bool apply_config_file(const std::string &path, const po::variables_map &given,
                       RestoreConfig &cfg, std::string &error) {
  std::optional<std::string> text;
  if (!read_config(path, text, error))
    return false;
  if (!text)
    return true;
  const std::string &body = *text;

  po::options_description settings;
  // clang-format off
  settings.add_options()
    ("incremental", po::value<bool>())
    ("coalesce", po::value<int>())
    ("stats", po::value<bool>())
    ("log", po::value<bool>());
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
                     : "is no setting (incremental, coalesce, stats, log)");
        return false;
      }
    // Boost reads a bare `name =` as true: every setting needs its value.
    for (const auto &o : parsed.options)
      if (o.value.empty() || o.value.front().empty()) {
        error = where(o.string_key) + "`" + o.string_key + "' has no value";
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
  if (vm.count("log") && !given.count("log"))
    cfg.log = vm["log"].as<bool>();
  return true;
}

} // namespace fastrestore
