// --incremental: the journal's record of a block's table loaded at the
// block's start, the block's lines the record knows taken unparsed (or
// the whole block hashed, when the record names it), and what the block's
// lines make, noted for the record (incremental.h).

#include <algorithm>

#include "diag/stats.h"
#include "incremental.h"
#include "sys/hash64.h"
#include "sys/name_lookups.h"
#include "xtables/parse_fingerprint.h"

namespace fastrestore::nft {

// --incremental with the journal: its record of the table, read at the
// block's start for the generation the block is sent with, and the
// block's rule lines that it knows by their text (parsed under the same
// fingerprint, no host name looked up), which the driver then hands over
// unparsed (takes).
void Incremental::begin_journal(bool on) {
  speculating_ = false;
  if (!parse_all_) {
    new_block_ = false; // a block read for the first time
    seen_.clear();
  }
  journal_state_.reset();
  known_lines_ = HashIndex();
  unparsed_.clear();
  emptied_.clear();
  next_declared_ = 0;
  journal_chains_ = HashIndex();
  declared_.clear();
  looked_up_.clear();
  made_again_.clear();
  want_fingerprint_current_ = true;
  deferred_ = false;
  deferred_current_ = false;
  record_chains_.clear();
  if (!on || journal_ == nullptr)
    return;
  seen_lookups_ = name_lookups();
  const uint32_t generation = view_().generation();
  journal_why_.clear();
  if (carried_ && carried_generation_ == generation) {
    journal_state_ = std::move(carried_);
  } else if (cfg_.noflush) {
    // --noflush: the record is loaded when a line may be taken unparsed
    // (a declaration, an append), or at COMMIT; a command's chain is read
    // from it alone before then (recorded_chain), and a block that
    // changes nothing needs none of it (changes_nothing).
    carried_.reset();
    loaded_generation_ = generation;
    deferred_ = true;
    return;
  } else {
    journal_state_ =
        journal_->load(batch_family(), table_, generation, &journal_why_);
  }
  carried_.reset();
  load_record(generation);
}

// What the record loaded for `generation` (journal_state_) lets the block
// do: its lines known, and the whole block's hash made as they go.
void Incremental::load_record(uint32_t generation) {
  loaded_generation_ = generation;
  if (!journal_state_)
    return;
  // (A command's chain and rule are found by name with it too:
  // recorded_chain, recorded_rule.)
  const auto &chains = journal_state_->chains;
  journal_chains_ = HashIndex(chains.size());
  for (uint32_t c = 0; c < chains.size(); ++c)
    journal_chains_.put(hash64(chains[c].name), c);
  // (--optimize parses every line: its sink takes none unparsed.)
  if (cfg_.family == Family::bridge || cfg_.optimize)
    return;
  if (journal_state_->fingerprint != fingerprint()) {
    want_fingerprint_current_ = false;
    return;
  }
  // -v prints every rule: every line is parsed.
  if (parse_all_ || cfg_.verbose)
    return;
  if (journal_state_->block != 0) {
    speculating_ = true;
    speculation_ = Speculation{block_seed(), false};
  }
  known_lines_ = HashIndex(journal_state_->rule_count());
  for (uint32_t c = 0; c < chains.size(); ++c)
    for (uint32_t r = 0; r < chains[c].rules.size(); ++r)
      known_lines_.put(chains[c].rules[r].line, c, r);
  declared_.assign(chains.size(), false);
  if (cfg_.noflush)
    emptied_.assign(chains.size(), false);
}

// The deferred record (--noflush) loaded now: as begin_journal would have
// loaded it, the lines seen so far folded into the block's hash.
void Incremental::ensure_loaded() {
  if (!deferred_)
    return;
  deferred_ = false;
  journal_state_ =
      journal_->load(batch_family(), table_, loaded_generation_, &journal_why_);
  load_record(loaded_generation_);
  if (!speculating_)
    return;
  for (const SeenLine &l : seen_) {
    if (l.kind == LineKind::block)
      speculation_.hash = fold_block(speculation_.hash, l.hash);
    else if (l.kind == LineKind::other)
      speculation_.broken = true;
  }
}

// `:chain - [p:b]` (or `:chain -`) of a user chain the record holds,
// taken unparsed (declared_unparsed tells): --noflush flushes the chain,
// which exists; a replacement makes it (desired_table). A replacement's
// second declaration of a chain (a flush) is parsed.
bool Incremental::take_declaration(std::string_view line, int lineno) {
  const size_t end = line.find(' ');
  if (end == std::string_view::npos || end < 2)
    return false;
  const std::string_view name = line.substr(1, end - 1);
  std::string_view rest = line.substr(end);
  if (rest.compare(0, 2, " -") != 0)
    return false;
  rest.remove_prefix(2);
  if (!rest.empty() && !counters_text(rest))
    return false;
  // (Declarations come in the record's order of chains, as a rule: the
  // chain after the one declared last is tried before the lookup.)
  const auto &chains = journal_state_->chains;
  const uint32_t c =
      next_declared_ < chains.size() && chains[next_declared_].name == name
          ? next_declared_
          : journal_chain(*journal_state_, name);
  if (c == kNone || chains[c].base)
    return false;
  if (!cfg_.noflush && declared_[c])
    return false;
  declared_[c] = true;
  next_declared_ = c + 1;
  unparsed_.push_back({lineno, c, kDeclared});
  if (cfg_.noflush)
    emptied_[c] = true;
  ++phase_stats().unparsed;
  return true;
}

// " [P:B]", P and B digits.
bool Incremental::counters_text(std::string_view s) {
  if (s.size() < 6 || s.compare(0, 2, " [") != 0 || s.back() != ']')
    return false;
  s = s.substr(2, s.size() - 3);
  const size_t colon = s.find(':');
  auto digits = [](std::string_view d) {
    return !d.empty() &&
           d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return colon != std::string_view::npos && digits(s.substr(0, colon)) &&
         digits(s.substr(colon + 1));
}

// What a line of the block is to its hash (LineKind).
LineKind Incremental::line_kind(std::string_view l) {
  return block_line(l)       ? LineKind::block
         : says_something(l) ? LineKind::other
                             : LineKind::silent;
}

// Whether the block's lines are recorded (note_lines): with a journal,
// but not in bridge tables or with --optimize.
bool Incremental::records_lines() const {
  return journal_ != nullptr && cfg_.family != Family::bridge && !cfg_.optimize;
}

// hash64 of the block's line `lineno` (`given`, when not 0), kept with
// its kind in seen_ for note_lines.
uint64_t Incremental::remember_line(int lineno, std::string_view line,
                                    uint64_t given, LineKind kind) {
  const uint64_t h = given != 0 ? given : hash64(line);
  if (lineno >= text_.first()) {
    const size_t i = static_cast<size_t>(lineno - text_.first());
    if (seen_.size() <= i)
      seen_.resize(i + 1);
    seen_[i] = {h, kind};
  }
  return h;
}

// The chain of the journal's record `journal` named `name` (kNone:
// none), by journal_chains_.
uint32_t Incremental::journal_chain(const TableState &journal,
                                    std::string_view name) const {
  const HashIndex::Entry *e =
      journal_chains_.find_name(name, [&](const HashIndex::Entry &x) {
        return std::string_view(journal.chains[x.a].name);
      });
  return e != nullptr ? e->a : kNone;
}

uint64_t Incremental::fingerprint() {
  if (!fingerprint_)
    fingerprint_ = parse_fingerprint(cfg_.family, cfg_.counters);
  return *fingerprint_;
}

// The lines taken unparsed, each as its journal rule's key, into `want`
// (the rules parsed) in line order. False when a line's chain is not in
// the block: the block is then parsed whole. (A kept line that jumps to
// a chain the block no longer declares keeps the kernel from deleting
// that chain: the batch is refused, and the block parsed whole.)
bool Incremental::take_unparsed(DesiredTable &want, const TableState &journal) {
  // Each journal chain's place in `want` (SIZE_MAX: none).
  std::vector<size_t> want_of(journal.chains.size(), SIZE_MAX);
  for (size_t c = 0; c < want.state.chains.size(); ++c) {
    const uint32_t j = journal_chain(journal, want.state.chains[c].name);
    if (j != kNone)
      want_of[j] = c;
  }
  // The rule lines taken unparsed, by chain of `want` in line order:
  // chain c's are taken[from[c]] to taken[from[c + 1]].
  std::vector<size_t> from(want.state.chains.size() + 1, 0);
  for (const Unparsed &u : unparsed_) {
    if (u.rule == kDeclared)
      continue; // made by desired_table
    if (want_of[u.chain] == SIZE_MAX)
      return false;
    ++from[want_of[u.chain] + 1];
  }
  for (size_t c = 1; c < from.size(); ++c)
    from[c] += from[c - 1];
  std::vector<const Unparsed *> taken(from.back());
  {
    std::vector<size_t> next(from.begin(), from.end() - 1);
    for (const Unparsed &u : unparsed_)
      if (u.rule != kDeclared)
        taken[next[want_of[u.chain]]++] = &u;
  }
  for (size_t c = 0; c + 1 < from.size(); ++c) {
    const auto extra =
        std::make_pair(taken.begin() + from[c], taken.begin() + from[c + 1]);
    if (extra.first == extra.second)
      continue;
    auto &rules = want.state.chains[c].rules;
    auto &sources = want.rule_sources[c];
    if (rules.empty()) {
      // (The common case: no rule of the chain parsed.)
      const size_t n = static_cast<size_t>(extra.second - extra.first);
      rules.resize(n);
      sources.resize(n);
      for (size_t i = 0; i < n; ++i) {
        const Unparsed *u = extra.first[i];
        rules[i].key = journal.chains[u->chain].rules[u->rule].key;
        sources[i].line = u->line;
      }
      continue;
    }
    std::vector<StateRule> r2;
    std::vector<RuleSource> s2;
    size_t p = 0;
    auto take_parsed = [&] {
      r2.push_back(rules[p]);
      s2.push_back(sources[p]);
      ++p;
    };
    for (auto u_at = extra.first; u_at != extra.second; ++u_at) {
      const Unparsed *u = *u_at;
      while (p < rules.size() && sources[p].line < u->line)
        take_parsed();
      StateRule r;
      r.key = journal.chains[u->chain].rules[u->rule].key;
      r2.push_back(r);
      s2.push_back({{}, SIZE_MAX, u->line});
    }
    while (p < rules.size())
      take_parsed();
    rules = std::move(r2);
    sources = std::move(s2);
  }
  want.allocations.clear(); // the replacement batch lacks these rules
  return true;
}

// The lines of a block that say what it does: declarations, commands
// and rules (comments, blank lines and the table and COMMIT lines
// aside).
bool Incremental::block_line(std::string_view l) {
  return !l.empty() && (l[0] == '-' || l[0] == ':' || l[0] == '[');
}

// A line other than a blank one or a comment.
bool Incremental::says_something(std::string_view l) {
  return l.find_first_not_of(" \t") != std::string_view::npos &&
         l.front() != '#';
}

// The block's hash continued over a line's hash (hash64 of the line).
uint64_t Incremental::fold_block(uint64_t block, uint64_t line) {
  return mix64(block ^ line) + 0x9e3779b97f4a7c15ULL;
}

// Whether a rule or chain of `want` is given counters (-c).
bool Incremental::counters_in(const DesiredTable &want) {
  for (const StateChain &c : want.state.chains) {
    if (c.counters)
      return true;
    for (const StateRule &r : c.rules)
      if (r.counters)
        return true;
  }
  return false;
}

uint64_t Incremental::block_seed() const {
  return hash64_seed ^ (cfg_.noflush ? 0x6e6f666c757368ull : 0);
}

// Each rule's line hash for the journal (0 for a line that looked a
// host name up or gave counters, and in bridge tables, whose lines are
// always parsed).
void Incremental::note_lines(DesiredTable &want) {
  want.state.fingerprint = cfg_.family == Family::bridge ? 0 : fingerprint();
  // --optimize: a rule may stand for a run of lines; no line, nor the
  // block, is recorded as the table's (a load without it must parse
  // them: note_lines leaves every hash 0).
  if (cfg_.family == Family::bridge || cfg_.optimize)
    return;
  const int first = text_.first();
  const int last = first + text_.count() - 1; // the COMMIT line
  // Every line's hash and kind: made while the block was read
  // (takes saw each line between the table's and COMMIT), or
  // else now, from the block's text read again.
  const size_t count = static_cast<size_t>(text_.count());
  seen_.resize(count);
  auto unseen = [](const SeenLine &s) { return s.kind == LineKind::unseen; };
  if (count > 2 && std::any_of(seen_.begin() + 1, seen_.end() - 1, unseen))
    text_.each(first, last, [&](std::string_view l, int n) {
      if (n <= first || n >= last)
        return;
      SeenLine &s = seen_[static_cast<size_t>(n - first)];
      if (unseen(s))
        s = {hash64(l), line_kind(l)};
    });
  // The block's hash, as takes makes it, when loading the block
  // again would leave the table as it is: no counters given, no host
  // name looked up, no line saying something that is not hashed.
  uint64_t block = block_seed();
  bool whole = want.repeatable && looked_up_.empty() && !counters_in(want);
  for (size_t i = 1; i + 1 < count; ++i) {
    if (seen_[i].kind == LineKind::block)
      block = fold_block(block, seen_[i].hash);
    else if (seen_[i].kind == LineKind::other)
      whole = false;
  }
  want.state.block = whole ? block : 0;
  // The line of each rule, as an index into seen_; a line that made
  // several rules (-s a,b) is parsed every time: its hash stands for
  // one rule.
  auto slot = [&](int n) {
    return n >= first && n - first < static_cast<int>(seen_.size())
               ? static_cast<size_t>(n - first)
               : SIZE_MAX;
  };
  std::vector<uint8_t> rules_of(seen_.size(), 0);
  for (const auto &sources : want.rule_sources)
    for (const RuleSource &s : sources)
      if (const size_t i = slot(s.line); i != SIZE_MAX && rules_of[i] < 2)
        ++rules_of[i];
  for (size_t c = 0; c < want.state.chains.size(); ++c)
    for (size_t d = 0; d < want.state.chains[c].rules.size(); ++d) {
      const int n = want.rule_sources[c][d].line;
      const size_t i = slot(n);
      // A rule given counters (-c) is parsed every time: its line sets
      // them, where a line taken unparsed keeps the kernel's.
      const bool known = i != SIZE_MAX && rules_of[i] == 1 &&
                         !looked_up_.count(n) &&
                         !want.state.chains[c].rules[d].counters;
      want.state.chains[c].rules[d].line = known ? seen_[i].hash : 0;
    }
}

// The desired rules of lines the kernel settles: the delta keeps no
// kernel rule for them.
void Incremental::mark_made_again(DesiredTable &want) const {
  if (made_again_.empty())
    return;
  for (size_t c = 0; c < want.state.chains.size(); ++c)
    for (size_t d = 0; d < want.state.chains[c].rules.size(); ++d)
      if (made_again_.count(want.rule_sources[c][d].line))
        want.state.chains[c].rules[d].made_again = true;
}

// --noflush: the record's chains the block has emptied so far
// (declared, flushed or made; the lines it knows are all of its chains).
void Incremental::note_emptied(const Op &op) {
  bool emptied = false;
  switch (op.kind) {
  case OpKind::chain_restore:
  case OpKind::chain_flush:
  case OpKind::chain_new:
    emptied = true;
    break;
  case OpKind::chain_delete:
  case OpKind::chain_rename:
    break;
  default:
    return;
  }
  const uint32_t c = journal_chain(*journal_state_, op.chain.name);
  if (c != kNone)
    emptied_[c] = emptied;
}

} // namespace fastrestore::nft
