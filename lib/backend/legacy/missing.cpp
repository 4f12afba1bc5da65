#include "missing.h"

#include <sys/utsname.h>

#include <xtables.h>

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace fastrestore::legacy {
namespace {

std::set<std::string> listed(const std::string &path) {
  std::set<std::string> names;
  std::ifstream in(path);
  for (std::string name; in >> name;)
    names.insert(name);
  return names;
}

// The module the kernel's index names for an extension (modules.alias maps
// ipt_/ip6t_/xt_ names to modules; modules.dep lists xt_NAME itself).
std::string module_for(const std::string &name, Family family) {
  struct utsname u;
  if (uname(&u) != 0)
    return "";
  const std::string dir = std::string("/lib/modules/") + u.release + "/";
  const std::string legacy = (family == Family::ipv6 ? "ip6t_" : "ipt_") + name;
  std::ifstream alias(dir + "modules.alias");
  for (std::string line; std::getline(alias, line);) {
    std::istringstream w(line);
    std::string kw, from, to;
    if (w >> kw >> from >> to && kw == "alias" &&
        (from == "xt_" + name || from == legacy))
      return to;
  }
  std::ifstream dep(dir + "modules.dep");
  for (std::string line; std::getline(dep, line);) {
    const std::string file = line.substr(0, line.find(':'));
    const std::string base = file.substr(file.rfind('/') + 1);
    for (const std::string &m : {"xt_" + name, legacy})
      if (base.rfind(m + ".ko", 0) == 0)
        return m;
  }
  return "";
}

} // namespace

std::string missing_extension(const std::string &line, Family family) {
  const std::string proc =
      family == Family::ipv6 ? "/proc/net/ip6_tables_" : "/proc/net/ip_tables_";
  const auto matches = listed(proc + "matches");
  const auto targets = listed(proc + "targets");
  if (matches.empty() && targets.empty())
    return "";
  std::istringstream words(line);
  std::vector<std::string> w;
  for (std::string s; words >> s;)
    w.push_back(s);
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    const std::string &opt = w[i], &name = w[i + 1];
    std::string kind;
    if ((opt == "-m" || opt == "--match") && !matches.count(name))
      kind = "match";
    else if ((opt == "-j" || opt == "--jump") && !targets.count(name) &&
             name != "ACCEPT" && name != "DROP" && name != "RETURN" &&
             name != "QUEUE" &&
             // An extension target, not a chain of the table.
             xtables_find_target(name.c_str(), XTF_DONT_LOAD) != nullptr)
      kind = "target";
    if (kind.empty())
      continue;
    const std::string module = module_for(name, family);
    return kind + " `" + name + "' is not in this kernel" +
           (module.empty() ? ", and no installed module provides it"
                           : "; its module " + module + " is not loaded");
  }
  return "";
}

} // namespace fastrestore::legacy
