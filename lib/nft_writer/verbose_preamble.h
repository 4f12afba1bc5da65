// -v of a table replacement, as iptables-nft-restore -v does it: the
// chains' names from one chain dump, their lines on stdout, and the
// flushes and deletions that empty the table into `batch`.
#pragma once

#include <string>

#include "fastrestore/ir.h"
#include "nft/nft_batch.h"
#include "nft/nft_kernel_view.h"

namespace fastrestore::nft {

// `lines_only` (--incremental, which plans the block as a replacement):
// print the lines and leave `batch` alone, unless a base chain drops (such
// a block is sent as iptables-nft sends it). True when only the lines were
// printed; `table_ready` is set once `batch` makes the table.
bool verbose_preamble(KernelView &view, Batch &batch, const std::string &table,
                      Family family, const Location &loc, bool lines_only,
                      bool &table_ready);

} // namespace fastrestore::nft
