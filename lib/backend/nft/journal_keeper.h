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
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastrestore/journal.h"
#include "fastrestore/nft_transport.h"
#include "table_delta.h"

namespace fastrestore::nft {

class JournalKeeper {
public:
  // The journal of this process's network namespace, or none (the reason
  // in *why): turned off, or the kernel cannot name the namespace.
  static std::unique_ptr<JournalKeeper> open(std::string *why);

  std::optional<TableState> load(uint32_t family, const std::string &table,
                                 uint32_t generation, std::string *why) const;

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
  bool record(Transport &transport, uint32_t family, const std::string &table,
              uint32_t before, bool committed, DesiredTable *want,
              const std::vector<uint64_t> *kept,
              const std::vector<Allocation> &made, std::string *why);

private:
  explicit JournalKeeper(Journal journal) : journal_(std::move(journal)) {}
  Journal journal_;
};

} // namespace fastrestore::nft
