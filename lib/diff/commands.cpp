// noflush_commands.h: two saves of a table read as chains (name, policy)
// and rule lines, and the commands that make the one the other.
#include "fastrestore/noflush_commands.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fastrestore/tables.h"
#include "fastrestore/unified_diff.h"

namespace fastrestore {
namespace {

struct SavedChain {
  std::string_view name, policy;
  std::string_view chain_counters;        // "[p:b]" after the policy (-c)
  std::vector<std::string_view> rules;    // the line after "-A NAME "
  std::vector<std::string_view> counters; // "[p:b] " before it, or ""
};

struct SavedTable {
  std::string_view name;
  std::vector<SavedChain> chains;
  std::unordered_map<std::string_view, size_t> index; // chains by name
  const SavedChain *find(std::string_view chain) const {
    auto it = index.find(chain);
    return it == index.end() ? nullptr : &chains[it->second];
  }
};

std::string_view first_word(std::string_view s) {
  return s.substr(0, s.find(' '));
}

SavedTable read_save(std::string_view text) {
  SavedTable t;
  for (std::string_view line : split_lines(text)) {
    if (line.empty() || line.front() == '#' || line == "COMMIT")
      continue;
    if (line.front() == '*') {
      t.name = line.substr(1);
      continue;
    }
    if (line.front() == ':') {
      line.remove_prefix(1);
      SavedChain c;
      c.name = first_word(line);
      line.remove_prefix(std::min(line.size(), c.name.size() + 1));
      c.policy = first_word(line);
      line.remove_prefix(std::min(line.size(), c.policy.size() + 1));
      c.chain_counters = first_word(line);
      t.index.emplace(c.name, t.chains.size());
      t.chains.push_back(c);
      continue;
    }
    std::string_view counters;
    if (line.front() == '[') {
      const size_t end = line.find("] ");
      if (end == std::string_view::npos)
        continue;
      counters = line.substr(0, end + 2);
      line.remove_prefix(end + 2);
    }
    if (line.rfind("-A ", 0) != 0)
      continue;
    line.remove_prefix(3);
    const std::string_view chain = first_word(line);
    line.remove_prefix(std::min(line.size(), chain.size() + 1));
    auto it = t.index.find(chain);
    if (it != t.index.end()) {
      t.chains[it->second].rules.push_back(line);
      t.chains[it->second].counters.push_back(counters);
    }
  }
  return t;
}

// The chain a rule line may jump or go to: NAME when the line ends in
// -j/-g NAME ("" otherwise). A target with options prints them after its
// name, so `-j LOG --log-prefix x` is the target; a bare `-j LOG` reads
// the same for the chain and for the target with its defaults, and is
// taken as the chain.
std::string_view jump_of(std::string_view rule) {
  std::string_view last, word;
  while (!rule.empty()) {
    last = word;
    word = first_word(rule);
    rule.remove_prefix(std::min(rule.size(), word.size() + 1));
  }
  if (last == "-j" || last == "-g" || last == "--jump" || last == "--goto")
    return word;
  return {};
}

// A rule as the line diff compares it: with its counters.
std::vector<std::string> whole_rules(const SavedChain &c) {
  std::vector<std::string> out;
  for (size_t i = 0; i < c.rules.size(); ++i)
    out.push_back(std::string(c.counters[i]) + std::string(c.rules[i]));
  return out;
}

} // namespace

std::string
noflush_commands(std::string_view before_text, std::string_view after_text,
                 Family family, bool counters,
                 const std::function<bool(std::string_view)> &is_target) {
  const SavedTable before = read_save(before_text);
  const SavedTable after = read_save(after_text);
  const BuiltinTable *table = find_builtin_table(after.name, family);
  auto builtin = [&](std::string_view chain) {
    return table != nullptr && find_builtin_chain(*table, chain) != nullptr;
  };
  std::string out;
  auto line = [&](const std::string &s) { out += s + "\n"; };
  // iptables: built-in chains whose policy or counters (-c) change,
  // declared again with them (the declaration does not flush a built-in
  // chain, and takes a DROP policy in the nat table, which -P refuses).
  std::unordered_set<std::string_view> declared;
  if (family != Family::bridge)
    for (const SavedChain &c : after.chains) {
      const SavedChain *was = before.find(c.name);
      if (!builtin(c.name) || was == nullptr ||
          (was->policy == c.policy &&
           (!counters || was->chain_counters == c.chain_counters)))
        continue;
      line(":" + std::string(c.name) + " " + std::string(c.policy) + " " +
           std::string(counters ? c.chain_counters : "[0:0]"));
      declared.insert(c.name);
    }
  // Chains made: declared (`-N` refuses a target's name, such as LOG, that
  // a declaration takes), with an ebtables chain's policy; their rules
  // below with the others'.
  const SavedChain none;
  auto declare = [&](const SavedChain &c) {
    line(":" + std::string(c.name) + " " + std::string(c.policy) +
         (family == Family::bridge ? "" : " [0:0]"));
    declared.insert(c.name);
  };
  for (const SavedChain &c : after.chains)
    if (before.find(c.name) == nullptr && !builtin(c.name))
      declare(c);
  // Each chain's line diff, from nothing for a chain declared above.
  std::vector<std::vector<Edit>> edits_of(after.chains.size());
  auto diff_chain = [&](size_t i) {
    const SavedChain &c = after.chains[i];
    const SavedChain *was = declared.count(c.name) != 0 && !builtin(c.name)
                                ? &none
                                : before.find(c.name);
    const std::vector<std::string> a = whole_rules(was ? *was : none),
                                   b = whole_rules(c);
    const std::vector<std::string_view> av(a.begin(), a.end()),
        bv(b.begin(), b.end());
    edits_of[i] = line_edits(av, bv);
  };
  for (size_t i = 0; i < after.chains.size(); ++i)
    diff_chain(i);
  // A user chain both saves hold, named after a target plugin, that a
  // written rule jumps to: declared, so that -j means the chain (as it did
  // where the saves' blocks declared it), and written whole; its own rules
  // may jump to another such chain.
  auto shadowed = [&]() -> const SavedChain * {
    for (size_t i = 0; i < after.chains.size(); ++i)
      for (const Edit &e : edits_of[i]) {
        if (e.kind != EditKind::add)
          continue;
        const std::string_view to = jump_of(after.chains[i].rules[e.b]);
        const SavedChain *target = after.find(to);
        if (target != nullptr && !builtin(to) && declared.count(to) == 0 &&
            is_target(to))
          return target;
      }
    return nullptr;
  };
  if (is_target && family != Family::bridge)
    while (const SavedChain *c = shadowed()) {
      declare(*c);
      diff_chain(static_cast<size_t>(c - after.chains.data()));
    }
  for (size_t ci = 0; ci < after.chains.size(); ++ci) {
    const SavedChain &c = after.chains[ci];
    const std::string name(c.name);
    auto rule = [&](const char *command, size_t at, size_t b) {
      line(std::string(c.counters[b]) + command + name + " " +
           std::to_string(at) + " " + std::string(c.rules[b]));
    };
    // Each run of removed and added rules between kept ones: as many as
    // can be replaced in place (-R; not for the bridge), the other
    // removed ones deleted, the other added ones inserted.
    const std::vector<Edit> &edits = edits_of[ci];
    size_t at = 1; // the rule number the next edit is at
    for (size_t i = 0; i < edits.size();) {
      if (edits[i].kind == EditKind::keep) {
        ++at;
        ++i;
        continue;
      }
      std::vector<size_t> added;
      size_t removed = 0;
      for (; i < edits.size() && edits[i].kind != EditKind::keep; ++i)
        if (edits[i].kind == EditKind::remove)
          ++removed;
        else
          added.push_back(edits[i].b);
      size_t k = 0;
      // (ebtables-restore has no -R.)
      for (; family != Family::bridge && k < removed && k < added.size(); ++k)
        rule("-R ", at++, added[k]);
      for (size_t r = k; r < removed; ++r)
        line("-D " + name + " " + std::to_string(at));
      for (; k < added.size(); ++k)
        rule("-I ", at++, added[k]);
    }
  }
  // Chains removed: emptied first (they may jump to each other), then
  // deleted.
  std::vector<std::string_view> gone;
  for (const SavedChain &c : before.chains)
    if (!builtin(c.name) && after.find(c.name) == nullptr)
      gone.push_back(c.name);
  for (std::string_view name : gone)
    if (!before.find(name)->rules.empty())
      line("-F " + std::string(name));
  for (std::string_view name : gone)
    line("-X " + std::string(name));
  // ebtables: policies of built-in and user chains.
  for (const SavedChain &c : after.chains) {
    if (family != Family::bridge || declared.count(c.name) != 0)
      continue;
    const SavedChain *was = before.find(c.name);
    if (was == nullptr || c.policy != was->policy)
      line("-P " + std::string(c.name) + " " + std::string(c.policy));
  }
  if (out.empty())
    return "";
  return "*" + std::string(after.name) + "\n" + out + "COMMIT\n";
}

} // namespace fastrestore
