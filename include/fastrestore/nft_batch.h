// One nf_tables transaction as bytes: BATCH_BEGIN, one message per object,
// BATCH_END, in a single contiguous buffer ready for one sendmsg.
//
// Every message gets the next sequence number, and the batch remembers the
// input location that caused it, so an error the kernel reports for a
// sequence number can be printed at its input line. No message asks for an
// ACK: the kernel answers only what fails.
#pragma once

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <linux/netlink.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore::nft {

// What a message did, for error reports ("rule in chain INPUT").
struct MessageInfo {
  Location loc;
  std::string what;
};

class Batch {
public:
  explicit Batch(Family family);
  ~Batch();
  Batch(const Batch &) = delete;
  Batch &operator=(const Batch &) = delete;

  void add_table(uint16_t msg_type, uint16_t flags, const std::string &table,
                 const Location &loc);
  void add_chain(uint16_t msg_type, uint16_t flags, nftnl_chain *c,
                 const Location &loc, std::string what);
  void add_rule(uint16_t msg_type, uint16_t flags, nftnl_rule *r,
                const Location &loc, std::string what);
  // Seals the batch with BATCH_END; nothing may be added afterwards.
  void finish();

  const char *data() const { return buf_.get(); }
  size_t size() const { return len_; }
  // Number of object messages (without BEGIN/END).
  size_t messages() const { return info_.size(); }
  uint32_t family() const { return family_; }
  // The message with this sequence number, or nullptr (BEGIN/END/unknown).
  const MessageInfo *info(uint32_t seq) const;

private:
  char *reserve();
  nlmsghdr *next_header(uint16_t msg_type, uint16_t flags);
  void commit_message(const nlmsghdr *nlh, const Location &loc,
                      std::string what);

  uint32_t family_;
  std::unique_ptr<char[]> buf_;
  size_t len_ = 0, cap_ = 0;
  uint32_t seq_ = 0;
  std::vector<MessageInfo> info_;
  bool finished_ = false;
};

} // namespace fastrestore::nft
