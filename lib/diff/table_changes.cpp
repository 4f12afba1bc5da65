// A table's changes from its two saves (table_changes.h): the lines both
// saves keep are found with the unified diff's line script; a chain line
// removed and added again with another policy is a policy change.
#include "fastrestore/table_changes.h"

#include <map>
#include <string_view>

#include "diag/json.h"
#include "fastrestore/unified_diff.h"

namespace fastrestore {
namespace {

// A save line's chain: ":NAME POLICY ..." declares it, "-A NAME ..." (or
// "[p:b] -A NAME ..." with counters) appends to it. Empty for others.
struct LineKind {
  bool declares = false, appends = false;
  std::string_view chain, policy;
};

std::string_view word(std::string_view s, size_t &at) {
  while (at < s.size() && s[at] == ' ')
    ++at;
  const size_t start = at;
  while (at < s.size() && s[at] != ' ')
    ++at;
  return s.substr(start, at - start);
}

LineKind kind_of(std::string_view line) {
  LineKind k;
  size_t at = 0;
  if (!line.empty() && line.front() == ':') {
    at = 1;
    k.declares = true;
    k.chain = word(line, at);
    k.policy = word(line, at);
    return k;
  }
  std::string_view w = word(line, at);
  if (!w.empty() && w.front() == '[')
    w = word(line, at);
  if (w == "-A") {
    k.appends = true;
    k.chain = word(line, at);
  }
  return k;
}

// Each rule line's position in its chain (1-based; 0 for other lines).
std::vector<size_t> positions(const std::vector<std::string_view> &lines) {
  std::vector<size_t> out(lines.size(), 0);
  std::map<std::string_view, size_t> count;
  for (size_t i = 0; i < lines.size(); ++i) {
    const LineKind k = kind_of(lines[i]);
    if (k.appends)
      out[i] = ++count[k.chain];
  }
  return out;
}

std::string strings_json(const std::vector<std::string> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? "," : "") + json_quote(v[i]);
  return out + "]";
}

std::string rules_json(const std::vector<RuleChange> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? "," : "") + JsonObject()
                                .text("chain", v[i].chain)
                                .number("position", v[i].position)
                                .text("rule", v[i].rule)
                                .str();
  return out + "]";
}

} // namespace

TableChanges table_changes(const TableTexts &t) {
  TableChanges c;
  c.table = t.table;
  const std::vector<std::string_view> a = split_lines(t.before);
  const std::vector<std::string_view> b = split_lines(t.after);
  const std::vector<size_t> pos_a = positions(a), pos_b = positions(b);
  // Chains declared on each side, with their policies.
  std::map<std::string_view, std::string_view> declared_a, declared_b;
  for (std::string_view l : a)
    if (const LineKind k = kind_of(l); k.declares)
      declared_a[k.chain] = k.policy;
  for (std::string_view l : b)
    if (const LineKind k = kind_of(l); k.declares)
      declared_b[k.chain] = k.policy;
  for (const auto &[chain, policy] : declared_b) {
    const auto was = declared_a.find(chain);
    if (was == declared_a.end())
      c.chains_added.emplace_back(chain);
    else if (was->second != policy)
      c.policies.push_back(
          {std::string(chain), std::string(was->second), std::string(policy)});
  }
  for (const auto &[chain, policy] : declared_a)
    if (declared_b.count(chain) == 0)
      c.chains_removed.emplace_back(chain);
  for (const Edit &e : line_edits(a, b)) {
    if (e.kind == EditKind::remove) {
      if (const LineKind k = kind_of(a[e.a]); k.appends)
        c.rules_removed.push_back(
            {std::string(k.chain), pos_a[e.a], std::string(a[e.a])});
    } else if (e.kind == EditKind::add) {
      if (const LineKind k = kind_of(b[e.b]); k.appends)
        c.rules_added.push_back(
            {std::string(k.chain), pos_b[e.b], std::string(b[e.b])});
    }
  }
  return c;
}

std::string changes_json(const std::vector<TableChanges> &tables) {
  std::string list = "[";
  bool changed = false;
  for (const TableChanges &t : tables) {
    if (t.empty())
      continue;
    std::string policies = "[";
    for (size_t i = 0; i < t.policies.size(); ++i)
      policies += (i ? "," : "") + JsonObject()
                                       .text("chain", t.policies[i].chain)
                                       .text("before", t.policies[i].before)
                                       .text("after", t.policies[i].after)
                                       .str();
    policies += "]";
    list += (changed ? "," : "") +
            JsonObject()
                .text("table", t.table)
                .raw("chains_added", strings_json(t.chains_added))
                .raw("chains_removed", strings_json(t.chains_removed))
                .raw("policies", policies)
                .raw("rules_added", rules_json(t.rules_added))
                .raw("rules_removed", rules_json(t.rules_removed))
                .str();
    changed = true;
  }
  list += "]";
  return JsonObject().boolean("changed", changed).raw("tables", list).str();
}

std::string failure_json(int exit_status, const std::string &error) {
  return JsonObject()
      .boolean("changed", false)
      .number("exit_status", static_cast<uint64_t>(exit_status))
      .text("error", error)
      .str();
}

} // namespace fastrestore
