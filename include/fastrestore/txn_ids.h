// Transaction ids (NFTA_RULE_ID, NFTA_SET_ID) of the next block start above
// this base, so that the batches of several blocks sent as one transaction
// (--coalesce) never share an id. 0 (the default) for a block sent alone.
#pragma once

#include <cstdint>

namespace fastrestore {

void set_transaction_id_base(uint32_t base);
uint32_t transaction_id_base();

} // namespace fastrestore
