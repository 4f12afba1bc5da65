// Reading nf_tables objects from the kernel, one netlink dump per object
// type: shared by the binary snapshot and the text save.
#pragma once

#include <libmnl/libmnl.h>

#include <cstdint>
#include <string>

#include <functional>

#include "fastrestore/kernel_state.h"

namespace fastrestore::nft {

// One chain of an NFT_MSG_NEWCHAIN message (its name, handle, hook,
// priority, type, policy and counters; no rules), and the table it is in.
KernelChain parse_chain(const nlmsghdr *m, std::string *table);

// Handed each message of a dump's answer.
using DumpCallback = std::function<void(const nlmsghdr *)>;

// The string attribute `type` of an nf_tables message ("" when absent).
std::string attr_str(const nlmsghdr *m, uint16_t type);

// One netlink socket for a family's dumps. Failures throw Error.
class Dumper {
public:
  explicit Dumper(uint8_t family);
  ~Dumper();
  Dumper(const Dumper &) = delete;
  Dumper &operator=(const Dumper &) = delete;

  // The ruleset generation: a dump is consistent when it is unchanged.
  uint32_t generation();

  // Dumps `type` objects (of one table when `table` is set, and of one set
  // for elements), handing each message to `cb`.
  void dump(uint16_t type, const char *what, const std::string &table,
            const std::string &set, const DumpCallback &cb);

  // Dumps the rules of one chain.
  void dump_rules(const std::string &table, const std::string &chain,
                  const DumpCallback &cb);

private:
  void run(const nlmsghdr *req, const char *what, const DumpCallback &cb);

  mnl_socket *nl_;
  uint8_t family_;
  uint32_t seq_;
};

} // namespace fastrestore::nft
