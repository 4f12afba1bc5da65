#include "parse/protocols.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace fastrestore {
namespace {

struct Builtin {
  const char *name;
  int num;
};
// Same order and content as libxtables' xtables_chain_protos.
constexpr Builtin kBuiltin[] = {
    {"tcp", 6},       {"sctp", 132},
    {"udp", 17},      {"udplite", 136},
    {"icmp", 1},      {"ipv6-icmp", 58},
    {"icmpv6", 58},   {"esp", 50},
    {"ah", 51},       {"mobility-header", 135},
    {"ipv6-mh", 135}, {"mh", 135},
    {"all", 0},
};

const std::unordered_map<std::string, int> &system_protocols() {
  static std::unordered_map<std::string, int> table;
  static std::once_flag once;
  std::call_once(once, [] {
    std::ifstream in("/etc/protocols");
    std::string line;
    while (std::getline(in, line)) {
      auto hash = line.find('#');
      if (hash != std::string::npos)
        line.resize(hash);
      std::istringstream words(line);
      std::string name, alias;
      int num;
      if (!(words >> name >> num))
        continue;
      table.emplace(name, num);
      while (words >> alias)
        table.emplace(alias, num);
    }
  });
  return table;
}

} // namespace

std::optional<int> protocol_number(const std::string &name) {
  if (!name.empty()) {
    char *end = nullptr;
    unsigned long v = std::strtoul(name.c_str(), &end, 0);
    if (*end == '\0' && name[0] != '-' && name[0] != '+')
      return v <= 255 ? std::optional<int>(int(v)) : std::nullopt;
  }
  for (const auto &b : kBuiltin)
    if (name == b.name)
      return b.num;
  const auto &sys = system_protocols();
  auto it = sys.find(name);
  if (it != sys.end())
    return it->second;
  return std::nullopt;
}

const char *builtin_protocol_name(int number) {
  for (const auto &b : kBuiltin)
    if (b.num == number)
      return b.name;
  return nullptr;
}

} // namespace fastrestore
