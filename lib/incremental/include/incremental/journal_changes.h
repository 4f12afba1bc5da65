// What loading a table's replacement would change, told by the state
// journal (journal.h) without reading the table: the replacement batch
// compared with the journal's record (the incremental restore's delta,
// delta.h), the changes checked by the kernel without being committed, and
// only the chains whose rules change read from the kernel. For `fastrestore
// diff`, which prints both sides in save form (text_save.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "nft/nft_batch.h"
#include "nft/nft_transport.h"

namespace fastrestore::nft {

struct JournalChanges {
  bool changes = false; // the load would change the table
  // The table the batch makes, its rules as the batch's messages.
  KernelTable after;
  // With `changes` (else its name only, as `after`): the table as the
  // kernel holds it, its chains as the journal records them, each with its
  // rules (KernelChain::messages): a chain the load leaves as it is with
  // the batch's messages for the same rules, every other chain with the
  // kernel's, read.
  KernelTable before;
  // The chains of `before` whose rules are not those of the chain of
  // `after` of the same name (or that `after` lacks).
  std::vector<std::string> changed;
};

// The changes `replacement` (a table replacement's finished batch, --test)
// would make to `table`. nullopt, with the reason in *why, when the journal
// cannot tell: turned off, no current record of the table (another tool
// changed the ruleset), a batch that is more than chains and appended
// rules, a table the delta would replace, or the ruleset changed while
// the chains were read. Throws Error, as a commit would, for changes the
// kernel refuses.
std::optional<JournalChanges>
journal_changes(const Batch &replacement, const std::string &table,
                Family family, Transport &transport, std::string *why);

} // namespace fastrestore::nft
