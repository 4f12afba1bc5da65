// A family's nf_tables tables and chains as the text save reads them (one
// dump each), and the rules of each chain streamed from a background
// thread, one dump per chain, while the caller prints.
#pragma once

#include <libmnl/libmnl.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "decode.h"
#include "fastrestore/ir.h"
#include "fastrestore/kernel_state.h"
#include "fastrestore/tables.h"

namespace fastrestore::save {

// The policy iptables-nft-save prints for a chain: DROP / ACCEPT when set,
// ACCEPT for a base chain without one, RETURN for an ebtables user chain,
// else nullptr ("-").
const char *policy_name(const KernelChain &c, bool bridge);

// The tables named (those the kernel has) with their chains.
std::vector<KernelTable>
read_kernel_tables(Family family, const std::vector<std::string> &names);

// The ruleset generation, to tell whether a read was consistent.
uint32_t ruleset_generation(Family family);

// A built-in table as iptables-nft lists it: its valid base chains by hook
// (absent ones made up with policy ACCEPT), then user chains by name.
struct TableView {
  std::string name;
  std::vector<KernelChain *> chains;
  bool tainted = false; // a base chain iptables does not recognise
  std::vector<std::unique_ptr<KernelChain>> fakes;
};
TableView table_view(KernelTable *t, const BuiltinTable &bt);

// Dumps the rules of the given chains in order on a thread of its own
// (the kernel's work overlaps the caller's decoding): the kernel resumes a
// rule dump by walking again from the first rule it covers, so one dump of
// a whole family costs time quadratic in all its rules, one per chain only
// in the longest chain's.
class RuleStream {
public:
  struct Job {
    std::string table, chain;
  };
  RuleStream(Family family, std::vector<Job> jobs);
  ~RuleStream();
  RuleStream(const RuleStream &) = delete;
  RuleStream &operator=(const RuleStream &) = delete;

  // Waits for job i (taken in order) and hands over its rule messages,
  // back to back; rethrows a failure of the dump.
  std::vector<char> take(size_t i);

private:
  void run(Family family, size_t first, size_t step);

  std::vector<Job> jobs_;
  std::vector<std::vector<char>> bufs_; // job i's, once ready_[i]
  std::unique_ptr<std::atomic<bool>[]> ready_;
  std::atomic<size_t> want_{SIZE_MAX}; // the job the reader waits for
  std::atomic<bool> stop_{false}, failed_{false};
  std::exception_ptr error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
};

// Calls fn(message) for each message of a buffer from RuleStream::take.
template <class F> void each_message(const std::vector<char> &buf, F fn) {
  for (size_t at = 0; at + sizeof(nlmsghdr) <= buf.size();) {
    auto *m = reinterpret_cast<const nlmsghdr *>(buf.data() + at);
    fn(m);
    at += MNL_ALIGN(m->nlmsg_len);
  }
}

struct RuleAttrs {
  const nlattr *expressions = nullptr;
  const nlattr *userdata = nullptr;
};
RuleAttrs rule_attrs(const nlmsghdr *m);

// A chain of a GETCHAIN / NEWCHAIN message; `table` gets its table.
std::unique_ptr<KernelChain> parse_chain(const nlmsghdr *m, std::string &table);

// A set's key length and size from a NEWSET message, and its elements
// from a NEWSETELEM message (added to info.keys).
void read_set(const nlmsghdr *m, SetInfo &info);
void read_set_elements(const nlmsghdr *m, SetInfo &info);

// The sets of the family's tables by table and name, with their elements
// (one dump of the sets, one of each set's elements).
using TableSets = std::map<std::string, std::map<std::string, SetInfo>>;
TableSets read_sets(Family family);

// iptables-nft-save's warning that legacy tables exist in this namespace.
void warn_legacy_tables(Family family);

} // namespace fastrestore::save
