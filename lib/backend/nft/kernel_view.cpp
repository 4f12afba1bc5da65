#include "nft/nft_kernel_view.h"

namespace fastrestore::nft {

void KernelView::before() {
  if (before_read_)
    before_read_();
  generation();
}

uint32_t KernelView::generation() {
  if (!genid_)
    genid_ = transport_->generation();
  return *genid_;
}

const KernelTable &KernelView::table() {
  if (!whole_) {
    before();
    whole_ = transport_->read_table(family_, table_);
  }
  return *whole_;
}

namespace {

// The table's own attributes, no chains.
KernelTable head_of(const KernelTable &t) {
  KernelTable out;
  out.name = t.name;
  out.exists = t.exists;
  out.use = t.use;
  return out;
}

} // namespace

KernelTable KernelView::chains(const std::vector<std::string> &names,
                               bool rules) {
  if (!whole_) {
    before();
    return transport_->read_chains(family_, table_, names, rules);
  }
  KernelTable out = head_of(*whole_);
  for (const auto &n : names)
    for (const KernelChain &c : whole_->chains)
      if (c.name == n)
        out.chains.push_back(c);
  return out;
}

KernelTable KernelView::chain_list() {
  if (!whole_) {
    before();
    return transport_->read_chain_list(family_, table_);
  }
  KernelTable out = head_of(*whole_);
  for (const KernelChain &c : whole_->chains) {
    KernelChain &head = out.chains.emplace_back(c);
    head.rules.clear();
    head.messages.clear();
    head.eb_policy.reset(); // (decoded from the rules)
  }
  return out;
}

bool KernelView::chain_exists(const std::string &chain) {
  return transport_->chain_exists(family_, table_, chain);
}

uint32_t KernelView::use_now() {
  return transport_->read_chains(family_, table_, {}).use;
}

} // namespace fastrestore::nft
