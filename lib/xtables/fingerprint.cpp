#include "xtables/parse_fingerprint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <xtables.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fastrestore/version.h"
#include "sys/hash64.h"

namespace fastrestore {
namespace {

std::string file_text(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string stat_text(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return "-";
  return std::to_string(st.st_size) + "." + std::to_string(st.st_mtim.tv_sec) +
         "." + std::to_string(st.st_mtim.tv_nsec) + "." +
         std::to_string(st.st_ino);
}

// Where libxtables loads plugins from (its own rule: the environment, or
// the directory it was built with).
std::string plugin_dir() {
  for (const char *var : {"XTABLES_LIBDIR", "IPTABLES_LIB_DIR"})
    if (const char *d = std::getenv(var))
      return d;
  return FASTRESTORE_XTLIBDIR;
}

std::string plugins_text() {
  std::string dir = plugin_dir(), out = dir + "\n";
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      names.emplace_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const auto &n : names)
    out += n + " " + stat_text(dir + "/" + n) + "\n";
  return out;
}

} // namespace

uint64_t parse_fingerprint(Family family, bool counters) {
  uint64_t h = hash64(kVersion);
  h = hash64(stat_text("/proc/self/exe"), h);
  h = hash64(XTABLES_VERSION, h);
  h = hash64(plugins_text(), h);
  for (const char *f : {"/etc/protocols", "/etc/services", "/etc/ethertypes"})
    h = hash64(file_text(f), h);
  const char tail[2] = {static_cast<char>(family), counters ? '1' : '0'};
  return hash64(std::string_view(tail, 2), h);
}

} // namespace fastrestore
