#include "fastrestore/nft_batch.h"
#include <cstdio> // libnftnl headers need FILE

#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstring>
#include <new>

namespace fastrestore::nft {
namespace {

// Room kept free at the tail for the next message; no single iptables rule
// comes close: a line has at most 255 words and compat blobs are a few KiB.
constexpr size_t kHeadroom = 1024 * 1024;

} // namespace

Batch::Batch(Family family)
    : family_(family == Family::ipv4 ? NFPROTO_IPV4 : NFPROTO_IPV6) {
  reserve();
  nlmsghdr *nlh = nftnl_batch_begin(buf_.get() + len_, ++seq_);
  len_ += nlh->nlmsg_len;
}

Batch::~Batch() = default;

char *Batch::reserve() {
  if (cap_ - len_ >= kHeadroom)
    return buf_.get() + len_;
  size_t cap = cap_ ? cap_ * 2 : 4 * kHeadroom;
  while (cap - len_ < kHeadroom)
    cap *= 2;
  std::unique_ptr<char[]> grown(new char[cap]);
  if (len_)
    std::memcpy(grown.get(), buf_.get(), len_);
  buf_ = std::move(grown);
  cap_ = cap;
  return buf_.get() + len_;
}

nlmsghdr *Batch::next_header(uint16_t msg_type, uint16_t flags) {
  char *tail = reserve();
  return nftnl_nlmsg_build_hdr(tail, msg_type, static_cast<uint16_t>(family_),
                               flags, ++seq_);
}

void Batch::commit_message(const nlmsghdr *nlh, const Location &loc,
                           std::string what) {
  len_ += NLMSG_ALIGN(nlh->nlmsg_len);
  info_.push_back(MessageInfo{loc, std::move(what)});
}

void Batch::add_table(uint16_t msg_type, uint16_t flags,
                      const std::string &table, const Location &loc) {
  nftnl_table *t = nftnl_table_alloc();
  if (t == nullptr)
    throw std::bad_alloc();
  nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, family_);
  nftnl_table_set_str(t, NFTNL_TABLE_NAME, table.c_str());
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_table_nlmsg_build_payload(nlh, t);
  nftnl_table_free(t);
  commit_message(nlh, loc, "table " + table);
}

void Batch::add_chain(uint16_t msg_type, uint16_t flags, nftnl_chain *c,
                      const Location &loc, std::string what) {
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_chain_nlmsg_build_payload(nlh, c);
  commit_message(nlh, loc, std::move(what));
}

void Batch::add_rule(uint16_t msg_type, uint16_t flags, nftnl_rule *r,
                     const Location &loc, std::string what) {
  nlmsghdr *nlh = next_header(msg_type, flags);
  nftnl_rule_nlmsg_build_payload(nlh, r);
  commit_message(nlh, loc, std::move(what));
}

void Batch::finish() {
  if (finished_)
    return;
  reserve();
  nlmsghdr *nlh = nftnl_batch_end(buf_.get() + len_, ++seq_);
  len_ += nlh->nlmsg_len;
  finished_ = true;
}

const MessageInfo *Batch::info(uint32_t seq) const {
  // seq 1 is BATCH_BEGIN; object messages start at 2.
  if (seq < 2 || seq - 2 >= info_.size())
    return nullptr;
  return &info_[seq - 2];
}

} // namespace fastrestore::nft
