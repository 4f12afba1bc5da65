// Private to the nft backend: the two dumps behind Transport::read_table.
#pragma once

#include <libmnl/libmnl.h>

#include <string>

#include "fastrestore/nft_transport.h"

namespace fastrestore::nft {

KernelTable read_kernel_table(mnl_socket *nl, uint32_t family,
                              const std::string &table);

} // namespace fastrestore::nft
