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

namespace fastrestore::save {
namespace {

struct Member {
  std::string address; // with its prefix length, as iptables-save prints it
  std::string packets = "0", bytes = "0";
  std::optional<std::string> comment;
  std::array<uint8_t, 17> order{}; // address bytes, then the prefix length
};

// A member from its `ipset save` line: "add NAME ADDR[/P] [packets P bytes
// B] [comment "TEXT"]".
std::optional<Member> read_member(const std::string &line, bool ipv6) {
  std::vector<std::string> words;
  size_t at = 0;
  const size_t comment = line.find(" comment \"");
  const std::string head = line.substr(0, comment);
  while (at < head.size()) {
    const size_t end = std::min(head.find(' ', at), head.size());
    if (end > at)
      words.push_back(head.substr(at, end - at));
    at = end + 1;
  }
  if (words.size() < 3)
    return std::nullopt;
  Member m;
  std::string address = words[2];
  const size_t slash = address.find('/');
  std::string prefix = ipv6 ? "128" : "32";
  if (slash != std::string::npos) {
    prefix = address.substr(slash + 1);
    address.resize(slash);
  }
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, address.c_str(), m.order.data()) !=
      1)
    return std::nullopt;
  m.order[16] = static_cast<uint8_t>(std::stoi(prefix));
  m.address = address + "/" + prefix;
  for (size_t i = 3; i + 1 < words.size(); i += 2) {
    if (words[i] == "packets")
      m.packets = words[i + 1];
    else if (words[i] == "bytes")
      m.bytes = words[i + 1];
  }
  if (comment != std::string::npos) {
    const size_t open = comment + 10, close = line.rfind('"');
    if (close != std::string::npos && close >= open)
      m.comment = line.substr(open, close - open);
  }
  return m;
}

// iptables-save's quoting of a comment.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

std::string expand_sets(std::string_view text, Family family, bool counters,
                        std::string *error) {
  const bool ipv6 = family == Family::ipv6;
  std::map<std::string, std::vector<Member>> sets;
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
      auto lines = ipset::set_members(name, error);
      if (!lines)
        return {};
      std::vector<Member> members;
      for (const std::string &l : *lines)
        if (auto m = read_member(l, ipv6))
          members.push_back(std::move(*m));
      std::sort(
          members.begin(), members.end(),
          [](const Member &a, const Member &b) { return a.order < b.order; });
      it = sets.emplace(name, std::move(members)).first;
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
    for (const Member &m : it->second) {
      std::string r = rule.substr(chain_at, key_at - chain_at) +
                      (dir == "src" ? " -s " : " -d ") + m.address +
                      rule.substr(key_at, verdict - key_at);
      if (m.comment)
        r += " -m comment --comment " + quoted(*m.comment);
      r += rule.substr(verdict);
      if (counters)
        r = "[" + m.packets + ":" + m.bytes + "] " + r;
      out += r + "\n";
    }
  }
  if (!text.empty() && text.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

} // namespace fastrestore::save
