// One nf_tables transaction as bytes: BATCH_BEGIN, one message per object,
// BATCH_END, ready for one sendmsg.
//
// The bytes live in large chunks (each message inside one chunk), handed to
// sendmsg as an iovec array, so a batch of a million rules is never copied
// or reallocated. Every message gets the next sequence number, and the
// batch remembers the input location and object that caused it, so an
// error the kernel reports for a sequence number can be printed at its
// input line. No message asks for an ACK: the kernel answers only what
// fails.
#pragma once

#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <linux/netlink.h>
#include <sys/uio.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastrestore/ir.h"
#include "nft/nft_rule.h"

namespace fastrestore::nft {

// A batch chunk's memory: from the heap, or (`mapped` bytes) an anonymous
// mapping of its own, whose pages the kernel gives zeroed as they are
// first touched.
struct ChunkFree {
  size_t mapped = 0;
  void operator()(char *p) const;
};

class Batch {
public:
  // Set ids (NFTA_SET_ID) start above id_base (see OpPlanner).
  explicit Batch(Family family, uint32_t id_base = 0);
  ~Batch();
  Batch(const Batch &) = delete;
  Batch &operator=(const Batch &) = delete;

  void add_table(uint16_t msg_type, uint16_t flags, const std::string &table,
                 const Location &loc);
  void add_chain(uint16_t msg_type, uint16_t flags, nftnl_chain *c,
                 const std::string &name, const Location &loc);
  // Encodes an IR rule straight into the batch (see nft_rule.h).
  void add_rule(uint16_t flags, const Rule &rule, Family family,
                const std::string &table, const std::string &chain,
                const Placement &where = {});
  // A rule as libnftnl holds it (e.g. one read back from the kernel).
  void add_rule(uint16_t msg_type, uint16_t flags, nftnl_rule *r,
                const std::string &chain, const Location &loc);
  // The anonymous sets a bridge rule's among matches look up (as
  // ebtables-nft makes them); returns their transaction ids in order.
  std::vector<uint32_t> add_among_sets(const Rule &rule,
                                       const std::string &table);
  // The next anonymous set gets transaction id `id` (ids must stay unique
  // where messages join others, as in an atomic file).
  void set_next_set_id(uint32_t id) { set_id_ = id - 1; }
  // DELRULE of one rule, by kernel handle or by transaction id.
  void add_rule_delete(const std::string &table, const std::string &chain,
                       uint64_t handle, uint32_t id, const Location &loc);
  // DELRULE naming only the chain: flushes it.
  void add_flush(const std::string &table, const std::string &chain,
                 const Location &loc);
  // A copy of `message` (an object message of another batch, e.g. a
  // replacement's NEWRULE or NEWCHAIN) with flags `flags`, to which `more`
  // may add attributes. An error the kernel reports for it names `loc`.
  void add_copy(std::string_view message, uint16_t flags, const Location &loc,
                const char *kind, const std::string &name,
                const std::function<void(nlmsghdr *)> &more = {});
  // Seals the batch with BATCH_END; nothing may be added afterwards.
  void finish();

  // Adds `flags` (e.g. NLM_F_ECHO) to object message `index`.
  void add_flags(size_t index, uint16_t flags);
  // Each object message in order (BEGIN/END left out), with its index.
  void
  each_message(const std::function<void(std::string_view, size_t)> &f) const;
  // The input location of object message `index`, and whether a rule
  // message's line gave counters (Rule::counters_set).
  const Location &location(size_t index) const { return info_[index].loc; }
  bool counters_given(size_t index) const { return info_[index].counters; }

  std::vector<iovec> iov() const;
  std::string bytes() const; // a copy of all bytes, for tests
  // Gives back the room past the messages (a batch held after finish(),
  // e.g. by --coalesce): each chunk shrinks to its bytes.
  void compact();
  size_t size() const { return size_; }
  // Number of object messages (without BEGIN/END).
  size_t messages() const { return info_.size(); }
  uint32_t family() const { return family_; }
  // The encoded message of the rule added with this transaction id (ids are
  // given with --noflush), or an empty view.
  std::string_view rule_message(uint32_t id) const;
  // The message with this sequence number: its input location and what it
  // was ("rule in chain INPUT"); false for BEGIN/END/unknown.
  bool describe(uint32_t seq, Location &loc, std::string &what) const;
  // What iptables-nft calls the operation of the message with each of
  // these sequence numbers (ascending) in its errors ("RULE_APPEND",
  // "CHAIN_USER_ADD", "CHAIN_DEL"); nullptr for BEGIN/END/unknown. One
  // pass over the batch, whatever the number of errors.
  std::vector<const char *> operations(const std::vector<uint32_t> &seqs) const;

private:
  struct Info {
    Location loc;
    const char *kind; // "rule in chain", "chain", "table", ...
    uint32_t name;    // index into names_
    bool counters = false;
  };
  struct Chunk {
    std::unique_ptr<char[], ChunkFree> data;
    size_t len = 0, cap = 0;
  };

  char *reserve();
  nlmsghdr *next_header(uint16_t msg_type, uint16_t flags);
  void commit_message(const nlmsghdr *nlh, const Location &loc,
                      const char *kind, const std::string &name);
  uint32_t name_id(const std::string &name);
  // DELRULE of one rule (handle or id) or, with neither, of a whole chain.
  void add_delrule(const std::string &table, const std::string &chain,
                   uint64_t handle, uint32_t id, const Location &loc,
                   const char *kind);

  uint32_t family_;
  std::vector<Chunk> chunks_;
  size_t size_ = 0;
  uint32_t seq_ = 0;
  std::vector<Info> info_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  uint32_t last_name_ = 0;
  uint32_t set_id_ = 0;
  // Transaction id -> (chunk, offset) of the rule's message.
  std::unordered_map<uint32_t, std::pair<size_t, size_t>> rule_ids_;
  bool finished_ = false;
};

// Takes each block's finished batch in a --test run, which sends nothing
// (`fastrestore diff` compares what a restore would send with what the
// journal says the kernel holds).
using BatchObserver =
    std::function<void(const std::string &table, std::unique_ptr<Batch>)>;

} // namespace fastrestore::nft
