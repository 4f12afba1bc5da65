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

// One save, read once: each line's kind, each rule line's position in its
// chain (1-based; 0 for other lines), and the chains it declares with
// their policies.
struct Side {
  std::vector<LineKind> kinds;
  std::vector<size_t> positions;
  std::map<std::string_view, std::string_view> declared;
};

Side read_side(const std::vector<std::string_view> &lines) {
  Side side;
  side.kinds.reserve(lines.size());
  side.positions.assign(lines.size(), 0);
  std::map<std::string_view, size_t> count;
  for (size_t i = 0; i < lines.size(); ++i) {
    const LineKind &k = side.kinds.emplace_back(kind_of(lines[i]));
    if (k.appends)
      side.positions[i] = ++count[k.chain];
    else if (k.declares)
      side.declared[k.chain] = k.policy;
  }
  return side;
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
  const Side sa = read_side(a), sb = read_side(b);
  for (const auto &[chain, policy] : sb.declared) {
    const auto was = sa.declared.find(chain);
    if (was == sa.declared.end())
      c.chains_added.emplace_back(chain);
    else if (was->second != policy)
      c.policies.push_back(
          {std::string(chain), std::string(was->second), std::string(policy)});
  }
  for (const auto &[chain, policy] : sa.declared)
    if (sb.declared.count(chain) == 0)
      c.chains_removed.emplace_back(chain);
  for (const Edit &e : line_edits(a, b)) {
    if (e.kind == EditKind::remove) {
      if (const LineKind &k = sa.kinds[e.a]; k.appends)
        c.rules_removed.push_back(
            {std::string(k.chain), sa.positions[e.a], std::string(a[e.a])});
    } else if (e.kind == EditKind::add) {
      if (const LineKind &k = sb.kinds[e.b]; k.appends)
        c.rules_added.push_back(
            {std::string(k.chain), sb.positions[e.b], std::string(b[e.b])});
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
