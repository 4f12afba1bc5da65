// The nf_tables backend: turns the plan of one block into one batch and
// commits it with one send.
#pragma once

#include <memory>

#include "fastrestore/nft_batch.h"
#include "fastrestore/nft_transport.h"
#include "fastrestore/plan.h"

namespace fastrestore::nft {

// Builds the batch for a plan (see plan.h for what each mode writes).
// Throws Error for rules iptables-nft would refuse while building.
std::unique_ptr<Batch> build_batch(const Plan &plan, Family family);

// Sends the batch; throws Error (exit status 4, or the permission error)
// naming the input line of every message the kernel refused.
void commit_batch(const Batch &batch, Transport &transport);

} // namespace fastrestore::nft
