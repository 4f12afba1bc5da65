// --coalesce MS: the --noflush blocks that arrive within MS milliseconds of
// each other go to the kernel as one transaction. When that transaction
// fails, the blocks are sent again one by one, in order, so each ends as it
// would have alone: applied, or rejected with its own line numbers (and the
// restore stops there, as it would have).
//
// --all-or-nothing: every block of the input is held, and flush() at the
// end of the input sends them all as one transaction. When the kernel
// refuses it, nothing is applied: the failing block is found by sending
// growing prefixes of the blocks without BATCH_END (the kernel checks such
// a batch and throws it away), and its error is reported.
#pragma once

#include <sys/uio.h>

#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/plan.h"
#include "fastrestore/ir.h"
#include "nft/nft_batch.h"
#include "nft/nft_transport.h"

namespace fastrestore {

class Coalescer {
public:
  Coalescer(nft::Transport &transport, int wait_ms, bool verbose,
            std::ostream &out, bool all_or_nothing = false)
      : transport_(transport), wait_ms_(wait_ms), verbose_(verbose), out_(out),
        hold_all_(all_or_nothing) {}

  int wait_ms() const { return wait_ms_; }
  bool pending() const { return !items_.empty(); }
  bool holds_all() const { return hold_all_; }
  // --all-or-nothing: a held block was planned from the kernel's rules at
  // this generation (the first one noted is sent with the transaction).
  void note_generation(uint32_t genid) {
    if (!genid_)
      genid_ = genid;
  }
  // Whether a held block changes `table` (what the kernel says of it is
  // then not what the transaction will find).
  bool pending_table(const std::string &table) const;

  // Takes a finished block's batch; sends the group when it is full.
  // `lines` are the block's input lines, for a later error's display.
  void add(std::unique_ptr<nft::Batch> batch, const std::string &table,
           int first_line, int last_line, std::vector<std::string> lines);
  // Sends every pending block (throws Error as commit_batch does, for the
  // first block that fails).
  void flush();

  // The base of the transaction ids the next block may use (distinct from
  // every pending block's).
  uint32_t id_base() const;

  // Whether the kernel has a chain, known without asking while blocks are
  // pending: chains seen or made since the last change of the chain set.
  bool known_chain(Family family, const std::string &table,
                   const std::string &chain) const {
    return chains_.count(chain_key(family, table, chain)) != 0;
  }
  void note_chain(Family family, const std::string &table,
                  const std::string &chain) {
    chains_.insert(chain_key(family, table, chain));
  }
  // A block's operation on `table`: a base chain it makes exists once the
  // group is in; a chain deleted or renamed makes every earlier answer
  // doubtful, and the table too (doubtful()).
  void note_op(Family family, const std::string &table, const Op &op);
  // Whether a held block deleted or renamed a chain of `table`: what the
  // kernel says of its chains is not what the transaction will find.
  bool doubtful(const std::string &table) const {
    return doubtful_.count(table) != 0;
  }

private:
  struct Item {
    std::unique_ptr<nft::Batch> batch;
    std::string table;
    int first_line, last_line;
    std::vector<std::string> lines;
  };
  void report(const Item &item, const char *how);
  static void show_lines(const Item &item, Error &e);
  // The blocks [0, n) as one transaction's iovecs (with BATCH_END when
  // `end`); `storage` holds a copy when there are too many pieces for one
  // sendmsg.
  std::vector<iovec> merge(const std::vector<Item> &items, size_t n, bool end,
                           size_t &size, size_t &messages,
                           std::string &storage) const;
  void commit_all(std::vector<Item> &items);

  nft::Transport &transport_;
  int wait_ms_;
  bool verbose_;
  std::ostream &out_;
  std::vector<Item> items_;
  size_t bytes_ = 0, iovs_ = 0;
  static std::string chain_key(Family family, const std::string &table,
                               const std::string &chain) {
    return std::to_string(static_cast<int>(family)) + "/" + table + "/" + chain;
  }
  void forget_chains() { chains_.clear(); }

  std::set<std::string> chains_;   // chain_key of chains known to exist
  std::set<std::string> doubtful_; // tables with a chain deleted or renamed
  bool hold_all_ = false;
  std::optional<uint32_t> genid_;
};

} // namespace fastrestore
