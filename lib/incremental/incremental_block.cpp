// --incremental for the nf_tables writer (incremental_block.h): what the
// writer calls as a block is read and at its end. The engine's parts are
// in block_lines.cpp (the record's lines) and block_commit.cpp (COMMIT).
#include "incremental/incremental_block.h"

#include <algorithm>
#include <utility>

#include "diag/stats.h"
#include "incremental.h"
#include "nft/nft_rule.h"
#include "parse/kernel_resolved.h"
#include "sys/name_lookups.h"

namespace fastrestore::nft {

void Incremental::begin(const std::string &table, const Location &loc,
                        bool on) {
  table_ = table;
  loc_ = loc;
  begin_journal(on);
}

bool Incremental::takes(std::string_view line, int lineno, uint64_t given) {
  // Each line's hash and kind, kept for the record (note_lines). The
  // whole block may be the one recorded: its hash is made as the lines
  // go by (the record's lines taken unparsed all the same, so that
  // another block needs no second reading).
  // (--noflush: a line the record may know loads it; not a command's of
  // the command line, whose chains are read from the record alone.)
  if (deferred_ && !cfg_.journal_when_current &&
      (line.compare(0, 1, ":") == 0 || line.compare(0, 3, "-A ") == 0))
    ensure_loaded();
  uint64_t hash = 0;
  if (records_lines()) {
    const LineKind kind = line_kind(line);
    hash = remember_line(lineno, line, given, kind);
    if (speculating_ && kind == LineKind::block)
      speculation_.hash = fold_block(speculation_.hash, hash);
    else if (speculating_ && kind == LineKind::other)
      speculation_.broken = true; // not hashed, and parsed
  }
  if (known_lines_.empty() || needs_model_)
    return false;
  if (!line.empty() && line.front() == ':')
    return take_declaration(line, lineno);
  if (line.size() < 4 || line.compare(0, 3, "-A ") != 0)
    return false;
  const HashIndex::Entry *known = known_lines_.find(hash);
  if (known == nullptr)
    return false;
  // --noflush: a rule appended to a chain the block has not emptied is
  // added to what the kernel holds, and needs its message: parsed. (The
  // line is the recorded one, so its chain is the record's chain.)
  if (cfg_.noflush && !emptied_[known->a])
    return false;
  unparsed_.push_back({lineno, known->a, known->b});
  ++phase_stats().rules;
  ++phase_stats().unparsed;
  return true;
}

bool Incremental::declared_unparsed(std::string_view chain) const {
  if (declared_.empty() || !journal_state_)
    return false;
  const uint32_t c = journal_chain(*journal_state_, chain);
  return c != kNone && declared_[c];
}

void Incremental::note_entry(int line, const Block::Entry &entry) {
  if (journal_ == nullptr)
    return;
  // A line whose parsing looked a name up (name_lookups.h) is parsed
  // every time; one the kernel settles (kernel_resolved.h) is also
  // never kept.
  const uint64_t lookups = name_lookups();
  if (lookups != seen_lookups_) {
    seen_lookups_ = lookups;
    looked_up_.insert(line);
  }
  if (entry.cmd)
    for (const Rule &r : entry.cmd->rules)
      if (kernel_resolved(r)) {
        looked_up_.insert(line);
        made_again_.insert(line);
      }
}

void Incremental::note_op(const Op &op) {
  // (A chain emptied lets later lines be taken: the record is loaded;
  // not for a command of the command line, which has no later lines.)
  if (deferred_ && !cfg_.journal_when_current &&
      (op.kind == OpKind::chain_flush || op.kind == OpKind::chain_new))
    ensure_loaded();
  if (!known_lines_.empty() && cfg_.noflush)
    note_emptied(op);
}

bool Incremental::parse_whole_first(bool planned_from_kernel) {
  if (unparsed_.empty() || needs_model_ || !planned_from_kernel)
    return false;
  read_again();
  return true;
}

const std::vector<StateSet> *Incremental::recorded_sets() const {
  return journal_state_ ? &journal_state_->sets : nullptr;
}

void Incremental::record_sets(std::vector<StateSet> sets) {
  sets_ = std::move(sets);
}

bool Incremental::record_current(const std::string &table) const {
  if (journal_ == nullptr || cfg_.family == Family::bridge)
    return false;
  std::string why;
  return journal_
      ->load_chain(batch_family(), table, "", view_().generation(), &why)
      .has_value();
}

std::optional<KernelChain>
Incremental::recorded_chain(const std::string &name,
                            std::vector<uint64_t> &keys) const {
  if (!cfg_.noflush || cfg_.family == Family::bridge)
    return std::nullopt;
  // The loaded record's chain, or (deferred) that chain alone read.
  const StateChain *c = nullptr;
  if (journal_state_) {
    const uint32_t i = journal_chain(*journal_state_, name);
    if (i != kNone)
      c = &journal_state_->chains[i];
  } else if (deferred_) {
    const ChainRecord *one = deferred_chain(name);
    if (one != nullptr && one->chain)
      c = &*one->chain;
  }
  if (c == nullptr)
    return std::nullopt;
  KernelChain kc = kernel_chain(*c);
  kc.rules.reserve(c->rules.size());
  keys.clear();
  keys.reserve(c->rules.size());
  for (const StateRule &r : c->rules) {
    kc.rules.push_back(r.handle);
    keys.push_back(r.key);
  }
  return kc;
}

const ChainRecord *Incremental::deferred_chain(const std::string &name) const {
  if (auto it = record_chains_.find(name); it != record_chains_.end())
    return &it->second;
  std::string why;
  std::optional<ChainRecord> one = journal_->load_chain(
      batch_family(), table_, name, loaded_generation_, &why);
  deferred_current_ = deferred_current_ || one.has_value();
  if (!one)
    return nullptr;
  return &record_chains_.emplace(name, std::move(*one)).first->second;
}

std::optional<ChainRecord> Incremental::take_chain(const std::string &name) {
  if (deferred_chain(name) == nullptr)
    return std::nullopt;
  auto it = record_chains_.find(name);
  std::optional<ChainRecord> out = std::move(it->second);
  record_chains_.erase(it);
  return out;
}

std::optional<uint64_t>
Incremental::recorded_rule(const std::string &name,
                           std::pair<uint64_t, uint64_t> keys) const {
  if (!cfg_.noflush || cfg_.family == Family::bridge)
    return std::nullopt;
  auto wanted = [&](const StateRule &r) {
    return r.key == keys.first || r.key == keys.second;
  };
  if (journal_state_) {
    const uint32_t i = journal_chain(*journal_state_, name);
    if (i == kNone)
      return std::nullopt;
    const auto &rules = journal_state_->chains[i].rules;
    auto it = std::find_if(rules.begin(), rules.end(), wanted);
    return it != rules.end() ? std::optional<uint64_t>(it->handle)
                             : std::nullopt;
  }
  if (!deferred_)
    return std::nullopt;
  std::string why;
  std::optional<RuleLookup> one = journal_->find_rule(
      batch_family(), table_, name, keys, loaded_generation_, &why);
  deferred_current_ = deferred_current_ || one.has_value();
  return one ? one->handle : std::nullopt;
}

BlockOutcome Incremental::commit(uint32_t id_base) {
  return commit_incremental(id_base);
}

void Incremental::block_ended() {
  if (!parse_all_)
    return;
  parse_all_ = false;
  carried_.reset();
  phase_stats().rules = rules_first_read_;
}

// The block to be read again, every line parsed (the writer's COMMIT
// answers read_again; block_ended ends that reading). `journal`: the
// journal's record of the table, taken from journal_state_ for that
// reading's commit (kept, decoded, while the generation is the one it
// was loaded for).
BlockOutcome Incremental::read_again(std::optional<TableState> *journal) {
  carried_ = std::move(journal != nullptr ? *journal : journal_state_);
  carried_generation_ = loaded_generation_;
  phase_stats().unparsed -= unparsed_.size();
  // The block's rules are those its first reading counted.
  rules_first_read_ = phase_stats().rules;
  batch_.reset();
  parse_all_ = true;
  return BlockOutcome::read_again;
}

std::pair<uint64_t, uint64_t> record_keys(const Rule &rule, Family family) {
  const std::string m = rule_message(rule, family, "t", "c");
  return {rule_key(m, RuleKey::message), rule_key(m, RuleKey::identity)};
}

std::unique_ptr<IncrementalBlock>
make_incremental_block(const RestoreConfig &cfg, Transport *transport,
                       const BlockSource &text, std::unique_ptr<Batch> &batch,
                       const bool &needs_model,
                       std::function<KernelView &()> view) {
  return std::make_unique<Incremental>(cfg, transport, text, batch, needs_model,
                                       std::move(view));
}

} // namespace fastrestore::nft
