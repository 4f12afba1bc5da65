// One block's reads of its table in the kernel, in one place (the
// nf_tables backend's; the writer, lib/nft_writer, and the incremental
// engine, lib/incremental, use it). The planner (a command's chain, or
// the table when a command needs every chain), -v's lines (the chain
// list), the incremental engine (the table, or the base chains a
// --noflush block leaves) and the coalescer's chain questions all read
// through the block's KernelView. Before its first read it lets the
// blocks of a group go in first (`before_read`) and notes the ruleset's
// generation, which the block's batch is then sent with: a commit by
// another program in between makes the kernel refuse the batch, and the
// block is planned again from a fresh view. The table, once read whole,
// is kept: the block's later reads (the planner's, then the incremental
// engine's) are answered from it, not from a second dump.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "nft/nft_transport.h"

namespace fastrestore::nft {

class KernelView {
public:
  // `transport` null: nothing can be read (--test).
  KernelView(Transport *transport, uint32_t family, std::string table,
             std::function<void()> before_read = {})
      : transport_(transport), family_(family), table_(std::move(table)),
        before_read_(std::move(before_read)) {}

  bool reachable() const { return transport_ != nullptr; }

  // The ruleset's generation, read once, before anything else the block
  // reads; `noted`: whether it was (the batch then carries it).
  uint32_t generation();
  const std::optional<uint32_t> &noted() const { return genid_; }

  // Every chain with its rules (a chain dump, then a rule dump a chain;
  // read once, kept for the block).
  const KernelTable &table();
  // The chains `names` that exist, with their rules unless `rules` is
  // false, in that order (a GETCHAIN and a rule dump of that chain each,
  // unless the table was read whole).
  KernelTable chains(const std::vector<std::string> &names, bool rules = true);
  // The chains without their rules (one chain dump, unless the table was
  // read whole).
  KernelTable chain_list();
  // Whether the table has `chain` (one GETCHAIN). No generation: a plan
  // made from the answer is checked by the kernel itself (a chain made
  // twice, or gone, is refused).
  bool chain_exists(const std::string &chain);

  // After the block's batch is committed: the table's count of what it
  // holds now (chains, sets, objects), past the generation noted.
  uint32_t use_now();

private:
  void before();

  Transport *transport_;
  uint32_t family_;
  std::string table_;
  std::function<void()> before_read_;
  std::optional<uint32_t> genid_;
  std::optional<KernelTable> whole_; // table(), once read
};

} // namespace fastrestore::nft
