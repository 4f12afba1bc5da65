// A kernel's nf_tables in memory, behind the Transport seam, for tests
// that read and write the kernel without root: a batch is applied as the
// kernel applies it (all of it or nothing; a new chain or rule takes its
// table's next handle, in message order (a replaced rule keeps its
// handle); NLM_F_ECHO answered; the
// generation moves on by one per commit, and a batch sent with another
// generation is refused with ERESTART), and reads answer from what it
// holds, each rule as the kernel dumps it (its handle, and the handle of
// the rule before it as its position).
//
// It knows what fastrestore sends: tables, chains (made, updated,
// renamed by handle, deleted), rules (appended, inserted at the head or
// before or after a handle or a rule of the same batch, replaced,
// deleted by handle or by batch id, flushed), and anonymous sets, which
// take a handle of their table (as the kernel's do, not counted in the
// table's use) and are otherwise ignored: a rule that looks one up
// (ebtables --among) reads back as sent, not with the name the kernel
// gives the set. It does not check expressions, nor
// that a deleted chain is jumped to. test/kernel/fake_kernel_test.cpp
// holds it to the real kernel's answers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nft/nft_transport.h"

namespace fastrestore::test {

class FakeKernel : public nft::Transport {
public:
  std::vector<nft::KernelError> send_raw(const std::vector<iovec> &iov,
                                         size_t size, size_t messages) override;
  KernelTable read_table(uint32_t family, const std::string &table) override;
  KernelTable read_chain_list(uint32_t family,
                              const std::string &table) override;
  KernelTable read_chains(uint32_t family, const std::string &table,
                          const std::vector<std::string> &names,
                          bool rules = true) override;
  bool chain_exists(uint32_t family, const std::string &table,
                    const std::string &chain) override;
  uint32_t generation() override { return genid_; }

  // Another program's commit: the generation moves on.
  void commit_elsewhere() { next_generation(); }

  // What the kernel was asked: batches sent (and the object messages of
  // the last), and reads by kind.
  int batches = 0;
  size_t last_messages = 0;
  int table_reads = 0, chain_list_reads = 0, chain_reads = 0;

  struct Rule {
    uint64_t handle = 0;
    std::string message; // NFT_MSG_NEWRULE, as set (no handle, position)
  };
  struct Chain {
    uint64_t handle = 0;
    std::string message; // NFT_MSG_NEWCHAIN, as first sent
    std::string name;
    bool has_policy = false;
    uint32_t policy = 0;
    bool counters = false;
    uint64_t packets = 0, bytes = 0;
    std::vector<Rule> rules;
  };
  struct Table {
    uint64_t next_handle = 1;
    std::vector<Chain> chains;
  };
  using Key = std::pair<uint32_t, std::string>; // family, table
  const std::map<Key, Table> &tables() const { return tables_; }

private:
  // By one per commit, skipping 0, as the kernel counts.
  void next_generation() { genid_ = genid_ + 1 == 0 ? 1 : genid_ + 1; }
  KernelTable read(uint32_t family, const std::string &table,
                   const std::vector<std::string> *only, bool rules) const;

  std::map<Key, Table> tables_;
  uint32_t genid_ = 1;
};

} // namespace fastrestore::test
