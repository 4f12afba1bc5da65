// Whole-block checks and the plan of what a block does to the kernel.
//
// Without --noflush a block replaces its table: the planner applies every
// declaration and command to a model of the new table (chains in creation
// order, rules in order) and the backend writes that final state after
// deleting the old table, in one transaction. Commands are checked against
// the model as iptables-nft checks them (unknown chain, chain exists, rule
// not found, index too big, jump to a missing chain), each error naming its
// line.
//
// With --noflush the planner emits one operation per declaration and
// command against the kernel's current table. Commands that address rules
// by position (-I N, -D N, -R N) or specification (-D, -C), -Z, and those
// that need the list of chains (-E, -F and -X without a chain) read the
// table once per block (KernelAccess).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "check/table_model.h"
#include "fastrestore/ir.h"
#include "fastrestore/kernel_state.h"
#include "fastrestore/tables.h"

namespace fastrestore {

// A chain as the backend writes it: its attributes (table_model.h) and
// its rules.
struct PlannedChain : ChainAttrs {
  std::vector<Rule> rules;
};

enum class OpKind {
  chain_update,  // NEWCHAIN (create or update a base chain's policy)
  chain_create,  // NEWCHAIN for a user chain of a table being replaced
  chain_restore, // ":user -" with --noflush: create if missing, flush
  chain_new,     // -N: create, fail if it exists
  chain_delete,  // -X chain
  chain_flush,   // -F chain
  rule_append,   // -A
  rule_insert,   // -I chain 1
  // --noflush operations on rules the kernel (or this batch) already has:
  rule_insert_before, // -I chain N: before the rule `ref`
  rule_delete,        // -D chain N
  rule_replace,       // -R chain N on a kernel rule
  rule_zero,          // -Z: a kernel rule again, counters zeroed (`message`)
  chain_rename,       // -E (a kernel chain, by handle)
};

struct Op {
  OpKind kind;
  Location loc;
  PlannedChain chain;        // name (and base chain data for chain_update)
  Rule rule;                 // for rule ops
  uint32_t id = 0;           // transaction id of a new rule (--noflush)
  RuleRef ref;               // target of rule_insert_before/delete/replace
  uint64_t chain_handle = 0; // chain_rename, chain_delete (when known)
  std::string new_name;      // chain_rename
  std::string message;       // rule_zero: the rule as the kernel dumped it
};

// How --noflush reaches the kernel's table: `read` dumps it whole (called
// at most once per block, when a command first needs every chain; the
// table stays its giver's, which may answer later reads from it);
// `read_chains`, when given, reads only the chains named (a command that
// addresses rules of one chain reads that chain alone); the identify_*
// functions give rule identities for -D and -C by rule specification
// (nft/rule_identity.h): of a rule the kernel dumped, of a rule added
// earlier in this block (by transaction id), and of a rule from the input.
struct KernelAccess {
  std::function<const KernelTable &()> read;
  std::function<KernelTable(const std::vector<std::string> &names)> read_chains;
  // Whether the kernel's table has this chain (one small request).
  std::function<bool(const std::string &chain)> chain_exists;
  // The kernel's chain `name` without its rules (one GETCHAIN), nullopt
  // when the table lacks it: -E names the chain by its handle.
  std::function<std::optional<KernelChain>(const std::string &name)> chain_head;
  std::function<std::string(std::string_view message)> identify_message;
  std::function<std::string(uint32_t id)> identify_batch_rule;
  std::function<std::string(const Rule &rule)> identify_rule;
  // --noflush --incremental: chain `name` as the journal's current record
  // of the table has it (its rules' handles, no messages; each rule's
  // recorded key into `keys`), nullopt when there is no current record or
  // it lacks the chain. Commands that need no rule's message (-I N, -D N,
  // -R N, and -C of a rule found by key) are planned from it, without
  // reading the chain; the others read the chain's messages after all.
  std::function<std::optional<KernelChain>(const std::string &name,
                                           std::vector<uint64_t> &keys)>
      recorded_chain;
  // The handle of the first rule of chain `name` whose recorded key is
  // either of `keys` (record_keys), the chain's part of the record
  // scanned without decoding it: -C of a rule the block has not touched
  // the chain of is answered from it alone. nullopt: no current record,
  // no such chain in it, or no such key.
  std::function<std::optional<uint64_t>(const std::string &name,
                                        std::pair<uint64_t, uint64_t> keys)>
      recorded_rule;
  // The keys a record holds for a rule like `rule` (by its message's
  // bytes; by its identity): a record key equal to either is such a rule.
  std::function<std::pair<uint64_t, uint64_t>(const Rule &rule)> record_keys;
};

struct Plan {
  std::string table;
  Location loc;                     // the *table line
  bool replace = false;             // true: delete the table, write chains
  std::vector<PlannedChain> chains; // replace mode: the new table
  std::vector<Op> ops;              // noflush mode
};

// Plans a block entry by entry, so each can be encoded as soon as it is
// read. With --noflush every entry becomes operations. When a table is
// replaced, declarations, -A, -I 1, -N, -P and -F CHAIN are planned here;
// any other command needs the whole-block model (plan_block), which add()
// reports by returning false.
class OpPlanner {
public:
  // Transaction ids (NFTA_RULE_ID) start above id_base: the blocks sent as
  // one transaction (--coalesce) each take their own range.
  OpPlanner(const std::string &table, bool noflush, bool counters,
            KernelAccess kernel = {}, Family family = Family::ipv4,
            uint32_t id_base = 0);
  // Appends the operations for `entry` to `out` (its rules move into
  // them); throws Error when the entry is refused; returns false when the
  // block needs plan_block.
  bool add(Block::Entry &&entry, std::vector<Op> &out);
  // A table replacement's declarations of user chains that the writer
  // takes without parsing (the kernel has the chains, and the journal
  // knows them), asked by name: later commands may name such a chain,
  // and nothing is planned for it.
  void declared_unparsed(std::function<bool(std::string_view)> declared) {
    declared_unparsed_ = std::move(declared);
  }

private:
  void ensure_base(const Command &cmd, std::vector<Op> &out);
  bool plan_replace(Command &cmd, std::vector<Op> &out);
  void plan_noflush(Command &cmd, std::vector<Op> &out);
  void check_jumps(const Command &cmd);
  void require_chain(const Command &cmd);
  void add_rules(Command &cmd, std::vector<Op> &out);
  bool append_before_policy(Command &cmd, std::vector<Op> &out);
  using Chain = ModelChain;
  std::optional<uint32_t> policy_of(const Chain &c) const;
  bool chain_exists_now(const std::string &chain);
  void drop_policy_rule(const std::string &chain, Chain &c, const Location &loc,
                        std::vector<Op> &out);
  void keep_policy(const std::string &chain, const Location &loc,
                   std::optional<uint32_t> verdict, std::vector<Op> &out);
  void plan_user_policy(const Command &cmd, std::vector<Op> &out);

  const std::string &identity(const RuleRef &ref);
  void plan_by_spec(const Command &cmd, std::vector<Op> &out);
  bool checked_by_key(const Command &cmd);
  void plan_zero(const Command &cmd, std::vector<Op> &out);
  // `id` carries the rule id, or the policy for Event::policy.
  enum class Event { append, insert_head, flush, create, remove, policy };
  void record(Event ev, const std::string &chain, uint32_t id = 0);
  void apply(Event ev, const std::string &chain, uint32_t id);
  TableModel &whole(const Command &cmd);
  // The chain `cmd` names, read when not yet (from the journal's record
  // when it has it and `messages` are not needed).
  Chain &model_chain(const Command &cmd, bool messages = true);
  // The same, null when the chain is not there.
  Chain *find_chain(const Command &cmd, bool messages);
  bool chain_read(const std::string &name) const {
    return whole_ || read_.count(name) != 0;
  }
  Chain from_kernel(const KernelChain &kc);
  void load_chain(const std::string &name, const KernelChain *kc);
  bool load_recorded(const std::string &name);
  void read_messages(const Command &cmd);
  std::vector<RuleRef>::iterator found_by_key(const std::string &name, Chain &c,
                                              const Rule &rule, bool first);
  void plan_positional(const Command &cmd, std::vector<Op> &out);
  void rename_unread(const Command &cmd, std::vector<Op> &out);
  void read_renamed(const Command &cmd);
  bool logged(const std::string &name) const;
  void plan_policy(const Command &cmd, std::vector<Op> &out);

  const BuiltinTable *table_;
  Family family_;
  bool noflush_, counters_;
  KernelAccess kernel_;
  // Whether chain `name` exists now (the block made or declared it); and
  // making it so, true when it did not.
  bool known(const std::string &name) const;
  bool make_known(const std::string &name);
  std::unordered_set<std::string> known_; // chains that exist now
  std::function<bool(std::string_view)> declared_unparsed_; // and these
  std::set<std::string> kernel_chains_; // --noflush: the kernel's, found
  uint32_t next_id_ = 0;
  // The --noflush model of the table: the kernel's chains and rules with
  // this block's changes applied, read a chain at a time as commands need
  // them, or whole. Changes to a chain not read yet are logged (log_) and
  // replayed onto it when it is read.
  TableModel model_;           // the chains read that exist now
  std::set<std::string> read_; // chains read one by one
  bool whole_ = false;         // every chain read (model_ in table order)
  // The block's changes until the whole table is read; `applied`: to a
  // chain read by then.
  struct Logged {
    Event ev;
    std::string chain;
    uint32_t id;
    bool applied;
  };
  std::vector<Logged> log_;
  // For -D/-C by specification and -Z: the kernel's rule messages and the
  // identities computed so far.
  std::map<uint64_t, std::string> kernel_msgs_;
  // The kernel's bridge policy rules read (handle -> verdict).
  std::map<uint64_t, uint32_t> kernel_policy_rules_;
  // The bridge policy rules this block appended (id -> verdict).
  std::map<uint32_t, uint32_t> block_policy_rules_;
  std::map<std::pair<uint64_t, uint32_t>, std::string> identities_;
  // Chains read from the journal's record, whose rules' messages are not
  // known (recorded_chain), and each such chain's rules as recorded: their
  // handles and keys, in the record's order.
  std::set<std::string> recorded_;
  struct RecordedRules {
    std::vector<uint64_t> handles, keys;
  };
  std::map<std::string, RecordedRules> recorded_keys_;
  // Chains the block renamed before any command read them (-E by the
  // chain's handle, nothing else of the table read): each new name, the
  // name the kernel still knows the chain by (in read_: gone by it) and
  // its handle (the batch's later commands name it by that).
  struct Renamed {
    std::string from;
    uint64_t handle = 0;
  };
  std::map<std::string, Renamed> renamed_;
};

// Throws Error for the first command the model refuses. `read_kernel` is
// only used with --noflush (see OpPlanner).
Plan plan_block(const Block &block, bool noflush, bool counters,
                KernelAccess kernel = {}, uint32_t id_base = 0);

} // namespace fastrestore
