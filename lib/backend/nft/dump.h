// Private to the nft backend: the two dumps behind Transport::read_table.
#pragma once

#include <libmnl/libmnl.h>

#include <functional>
#include <string>
#include <vector>

#include "nft/nft_dumper.h"
#include "nft/nft_transport.h"

namespace fastrestore::nft {

// One table with every chain, or (`only`) the chains named that exist;
// with the chains' rules unless `rules` is false.
KernelTable read_kernel_table(mnl_socket *nl, uint32_t family,
                              const std::string &table,
                              const std::vector<std::string> *only = nullptr,
                              bool rules = true);

// The ruleset's generation id (one GETGEN): every commit changes it.
uint32_t kernel_generation(mnl_socket *nl);

// Whether the kernel has chain `chain` of `table` (one GETCHAIN).
bool kernel_chain_exists(mnl_socket *nl, uint32_t family,
                         const std::string &table, const std::string &chain);

// Sends one request and hands every message of the answer to `cb` until
// the kernel ends it (a dump's DONE, or the ACK of a request with
// NLM_F_ACK). Returns false when the kernel answers ENOENT; throws Error
// (naming `what`) on any other failure.
// A dump the kernel marks interrupted (NLM_F_DUMP_INTR: a commit changed
// what it lists) throws DumpInterrupted, after reading the dump's end.
bool run_dump(mnl_socket *nl, const nlmsghdr *req, const char *what,
              const DumpCallback &cb);
struct DumpInterrupted {};
// Whether a received buffer holds the end of an answer (DONE, or an ACK
// or error); drain reads and drops the rest of an answer up to its end.
bool ends_answer(const char *buf, size_t len);
void drain(mnl_socket *nl, char *buf, size_t size);
KernelTable read_kernel_table_once(mnl_socket *nl, uint32_t family,
                                   const std::string &table,
                                   const std::vector<std::string> *only,
                                   bool rules);

} // namespace fastrestore::nft
