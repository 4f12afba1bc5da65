// The nf_tables restore writer (restore_writer.h): each entry of a block
// is planned (OpPlanner) and encoded into the block's batch as it is read,
// and COMMIT sends the batch, or hands it to the Coalescer that groups
// blocks (--coalesce, --all-or-nothing); an --incremental block goes to
// IncrementalBlock (incremental_block.h).
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <optional>

#include "check/bridge_policy.h"
#include "check/plan.h"
#include "check/table_state.h"
#include "coalescer.h"
#include "diag/held_refusals.h"
#include "diag/stats.h"
#include "fastrestore/process_heap.h"
#include "fastrestore/tables.h"
#include "incremental/incremental_block.h"
#include "nft/nft_backend.h"
#include "nft/nft_kernel_view.h"
#include "nft/nft_rule.h"
#include "nft/rule_identity.h"
#include "nft_writer/nft_writer.h"
#include "parse/restore_writer.h"
#include "print/rule_print.h"
#include "verbose_preamble.h"

namespace fastrestore::nft {
namespace {

// Encodes each entry of a block into its batch as it is read, and commits
// at COMMIT. A table replacement that uses a command needing the
// whole-block model (-D, -R, -I N, -E, ...) is parsed again from its text
// and planned as a whole.
class BlockWriter : public RestoreWriter {
public:
  BlockWriter(const RestoreConfig &cfg, Transport *transport,
              const BlockSource &block, std::ostream &out,
              const BatchObserver *observer)
      : cfg_(cfg), transport_(transport), text_(block), observer_(observer) {
    if ((cfg.coalesce_ms >= 0 || cfg.all_or_nothing) && !cfg.test &&
        transport != nullptr)
      group_ =
          std::make_unique<Coalescer>(*transport, cfg.coalesce_ms,
                                      cfg.verbose > 0, out, cfg.all_or_nothing);
    coalescer_ = group_.get();
    held_ = coalescer_ != nullptr && coalescer_->holds_all();
    // --incremental applies to blocks sent on their own (not held with
    // other blocks), without -t, not to the ebtables command line (and
    // not to a -v block that keeps a DROP base chain: verbose_preamble);
    // to the iptables command line where a record is current.
    incremental_run_ = cfg.incremental && !cfg.test &&
                       (!cfg.command_line || cfg.journal_when_current) &&
                       transport != nullptr && coalescer_ == nullptr;
    if (incremental_run_)
      incremental_ =
          make_incremental_block(cfg, transport, block, batch_, needs_model_,
                                 [this]() -> KernelView & { return *view_; });
  }

  bool holds_blocks() const override { return coalescer_ != nullptr; }

  const std::vector<StateSet> *recorded_sets() const override {
    return incremental_block_ ? incremental_->recorded_sets() : nullptr;
  }

  void record_sets(std::vector<StateSet> &&sets) override {
    if (incremental_)
      incremental_->record_sets(std::move(sets));
  }

  int pause_ms() const override {
    return coalescer_ != nullptr && !held_ && coalescer_->pending()
               ? coalescer_->wait_ms()
               : -1;
  }

  void send_held() override {
    if (coalescer_ != nullptr)
      coalescer_->flush();
  }

  void input_failed() override {
    if (coalescer_ != nullptr && !held_ && coalescer_->pending())
      coalescer_->flush();
  }

  void begin(const std::string &table, const Location &loc) override {
    free_left_by_earlier_blocks(); // (process_heap.h)
    table_ = table;
    loc_ = loc;
    id_base_ = 0;
    if (coalescer_ != nullptr) {
      // Only --noflush blocks join a group; a table replacement goes alone
      // (with --all-or-nothing every block is held).
      if (cfg_.noflush || held_)
        id_base_ = coalescer_->id_base();
      else
        coalescer_->flush();
    }
    // What the kernel holds is read after the pending blocks are in.
    view_.emplace(transport_, nfproto_of(cfg_.family), table, [this, table] {
      if (held_ && coalescer_->pending_table(table))
        refuse_held_read(table);
      if (coalescer_ != nullptr && !held_)
        coalescer_->flush();
    });
    KernelAccess kernel;
    if (view_->reachable()) {
      // (A chain at a time: a command on one chain reads that chain.)
      kernel.read_chains = [this](const std::vector<std::string> &names) {
        planner_read_ = true;
        return view_->chains(names);
      };
      kernel.chain_head =
          [this](const std::string &name) -> std::optional<KernelChain> {
        KernelTable kt = view_->chains({name}, false);
        if (KernelChain *c = kt.find(name))
          return std::move(*c);
        return std::nullopt;
      };
      kernel.read = [this]() -> const KernelTable & {
        planner_read_ = true;
        return view_->table();
      };
      kernel.chain_exists = [this, table](const std::string &chain) {
        const Family family = cfg_.family;
        if (coalescer_ != nullptr &&
            coalescer_->known_chain(family, table, chain))
          return true;
        if (held_ && coalescer_->doubtful(table))
          refuse_held_read(table);
        // No generation for this answer: a plan made from it is checked by
        // the kernel itself (a chain made twice, or gone, is an error).
        if (coalescer_ != nullptr && !held_)
          coalescer_->flush();
        bool found = view_->chain_exists(chain);
        if (found && coalescer_ != nullptr)
          coalescer_->note_chain(family, table, chain);
        return found;
      };
    }
    kernel.identify_message = [](std::string_view m) {
      return rule_identity(m);
    };
    kernel.identify_batch_rule = [this](uint32_t id) {
      return rule_identity(batch_->rule_message(id));
    };
    kernel.identify_rule = [family = cfg_.family](const Rule &r) {
      return rule_identity(r, family);
    };
    if (incremental_run_ && cfg_.noflush && view_->reachable()) {
      // (What the record gives counts as the kernel's rules, read.)
      auto noted = [this](auto found) {
        if (found)
          planner_read_ = true;
        return found;
      };
      kernel.recorded_chain = [this, noted](const std::string &name,
                                            std::vector<uint64_t> &keys) {
        return noted(incremental_block_
                         ? incremental_->recorded_chain(name, keys)
                         : std::optional<KernelChain>());
      };
      kernel.recorded_rule = [this, noted](const std::string &name,
                                           std::pair<uint64_t, uint64_t> keys) {
        return noted(incremental_block_
                         ? incremental_->recorded_rule(name, keys)
                         : std::optional<uint64_t>());
      };
      kernel.record_keys = [family = cfg_.family](const Rule &r) {
        return record_keys(r, family);
      };
    }
    planner_.emplace(table, cfg_.noflush, cfg_.counters, std::move(kernel),
                     cfg_.family, id_base_);
    eb_policies_.begin(table);
    batch_ = std::make_unique<Batch>(cfg_.family, id_base_);
    cur_loc_ = loc;
    // The block's mode, decided here for all of it.
    const bool preamble = cfg_.verbose && !cfg_.noflush && view_->reachable();
    incremental_block_ = incremental_run_;
    if (incremental_block_ && cfg_.journal_when_current)
      incremental_block_ = incremental_->record_current(table);
    if (preamble && !verbose_preamble(*view_, *batch_, table, cfg_.family, loc,
                                      incremental_run_, table_ready_))
      incremental_block_ = false;
    // With --incremental the preamble only prints: the block is planned
    // as a replacement.
    if (!preamble || incremental_block_)
      begin_block(*batch_, table, loc, !cfg_.noflush, table_ready_);
    needs_model_ = false;
    planner_read_ = false;
    refusals_.clear();
    if (incremental_) {
      incremental_->begin(table, loc, incremental_block_);
      // (--noflush asks the kernel for a chain it does not know.)
      if (!cfg_.noflush)
        planner_->declared_unparsed([this](std::string_view chain) {
          return incremental_->declared_unparsed(chain);
        });
    }
  }

  LineFilter *line_filter() override { return incremental_.get(); }

  void declare(ChainDecl &&d) override {
    add(Block::Entry{std::move(d), std::nullopt});
  }

  void command(Command &&c) override {
    add(Block::Entry{std::nullopt, std::move(c)});
  }

  BlockOutcome end_block(const Location &loc) override {
    BlockOutcome outcome;
    try {
      outcome = commit_block(loc);
    } catch (...) {
      if (incremental_)
        incremental_->block_ended();
      throw;
    }
    if (outcome == BlockOutcome::done) {
      retries_ = 0;
      if (incremental_)
        incremental_->block_ended();
    }
    return outcome;
  }

private:
  BlockOutcome commit_block(const Location &loc) {
    // A command planned from the kernel's rules, or refused, without the
    // rule lines taken unparsed before it: the block is parsed whole.
    if (incremental_ &&
        incremental_->parse_whole_first(refusals_.any() || planner_read_))
      return BlockOutcome::read_again; // (the batch dropped with it)
    if (refusals_.any()) {
      batch_.reset();
      refusals_.throw_first();
    }
    if (needs_model_) {
      Plan plan =
          plan_block(replay(), cfg_.noflush, cfg_.counters, {}, id_base_);
      batch_ = build_batch(
          plan, cfg_.family, [this](Batch &b) { add_eb_policies(b); },
          id_base_);
    } else {
      add_eb_policies(*batch_);
      batch_->finish();
    }
    if (incremental_block_) {
      BlockOutcome outcome;
      try {
        outcome = incremental_->commit(id_base_);
      } catch (const GenerationChanged &) {
        return retry_block(loc);
      }
      batch_.reset();
      return outcome;
    }
    if (cfg_.test && observer_ != nullptr && *observer_) {
      (*observer_)(table_, std::move(batch_));
    } else if (!cfg_.test) {
      // Small blocks join the group (with their lines, for a message);
      // with --all-or-nothing every block does.
      const std::optional<uint32_t> &genid = view_->noted();
      if (held_ && genid)
        coalescer_->note_generation(*genid);
      // A block planned from what the kernel holds goes alone, sent with
      // the generation it read (see retry_block).
      if (coalescer_ != nullptr &&
          (held_ || (cfg_.noflush && !genid && text_.count() <= 1000))) {
        std::vector<std::string> lines;
        if (text_.count() <= 1000)
          text_.each(loc_.line, loc.line,
                     [&](std::string_view l, int) { lines.emplace_back(l); });
        coalescer_->add(std::move(batch_), table_, loc_.line, loc.line,
                        std::move(lines));
      } else {
        if (coalescer_ != nullptr)
          coalescer_->flush();
        try {
          commit_batch(*batch_, *transport_, genid ? &*genid : nullptr);
        } catch (const GenerationChanged &) {
          return retry_block(loc);
        }
      }
    }
    batch_.reset();
    return BlockOutcome::done;
  }

  // ebtables-nft gives a user chain an ACCEPT or DROP policy as a rule
  // appended to the chain at COMMIT (RETURN is the default).
  bool eb_policy(Block::Entry &e) {
    return cfg_.family == Family::bridge && eb_policies_.take(e);
  }

  void add_eb_policies(Batch &b) {
    for (const auto &[chain, rule] : eb_policies_.rules())
      b.add_rule(NLM_F_CREATE | NLM_F_APPEND, rule, cfg_.family, table_, chain);
  }

  // --all-or-nothing holds the earlier blocks, so the kernel does not yet
  // hold what they do to `table`: a command that needs the kernel's view of
  // it cannot be planned.
  [[noreturn]] void refuse_held_read(const std::string &table) {
    Diagnostic d;
    d.loc = cur_loc_;
    d.message = "--all-or-nothing: this needs the kernel's rules of table " +
                table +
                ", which an earlier block of this input changes; "
                "nothing was changed";
    d.code = ExitCode::parameter;
    throw Error(std::move(d));
  }

  void add(Block::Entry &&e) {
    cur_loc_ = e.decl ? e.decl->loc : e.cmd ? e.cmd->loc : cur_loc_;
    if (incremental_)
      incremental_->note_entry(cur_loc_.line, e);
    ops_.clear();
    bool planned = false;
    // iptables-nft carries out a block's commands at COMMIT, after it has
    // parsed every line: a planning refusal waits for the later lines'
    // parse errors (see held_refusals.h). An entry refused, or left to
    // the whole-block model, is still encoded now (check_encoding).
    // iptables -v prints -A's rule even when the chain turns out missing
    // (status 1, found after it printed; not a jump to a missing chain,
    // status 2, found before), -C's and -D's once found; the others as
    // their operations go (below).
    const bool iptables_v = cfg_.command_line && cfg_.verbose &&
                            cfg_.family != Family::bridge && e.cmd;
    const bool append_v = iptables_v && e.cmd->kind == CommandKind::append;
    std::vector<Rule> shown;
    if (append_v || (iptables_v && (e.cmd->kind == CommandKind::check ||
                                    e.cmd->kind == CommandKind::remove)))
      shown = e.cmd->rules;
    ExitCode refusal = ExitCode::ok;
    const bool refused = refusals_.run(
        [&] {
          try {
            planned = plan(std::move(e));
          } catch (const Error &err) {
            refusal = err.diag().code;
            throw;
          }
        },
        true);
    if (refused || !planned)
      check_encoding(e);
    if (planned || (append_v && refusal == ExitCode::format))
      for (const Rule &r : shown)
        print_rule_verbose(r, cfg_.family);
    if (!planned)
      return;
    // Encoding refusals are iptables-nft's parse errors: not held.
    for (const auto &op : ops_) {
      if (coalescer_ != nullptr)
        coalescer_->note_op(cfg_.family, table_, op);
      if (incremental_)
        incremental_->note_op(op);
      // ebtables -v -A (a --noflush block of one command) prints the rule
      // too.
      if (cfg_.verbose && (!cfg_.noflush || cfg_.command_line) && !append_v &&
          (op.kind == OpKind::rule_append || op.kind == OpKind::rule_insert ||
           (cfg_.command_line && (op.kind == OpKind::rule_insert_before ||
                                  op.kind == OpKind::rule_replace))))
        print_rule_verbose(op.rule, cfg_.family);
      emit_op(*batch_, op, table_, cfg_.family, loc_, table_ready_);
    }
  }

  // Plans `e` into ops_; false when there is nothing to encode now.
  bool plan(Block::Entry &&e) {
    if (needs_model_) {
      eb_policy(e); // the model replays the block, policies included
      return false;
    }
    if (eb_policy(e))
      return false;
    if (!planner_->add(std::move(e), ops_)) {
      needs_model_ = true;
      batch_.reset();
      return false;
    }
    return true;
  }

  // A rule whose command was refused (held for COMMIT), or left to the
  // whole-block model (a -D in a table replacement), is still encoded,
  // into a batch that is thrown away: iptables-nft builds a rule's
  // expressions when it parses the line, whatever the command, so an
  // encoding error (TCP match requires '-p tcp'; 802.3 DSAP/SSAP needs
  // -p LENGTH) comes before the refusal or the search, at its line. The
  // planner refuses, or hands the entry on, before it takes its rules.
  void check_encoding(const Block::Entry &e) {
    if (!e.cmd || e.cmd->rules.empty())
      return;
    Batch scratch(cfg_.family);
    for (const Rule &r : e.cmd->rules)
      scratch.add_rule(0, r, cfg_.family, table_, e.cmd->chain);
  }

  // The kernel's ruleset changed between reading it and committing (another
  // program committed): nothing was applied. As iptables-nft does, the
  // block is planned again from what the kernel holds now: its lines are
  // to be read again.
  BlockOutcome retry_block(const Location &commit_loc) {
    constexpr int kMaxRetries = 50;
    if (++retries_ > kMaxRetries) {
      retries_ = 0;
      Diagnostic d;
      d.loc = commit_loc;
      d.message = "the kernel's rules kept changing while this block was "
                  "planned (" +
                  std::to_string(kMaxRetries) +
                  " attempts); nothing of it was applied";
      d.code = ExitCode::kernel;
      throw Error(std::move(d));
    }
    batch_.reset();
    return BlockOutcome::read_again;
  }

  // Parses the block's lines again into a whole Block.
  Block replay() {
    Block block;
    BlockCollector collect([&](Block &&b) { block = std::move(b); });
    text_.reread(collect);
    block.family = cfg_.family;
    if (cfg_.family == Family::bridge)
      EbPolicies::strip(block, table_);
    return block;
  }

  const RestoreConfig &cfg_;
  Transport *transport_;
  const BlockSource &text_;
  const BatchObserver *observer_; // --test: takes each block's batch
  std::unique_ptr<Coalescer> group_;
  Coalescer *coalescer_ = nullptr;
  std::string table_;
  Location loc_;
  std::optional<OpPlanner> planner_;
  std::unique_ptr<Batch> batch_;
  std::vector<Op> ops_;
  std::unique_ptr<IncrementalBlock> incremental_; // --incremental
  bool table_ready_ = false;
  bool needs_model_ = false;
  bool planner_read_ = false;      // a command planned from the kernel's rules
  bool held_ = false;              // --all-or-nothing: every block held
  bool incremental_run_ = false;   // --incremental, where it can apply
  bool incremental_block_ = false; // this block goes --incremental
  HeldRefusals refusals_; // the block's planning refusals, until COMMIT
  EbPolicies eb_policies_{cfg_.noflush};
  Location cur_loc_;               // the entry being planned
  std::optional<KernelView> view_; // what this block reads of the kernel
  int retries_ = 0;
  uint32_t id_base_ = 0; // this block's transaction ids start above it
};

} // namespace

std::unique_ptr<RestoreWriter>
make_restore_writer(const RestoreConfig &cfg, Transport *transport,
                    const BlockSource &block, std::ostream &out,
                    const BatchObserver *observer) {
  return std::make_unique<BlockWriter>(cfg, transport, block, out, observer);
}

} // namespace fastrestore::nft
