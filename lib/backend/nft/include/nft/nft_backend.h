// The nf_tables backend: turns the plan of one block into one batch and
// commits it with one send.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>

#include "check/plan.h"
#include "fastrestore/diagnostic.h"
#include "nft/nft_batch.h"
#include "nft/nft_transport.h"

namespace fastrestore::nft {

// Opens a block in the batch: when replacing, creates the table (so that
// deleting it is valid whether or not it existed) and deletes it. The
// table is made (again) before the block's first object (emit_op), so an
// empty --noflush block sends nothing.
void begin_block(Batch &b, const std::string &table, const Location &loc,
                 bool replace, bool &table_ready);

// Writes one planned operation. The table is created before the block's
// first object, tracked by `table_ready`.
void emit_op(Batch &b, const Op &op, const std::string &table, Family family,
             const Location &table_loc, bool &table_ready);

// Builds the batch for a plan (see plan.h for what each mode writes).
// Throws Error for rules iptables-nft would refuse while building.
// `before_end`, when set, adds the last messages (ebtables-nft's user chain
// policy rules) before the batch is sealed.
std::unique_ptr<Batch>
build_batch(const Plan &plan, Family family,
            const std::function<void(Batch &)> &before_end = {},
            uint32_t id_base = 0);

// Sends the batch; throws Error (exit status 4, or the permission error)
// naming the input line of every message the kernel refused.
// With `genid`, the batch only applies if the ruleset is still at that
// generation; otherwise nothing is applied and GenerationChanged is thrown.
void commit_batch(const Batch &batch, Transport &transport,
                  const uint32_t *genid = nullptr);

// Sends the batch without its BATCH_END: the kernel checks every message as
// a commit would (loops and jumps too) and undoes them all. Throws as
// commit_batch does for what it refuses.
void check_batch(const Batch &batch, Transport &transport,
                 const uint32_t *genid = nullptr);

// The ruleset changed since the generation a batch was planned against.
struct GenerationChanged : std::runtime_error {
  GenerationChanged()
      : std::runtime_error("the ruleset changed while the batch was planned") {}
};
// Whether the kernel's answer to a batch sent with a generation says the
// generation was stale.
bool stale_generation(const std::vector<KernelError> &errors);
// The Error commit_batch throws for the kernel's `errors` (not empty) about
// `batch`'s messages.
Error batch_error(const Batch &batch, std::vector<KernelError> errors);

} // namespace fastrestore::nft
