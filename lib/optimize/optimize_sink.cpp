// optimize_sink.h: a table replacement's runs put into ipsets at COMMIT.
#include "optimize/optimize_sink.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <unordered_map>

#include "check/table_state.h"
#include "fastrestore/diagnostic.h"
#include "fastrestore/ipsets.h"
#include "lex/lexer.h"
#include "optimize/address_runs.h"
#include "sys/hash64.h"

namespace fastrestore {

struct OptimizeSink::Set {
  std::string chain;
  AddressRun run;
  std::vector<size_t> entries; // the block's entries of the run's rules
  std::string name;            // the set the rule matches
  bool swapped = false;        // the name was in use: filled as its fresh twin
  bool kept = false; // --incremental: the set holds the members already
  // --incremental: the members that change, deleted from and added to the
  // set in place after the commit (instead of a refill)
  bool edited = false;
  std::vector<ipset::Member> removed, added;
  bool comments = false; // the set's members take comments
  uint64_t digest = 0;   // its members' (0: not known once committed)
  uint64_t key = 0;
  Rule rule; // the run's one rule
};

namespace {

// The block's entries into `to`, each run as its set's rule (`run_of`:
// each entry's run, -1 for none; `sets` empty with -t). Returns how many
// rules the sets stand for.
size_t send_block(Block &block, const std::vector<OptimizeSink::Set> &sets,
                  const std::vector<int> &run_of, BlockSink &to) {
  size_t merged = 0;
  for (size_t i = 0; i < block.entries.size(); ++i) {
    Block::Entry &e = block.entries[i];
    if (e.decl) {
      to.declare(std::move(*e.decl));
      continue;
    }
    if (run_of[i] >= 0) {
      const OptimizeSink::Set &s = sets[static_cast<size_t>(run_of[i])];
      if (s.entries.front() != i)
        continue;
      e.cmd->rules.assign(1, s.rule);
      merged += s.entries.size();
    }
    to.command(std::move(*e.cmd));
  }
  return merged;
}

// The block read again while it is committed (a retry), passed on to the
// writer with the runs rewritten as the block first was.
class Replay : public BlockSink {
public:
  Replay(BlockSink &target, const std::vector<OptimizeSink::Set> &sets,
         const std::vector<int> &run_of)
      : target_(target), sets_(sets), run_of_(run_of) {}

  void begin(const std::string &table, const Location &loc) override {
    block_ = Block{};
    block_.loc = loc;
    block_.table = table;
    target_.begin(table, loc);
  }
  void declare(ChainDecl &&decl) override {
    block_.entries.push_back({std::move(decl), std::nullopt});
  }
  void command(Command &&cmd) override {
    block_.entries.push_back({std::nullopt, std::move(cmd)});
  }
  void commit(const Location &loc) override {
    // The same text parsed again: the same entries.
    if (block_.entries.size() != run_of_.size())
      throw Error(Diagnostic{loc,
                             "--optimize: the block read again differs from "
                             "its first reading",
                             ExitCode::kernel});
    send_block(block_, sets_, run_of_, target_);
    block_ = Block{};
    target_.commit(loc);
  }

private:
  BlockSink &target_;
  const std::vector<OptimizeSink::Set> &sets_;
  const std::vector<int> &run_of_;
  Block block_;
};

// -v's word for what became of a set.
std::string state_text(const OptimizeSink::Set &s) {
  if (s.kept)
    return "; members unchanged";
  if (s.edited)
    return "; " + std::to_string(s.removed.size()) + " members removed, " +
           std::to_string(s.added.size()) + " added";
  return s.swapped ? "; members refilled" : "; made";
}

// The members to delete from a set holding `old` (in address order) and
// to add to it so that it holds `want`: a member whose address and prefix
// stay but whose comment changes is deleted and added again, with its
// counters.
void changes(const std::vector<ipset::Member> &old,
             const std::vector<ipset::Member> &want, OptimizeSink::Set &s) {
  std::vector<const ipset::Member *> sorted;
  sorted.reserve(want.size());
  for (const ipset::Member &m : want)
    sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(),
            [](const ipset::Member *a, const ipset::Member *b) {
              return ipset::address_order(*a, *b);
            });
  size_t i = 0, j = 0;
  while (i < old.size() || j < sorted.size()) {
    if (j == sorted.size() ||
        (i < old.size() && ipset::address_order(old[i], *sorted[j]))) {
      s.removed.push_back(old[i++]);
    } else if (i == old.size() || ipset::address_order(*sorted[j], old[i])) {
      s.added.push_back(*sorted[j++]);
    } else {
      if (old[i].comment != sorted[j]->comment) {
        s.removed.push_back(old[i]);
        ipset::Member m = *sorted[j];
        m.packets = old[i].packets;
        m.bytes = old[i].bytes;
        s.added.push_back(std::move(m));
      }
      ++i;
      ++j;
    }
  }
}

} // namespace

OptimizeSink::OptimizeSink(BlockSink &inner, RestoreWriter &writer,
                           RuleParser &parser, const RestoreConfig &cfg,
                           std::ostream &err)
    : inner_(inner), writer_(writer), parser_(parser), cfg_(cfg), err_(err) {}

OptimizeSink::~OptimizeSink() = default;

std::unique_ptr<BlockSink> OptimizeSink::replay(BlockSink &target) const {
  if (committing_ == nullptr)
    return nullptr;
  return std::make_unique<Replay>(target, *committing_, run_of_);
}

void OptimizeSink::begin(const std::string &table, const Location &loc) {
  held_ = !cfg_.noflush &&
          (cfg_.family == Family::ipv4 || cfg_.family == Family::ipv6);
  block_ = Block{};
  block_.loc = loc;
  block_.table = table;
  block_.family = cfg_.family;
  inner_.begin(table, loc);
}

void OptimizeSink::declare(ChainDecl &&decl) {
  if (!held_)
    return inner_.declare(std::move(decl));
  block_.entries.push_back({std::move(decl), std::nullopt});
}

void OptimizeSink::command(Command &&cmd) {
  if (!held_)
    return inner_.command(std::move(cmd));
  block_.entries.push_back({std::nullopt, std::move(cmd)});
}

void OptimizeSink::commit(const Location &loc) {
  if (!held_)
    return inner_.commit(loc);
  held_ = false;
  // Only a block of declarations and appends of one rule each: its
  // chains' rules are the appends in order.
  bool plain = true;
  std::vector<std::string> order;
  std::unordered_map<std::string, std::vector<size_t>> appends;
  for (size_t i = 0; i < block_.entries.size(); ++i) {
    const auto &cmd = block_.entries[i].cmd;
    if (!cmd)
      continue;
    if (cmd->kind != CommandKind::append || cmd->rules.size() != 1) {
      plain = false;
      break;
    }
    auto [it, added] = appends.try_emplace(cmd->chain);
    if (added)
      order.push_back(cmd->chain);
    it->second.push_back(i);
  }
  std::vector<Set> sets;
  if (plain)
    for (const std::string &chain : order) {
      const std::vector<size_t> &at = appends[chain];
      std::vector<const Rule *> rules;
      for (size_t i : at)
        rules.push_back(&block_.entries[i].cmd->rules[0]);
      std::unordered_map<uint64_t, unsigned> seen; // runs of one shape
      for (const AddressRun &run :
           find_address_runs(rules, cfg_.family, cfg_.optimize_min)) {
        Set s;
        s.chain = chain;
        s.run = run;
        for (size_t k = 0; k < run.count; ++k)
          s.entries.push_back(at[run.first + k]);
        // Named from the rule it becomes, so that the same rule loaded
        // again in its place finds its set.
        const uint64_t h = hash64(rule_shape(*rules[run.first], run.source));
        const std::string key = std::string(1, char('0' + int(cfg_.family))) +
                                block_.table + "\n" + chain + "\n" +
                                (run.source ? "s" : "d") +
                                (run.prefixes ? "n" : "i") + std::to_string(h) +
                                "#" + std::to_string(seen[h]++);
        s.key = hash64(key);
        s.name = ipset::set_name(s.key);
        sets.push_back(std::move(s));
      }
    }
  std::vector<std::string> made;
  std::optional<ipset::Lock> lock;
  if (!sets.empty() && !cfg_.test) {
    lock.emplace();
    try {
      make_sets(sets, made);
      rewrite(sets);
    } catch (...) {
      forget(made);
      throw;
    }
  }
  if (!cfg_.test) {
    // What the journal records with the table: a refilled set's members
    // are its only once swapped in after the commit (read back next time).
    std::vector<StateSet> record;
    for (const Set &s : sets)
      record.push_back(
          {s.name, s.swapped && !s.kept ? 0 : s.digest, s.entries.size()});
    writer_.record_sets(std::move(record));
  }
  // The block, each run as its one rule.
  run_of_.assign(block_.entries.size(), -1);
  if (!cfg_.test)
    for (size_t s = 0; s < sets.size(); ++s)
      for (size_t i : sets[s].entries)
        run_of_[i] = static_cast<int>(s);
  size_t merged = 0;
  committing_ = &sets;
  try {
    merged = send_block(block_, sets, run_of_, inner_);
    inner_.commit(loc);
  } catch (...) {
    committing_ = nullptr;
    forget(made);
    throw;
  }
  committing_ = nullptr;
  if (!cfg_.test && !sets.empty())
    after_commit(sets);
  else if (!cfg_.test)
    ipset::tidy(cfg_.family == Family::ipv6); // the sets the table had

  if (cfg_.verbose) {
    // (On stdout with iptables' own -v lines.)
    for (const Set &s : sets)
      printf("# --optimize: %zu rules of chain %s (lines %d-%d) %s set %s "
             "(%s, %s%s)\n",
             s.entries.size(), s.chain.c_str(),
             block_.entries[s.entries.front()].cmd->loc.line,
             block_.entries[s.entries.back()].cmd->loc.line,
             cfg_.test ? "would match" : "match", s.name.c_str(),
             s.run.prefixes ? "hash:net" : "hash:ip",
             s.run.source ? "src" : "dst",
             cfg_.test ? "" : state_text(s).c_str());
    fflush(stdout);
  }
  if (cfg_.stats) {
    err_ << "fastrestore: stats: *" << block_.table
         << ": optimize: " << (cfg_.test ? 0 : merged) << " rules merged into "
         << (cfg_.test ? 0 : sets.size()) << " sets";
    if (cfg_.incremental && !cfg_.test) {
      size_t kept = 0, edited = 0, refilled = 0;
      for (const Set &s : sets) {
        kept += s.kept;
        edited += s.edited;
        refilled += s.swapped && !s.kept && !s.edited;
      }
      err_ << " (" << kept << " unchanged, " << edited << " edited, "
           << refilled << " refilled, "
           << sets.size() - kept - edited - refilled << " made)";
    }
    err_ << "\n";
  }
  block_ = Block{};
}

void OptimizeSink::make_sets(std::vector<Set> &sets,
                             std::vector<std::string> &made) {
  std::string error;
  const auto headers = ipset::set_headers(&error);
  if (!headers)
    throw Error(Diagnostic{block_.loc,
                           "--optimize: cannot list the ipsets: " + error,
                           ExitCode::kernel});
  std::map<std::string, ipset::SetHeader> existing;
  for (const ipset::SetHeader &h : *headers)
    existing.emplace(h.name, h);
  const bool ipv6 = cfg_.family == Family::ipv6;
  // --incremental: the journal's record of the sets, when current.
  std::map<std::string, StateSet> recorded;
  if (cfg_.incremental)
    if (const std::vector<StateSet> *r = writer_.recorded_sets())
      for (const StateSet &set : *r)
        recorded.emplace(set.name, set);
  for (Set &s : sets) {
    const auto now = existing.find(s.name);
    s.swapped = now != existing.end();
    ipset::SetSpec spec;
    spec.name = s.swapped ? ipset::fresh_name(s.key) : s.name;
    spec.net = s.run.prefixes;
    spec.ipv6 = ipv6;
    spec.maxelem = s.entries.size();
    std::vector<ipset::Member> members;
    for (size_t i : s.entries) {
      RunMember r = run_member(block_.entries[i].cmd->rules[0], s.run.source,
                               cfg_.family);
      ipset::Member &m = members.emplace_back();
      m.address = r.address;
      m.prefix = r.prefix;
      if (cfg_.counters) {
        m.packets = r.packets;
        m.bytes = r.bytes;
      }
      m.comment = std::move(r.comment);
      spec.comments = spec.comments || m.comment.has_value();
    }
    s.digest = ipset::members_digest(members, ipv6);
    if (s.swapped && cfg_.incremental && !cfg_.counters) {
      // The set may hold these members already: the journal says so while
      // the set has the size it recorded; else the set is read back.
      const auto r = recorded.find(s.name);
      if (r != recorded.end() && r->second.digest == s.digest &&
          r->second.members == members.size() &&
          now->second.entries == members.size()) {
        s.kept = true;
        continue;
      }
      std::string why;
      if (auto old = ipset::read_members(s.name, ipv6, &why)) {
        if (ipset::members_digest(*old, ipv6) == s.digest) {
          s.kept = true;
          continue;
        }
        // Edited in place where the set takes the members: those that stay
        // keep their counters, untouched.
        if (now->second.maxelem >= members.size() &&
            (now->second.comments || !spec.comments)) {
          changes(*old, members, s);
          s.edited = true;
          s.comments = now->second.comments;
          continue;
        }
        // A member that stays keeps its counters (old is in address order).
        for (ipset::Member &m : members) {
          const auto at = std::lower_bound(old->begin(), old->end(), m,
                                           ipset::address_order);
          if (at != old->end() && at->address == m.address &&
              at->prefix == m.prefix) {
            m.packets = at->packets;
            m.bytes = at->bytes;
          }
        }
      }
    }
    // A fresh twin left by a run that was killed goes first.
    if (existing.count(ipset::fresh_name(s.key)))
      ipset::run_commands({"destroy " + spec.name});
    made.push_back(spec.name);
    if (auto refused = ipset::make_set(spec, members)) {
      const size_t k = refused->index == 0 ? 0 : refused->index - 1;
      const size_t entry = s.entries[std::min(k, s.entries.size() - 1)];
      throw Error(
          Diagnostic{block_.entries[entry].cmd->loc,
                     "--optimize: ipset refused " +
                         (refused->index == 0
                              ? "set " + spec.name
                              : "this rule's address in set " + spec.name) +
                         ": " + refused->message,
                     ExitCode::kernel});
    }
  }
}

void OptimizeSink::rewrite(std::vector<Set> &sets) {
  for (Set &s : sets) {
    const Command &first = *block_.entries[s.entries.front()].cmd;
    const std::string line = "-A " + s.chain + " -m set --match-set " + s.name +
                             (s.run.source ? " src" : " dst");
    LexResult words = split_words(line);
    Command c = parser_.parse(words.tokens, block_.table, first.loc.line, line,
                              nullptr);
    if (c.rules.size() != 1 || c.rules[0].matches.size() != 1)
      throw Error(Diagnostic{first.loc,
                             "--optimize: the set match could not be made",
                             ExitCode::kernel});
    Rule r = first.rules[0];
    auto &key = s.run.source ? r.src : r.dst;
    auto &mask = s.run.source ? r.smsk : r.dmsk;
    key.fill(0);
    mask.fill(0);
    r.matches.erase(
        std::remove_if(r.matches.begin(), r.matches.end(),
                       [](const XtBlob &b) { return b.name == "comment"; }),
        r.matches.end());
    r.matches.insert(r.matches.begin(), std::move(c.rules[0].matches[0]));
    r.packets = r.bytes = 0;
    for (size_t i : s.entries) {
      const Rule &m = block_.entries[i].cmd->rules[0];
      r.packets += m.packets;
      r.bytes += m.bytes;
      r.counters_set = r.counters_set || m.counters_set;
    }
    s.rule = std::move(r);
  }
}

void OptimizeSink::after_commit(const std::vector<Set> &sets) {
  std::set<std::string> used;
  std::optional<Error> failed;
  for (const Set &s : sets) {
    used.insert(s.name);
    if (s.edited) {
      ipset::SetSpec spec;
      spec.name = s.name;
      spec.net = s.run.prefixes;
      spec.ipv6 = cfg_.family == Family::ipv6;
      spec.comments = s.comments;
      if (auto refused = ipset::edit_set(spec, s.removed, s.added))
        failed.emplace(
            Diagnostic{block_.entries[s.entries.front()].cmd->loc,
                       "--optimize: the table was loaded, but set " + s.name +
                           " could not take its new members (" +
                           refused->message + "): load the file again",
                       ExitCode::kernel});
      continue;
    }
    if (!s.swapped || s.kept)
      continue;
    const std::string fresh = ipset::fresh_name(s.key);
    if (auto refused = ipset::run_commands({"swap " + fresh + " " + s.name}))
      // The table is in; its rule matches the set's old members.
      failed.emplace(Diagnostic{
          block_.entries[s.entries.front()].cmd->loc,
          "--optimize: the table was loaded, but set " + s.name +
              " could not take its new members (" + refused->message +
              "): it holds the old ones; load the file again",
          ExitCode::kernel});
    ipset::run_commands({"destroy " + fresh});
  }
  ipset::destroy_unused(used, cfg_.family == Family::ipv6);
  if (failed)
    throw *failed;
}

void OptimizeSink::forget(const std::vector<std::string> &made) {
  for (const std::string &n : made)
    ipset::run_commands({"destroy " + n});
}

} // namespace fastrestore
