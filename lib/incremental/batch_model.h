// The incremental restore's one model of what a batch does to a table
// (table_delta.h's desired_table and noflush_table): the batch's
// messages applied one after another to the table they start from, each
// chain and rule remembering where it came from (the kernel's table, a
// line taken unparsed, or a message of the batch), read out at the end as
// the desired table.
//
// A replacement batch (NEWTABLE, DELTABLE, then chains and appended
// rules) starts from nothing but the chains declared without messages
// (lines taken unparsed: the kernel has them); a --noflush batch starts
// from the kernel's table and may also insert at a chain's head, flush,
// delete rules by handle and delete chains; and place rules before or
// after another, or in a kernel rule's place, and delete its own rules by
// transaction id (-I N, -R N, -D N of a rule it made), which make the
// table one to record, not one a delta may make (commands_only). Anything
// else (-Z's rules written again, a rename, a set), and what the kernel
// would refuse, makes the batch one the model does not follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "check/table_state.h"
#include "nft/nft_batch.h"
#include "sys/hash_index.h"
#include "table_delta.h"

namespace fastrestore::nft {

class BatchModel {
public:
  // A --noflush batch on the kernel's table `kernel`, with the lines
  // `known` taken unparsed (table_delta.h's UnparsedLine).
  BatchModel(const Batch &batch, const TableState &kernel,
             const std::vector<UnparsedLine> &known);
  // A replacement batch; `declared` are chains the block declares
  // without the batch making them, which the batch may fill but not make.
  BatchModel(const Batch &replacement,
             const std::vector<std::string_view> &declared);

  // Message `m` (the batch's `index`th) applied; false when the model
  // does not follow it.
  bool apply(std::string_view m, size_t index);
  // Line known[k], taken unparsed: its recorded rule appended, or the
  // chain it declares flushed.
  bool take_line(size_t k);
  // The table at the end (false from apply or take_line: not to be
  // asked).
  std::optional<DesiredTable> result();

private:
  // A rule of a chain as a reference to where it comes from (16 bytes:
  // kube-proxy's tables hold 100,000 of them, which the model would
  // otherwise copy): the kernel's rule, line known_[ref] or made_[ref].
  struct Rule {
    enum class From : uint8_t { kernel, known, batch };
    From from;
    union {
      const StateRule *kernel;
      size_t ref;
    };
    static Rule of(From from, size_t ref) {
      Rule r;
      r.from = from;
      r.ref = ref;
      return r;
    }
    static Rule of(const StateRule &kernel) {
      Rule r;
      r.from = From::kernel;
      r.kernel = &kernel;
      return r;
    }
  };
  // A rule message of the batch (its index), its allocation (in
  // allocations_; SIZE_MAX: a rule in another's place, which keeps that
  // rule's handle, `replaces`) and its transaction id (0: none).
  struct Made {
    std::string_view message;
    size_t index;
    size_t allocation;
    uint32_t id;
    uint64_t replaces;
  };
  struct Chain {
    StateChain state; // without its rules
    std::string_view message;
    size_t index = SIZE_MAX;
    bool alive = true;
    bool flushed = false; // by the batch, before what it adds
    bool unmade = false;  // declared without a message: not to be made
    std::vector<Rule> rules;
    // The kernel's rules, while not yet copied into `rules`.
    const std::vector<StateRule> *pending = nullptr;
  };

  static StateRule kernel_rule(const StateRule &kr);
  static void copy_kernel_rules(Chain &c);
  static void flush(Chain &c);
  Chain &add_chain(std::string_view name);
  Chain *find(std::string_view name);
  bool new_chain(std::string_view m, size_t index);
  bool delete_chain(std::string_view m);
  bool new_rule(std::string_view m, size_t index);
  bool delete_rule(std::string_view m);
  std::vector<Rule>::iterator locate(Chain &c, uint64_t handle, uint32_t id);

  const Batch &batch_;
  const bool replacement_;
  size_t seen_ = 0; // messages applied (a replacement's first two: its start)
  const std::vector<UnparsedLine> &known_;
  std::vector<Made> made_;
  // The batch's messages that make chains and rules, in order (the rule
  // each made, if it stays, is filled in by result()).
  std::vector<Allocation> allocations_;
  bool repeatable_ = true;
  bool doubled_ = false;       // a chain declared twice
  bool commands_only_ = false; // DesiredTable::commands_only
  size_t kernel_chains_ = 0;   // chains_ [0, kernel_chains_): the kernel's
  std::deque<Chain> chains_;
  HashIndex by_name_; // chains_ by their names' hash64
};

} // namespace fastrestore::nft
