// save --expand: each rule that matches one of fastrestore's sets
// (--optimize) printed again as the rules it stands for, one per member,
// in the save's own spelling.
#include "expand.h"

#include <arpa/inet.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "fastrestore/ipsets.h"
#include "fastrestore/restore_word.h"

namespace fastrestore::save {
namespace {

// A member as the rule it stands for prints it: its address with its
// prefix length, as iptables-save prints an address.
std::string address_text(const ipset::Member &m, bool ipv6) {
  char text[INET6_ADDRSTRLEN];
  if (inet_ntop(ipv6 ? AF_INET6 : AF_INET, m.address.data(), text,
                sizeof(text)) == nullptr)
    return {};
  return std::string(text) + "/" + std::to_string(m.prefix);
}

} // namespace

std::string expand_sets(std::string_view text, Family family, bool counters,
                        std::string *error) {
  const bool ipv6 = family == Family::ipv6;
  std::map<std::string, std::vector<ipset::Member>> sets;
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos)
      nl = text.size();
    const std::string line(text.substr(start, nl - start));
    start = nl + 1;
    const std::string marker =
        " -m set --match-set " + std::string(ipset::kPrefix);
    const size_t at = line.find(marker);
    const size_t chain_at = line.find("-A ");
    if (at == std::string::npos || chain_at == std::string::npos) {
      out += line + "\n";
      continue;
    }
    const size_t name_at = at + 20;
    const size_t name_end = line.find(' ', name_at);
    const std::string name = line.substr(name_at, name_end - name_at);
    const std::string dir =
        name_end == std::string::npos ? "" : line.substr(name_end + 1, 3);
    if (dir != "src" && dir != "dst") {
      out += line + "\n";
      continue;
    }
    auto it = sets.find(name);
    if (it == sets.end()) {
      auto members = ipset::read_members(name, ipv6, error);
      if (!members)
        return {};
      it = sets.emplace(name, std::move(*members)).first;
    }
    // The rule without the set match; where its address goes.
    std::string rule = line.substr(0, at) + line.substr(name_end + 4);
    const size_t chain_end = rule.find(' ', chain_at + 3);
    size_t key_at = chain_end == std::string::npos ? rule.size() : chain_end;
    if (dir == "dst" && rule.compare(key_at, 4, " -s ") == 0)
      key_at = rule.find(' ', key_at + 4);
    if (key_at == std::string::npos)
      key_at = rule.size();
    const size_t jump = rule.find(" -j ");
    const size_t goto_at = rule.find(" -g ");
    const size_t verdict =
        std::min(jump == std::string::npos ? rule.size() : jump,
                 goto_at == std::string::npos ? rule.size() : goto_at);
    for (const ipset::Member &m : it->second) {
      std::string r = rule.substr(chain_at, key_at - chain_at) +
                      (dir == "src" ? " -s " : " -d ") + address_text(m, ipv6) +
                      rule.substr(key_at, verdict - key_at);
      if (m.comment)
        r += " -m comment --comment " + quoted_word(*m.comment);
      r += rule.substr(verdict);
      if (counters)
        r = "[" + std::to_string(m.packets) + ":" + std::to_string(m.bytes) +
            "] " + r;
      out += r + "\n";
    }
  }
  if (!text.empty() && text.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

} // namespace fastrestore::save
