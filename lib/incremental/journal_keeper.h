// The nf_tables writer's use of the state journal (journal.h): a table's
// record when it is current, and after each commit of an --incremental
// block the record of what the commit left, with the handles the kernel
// gave the chains and rules it made.
//
// Handles come from the kernel's numbering: one batch's new chains and
// rules get consecutive handles of their table, in message order. The
// batch asks the kernel to echo its first and last such message
// (NLM_F_ECHO), and the record is written only when the two echoed
// handles are as far apart as the messages are; every other handle
// follows. (Echoing every message costs a reply per rule.)
//
// The kernel's numbering also lets the record be made ahead: a table's
// record keeps the handle its commit would give next, and where the
// kernel side came from a current record, the handles of what a batch
// makes are foretold, and the record encoded while the kernel takes the
// batch (prepare, on another thread). The echoes then confirm them, or
// the record is made again with the handles echoed (another program's
// batch that the kernel refused used handles without a commit).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "journal/journal.h"
#include "nft/nft_transport.h"
#include "table_delta.h"

namespace fastrestore::nft {

class JournalKeeper {
public:
  // The journal of this process's network namespace, or none (the reason
  // in *why): turned off, or the kernel cannot name the namespace.
  static std::unique_ptr<JournalKeeper> open(std::string *why);

  std::optional<TableState> load(uint32_t family, const std::string &table,
                                 uint32_t generation, std::string *why) const;
  // One chain of the current record (Journal::load_chain; `chain` ""
  // for none: whether the record is current).
  std::optional<ChainRecord> load_chain(uint32_t family,
                                        const std::string &table,
                                        const std::string &chain,
                                        uint32_t generation,
                                        std::string *why) const {
    return journal_.load_chain(family, table, chain, generation, why);
  }

  // A chain's first rule with either of `keys` in the current record
  // (Journal::find_rule).
  std::optional<RuleLookup> find_rule(uint32_t family, const std::string &table,
                                      const std::string &chain,
                                      std::pair<uint64_t, uint64_t> keys,
                                      uint32_t generation,
                                      std::string *why) const {
    return journal_.find_rule(family, table, chain, keys, generation, why);
  }

  // Asks the kernel to echo the first and last of `made` in `batch`.
  static void ask_echo(Batch &batch, const std::vector<Allocation> &made);

  // After a batch sent with generation `before` (committed: the kernel took
  // it; false: nothing was sent) left the table `want` (keyed by message): kept
  // rules at `kept` (the delta's kept_handles; none: `want`'s rules carry
  // their handles, 0 for those made), the rest made
  // by `made`, whose handles follow from the transport's echoes. With `want`
  // null the table's record is forgotten. False, with the reason, when nothing
  // was recorded. `want`'s state becomes the record: its chains' policies
  // are set as made and its rules' handles as the kernel's.
  // `want`'s state's next_handle: the kernel side's (a batch that makes
  // nothing leaves it), or 0.
  //
  // `ahead`, when given, is prepare()'s for the same `want`, `kept` and
  // `made`.
  struct Ahead {
    uint64_t first = 0; // the handle foretold for made.front()
    Journal::Encoded encoded;
    bool settled = false; // `want`'s state set as record() sets it
    bool ready = false;   // every handle known, and encoded
  };
  bool record(Transport &transport, uint32_t family, const std::string &table,
              uint32_t before, bool committed, DesiredTable *want,
              const std::vector<uint64_t> *kept,
              const std::vector<Allocation> &made, std::string *why,
              Ahead *ahead = nullptr);

  // As record() after a committed batch sent with generation `before`,
  // where `want` holds only the chains the batch named (their rules
  // carrying their handles, 0 for those `made` made), and `gone` names
  // those it deleted: the table's record with those chains written again
  // and the others copied as they are (Journal::edit).
  bool edit(Transport &transport, uint32_t family, const std::string &table,
            uint32_t before, DesiredTable &want,
            const std::vector<std::string> &gone,
            const std::vector<Allocation> &made, std::string *why);

  // Before the commit: sets `want`'s state as record() would, with the
  // handles of `made` from `first` on (the kernel side's next_handle),
  // and encodes it. Touches nothing but its arguments and this journal,
  // so that it runs beside the commit.
  void prepare(uint32_t family, const std::string &table, DesiredTable &want,
               const std::vector<uint64_t> *kept,
               const std::vector<Allocation> &made, uint64_t first,
               Ahead &ahead) const;

private:
  explicit JournalKeeper(Journal journal) : journal_(std::move(journal)) {}
  // The table's record forgotten after this process's commit from
  // `before` to `after` (the index moves on); false, with `reason`.
  bool forget(Transport &transport, uint32_t family, const std::string &table,
              uint32_t before, uint32_t after, const char *reason,
              std::string *why);
  Journal journal_;
};

} // namespace fastrestore::nft
