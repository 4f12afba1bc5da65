// The nf_tables restore writer (parse/restore_writer.h): one transaction
// per COMMIT, or groups of blocks with --coalesce and --all-or-nothing.
#pragma once

#include <iosfwd>
#include <memory>

#include "fastrestore/restore_options.h"
#include "nft/nft_batch.h"
#include "parse/restore_writer.h"

namespace fastrestore::nft {

class Transport;

// `transport` is null for --test (nothing is sent); `out` receives
// --coalesce's verbose lines. With --test, `observer` (when given) takes
// each block's batch.
std::unique_ptr<RestoreWriter>
make_restore_writer(const RestoreConfig &cfg, Transport *transport,
                    const BlockSource &block, std::ostream &out,
                    const BatchObserver *observer = nullptr);

} // namespace fastrestore::nft
