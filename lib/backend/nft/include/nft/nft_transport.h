// Delivery of a batch to the kernel, behind an interface so tests can
// record batches and script the kernel's answers instead.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastrestore/kernel_state.h"
#include "nft/nft_batch.h"

namespace fastrestore::nft {

struct KernelError {
  uint32_t seq = 0;    // sequence number of the refused message
  int error = 0;       // positive errno
  std::string message; // the kernel's extended-ack text, if any
};

class Transport {
public:
  virtual ~Transport() = default;
  // Sends the whole batch with one sendmsg and returns every error the
  // kernel reported for it (empty: committed). With `genid`, the kernel
  // refuses the batch (ERESTART on BATCH_BEGIN) unless the ruleset is
  // still at that generation.
  std::vector<KernelError> send(const Batch &batch,
                                const uint32_t *genid = nullptr);
  // The same for a batch already framed as bytes (BATCH_BEGIN ...
  // BATCH_END) in `iov`, `size` bytes holding `messages` object messages.
  virtual std::vector<KernelError> send_raw(const std::vector<iovec> &iov,
                                            size_t size, size_t messages) = 0;
  // Reads the chains and rule handles of one table: one chain dump and one
  // rule dump. Throws Error when the kernel cannot be asked.
  virtual KernelTable read_table(uint32_t family, const std::string &table) = 0;
  // The table's chains without their rules (one chain dump).
  virtual KernelTable read_chain_list(uint32_t family,
                                      const std::string &table) {
    KernelTable t = read_table(family, table);
    for (auto &c : t.chains) {
      c.rules.clear();
      c.messages.clear();
    }
    return t;
  }
  // The chains `names` of the table that exist, with their rules unless
  // `rules` is false (a GETCHAIN and a rule dump each, no chain dump), and
  // the table's use.
  virtual KernelTable read_chains(uint32_t family, const std::string &table,
                                  const std::vector<std::string> &names,
                                  bool rules = true) {
    KernelTable t = read_table(family, table);
    std::vector<KernelChain> named;
    for (const auto &n : names)
      for (auto &c : t.chains)
        if (c.name == n) {
          named.push_back(std::move(c));
          if (!rules) {
            named.back().rules.clear();
            named.back().messages.clear();
          }
        }
    t.chains = std::move(named);
    return t;
  }
  // Whether the kernel has this chain (one GETCHAIN, not a dump).
  virtual bool chain_exists(uint32_t family, const std::string &table,
                            const std::string &chain) = 0;
  // The ruleset's generation id: read it before reading the tables a
  // batch depends on, and send the batch with it.
  virtual uint32_t generation() = 0;

  // The messages the kernel echoed for the last batch sent (those sent
  // with NLM_F_ECHO), in the order it committed them.
  std::vector<std::string> echoes;
};

// The iovecs of `iov` (a framed batch) with its BATCH_BEGIN replaced by one
// that carries `genid` (`storage` holds the new BATCH_BEGIN).
std::vector<iovec> with_generation(const std::vector<iovec> &iov,
                                   uint32_t genid, std::string &storage);

// A NETLINK_NETFILTER socket whose buffers grow to fit each batch.
// Throws Error when the socket cannot be opened.
std::unique_ptr<Transport> make_netlink_transport();

// Records every batch sent; answers with the errors queued in `replies`
// (one vector per send, in order; none queued means success).
class RecordingTransport : public Transport {
public:
  std::vector<KernelError> send_raw(const std::vector<iovec> &iov, size_t size,
                                    size_t messages) override;
  KernelTable read_table(uint32_t family, const std::string &table) override;
  bool chain_exists(uint32_t family, const std::string &table,
                    const std::string &chain) override;
  uint32_t generation() override { return genid; }
  uint32_t genid = 1;
  std::vector<std::pair<std::string, KernelTable>> tables; // for read_table
  std::vector<std::string> sent;                           // raw batch bytes
  std::vector<std::vector<KernelError>> replies; // consumed front first
};

} // namespace fastrestore::nft
