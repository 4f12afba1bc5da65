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

KernelTable KernelView::table() {
  before();
  return transport_->read_table(family_, table_);
}

KernelTable KernelView::chains(const std::vector<std::string> &names) {
  before();
  return transport_->read_chains(family_, table_, names);
}

KernelTable KernelView::chain_list() {
  before();
  return transport_->read_chain_list(family_, table_);
}

bool KernelView::chain_exists(const std::string &chain) {
  return transport_->chain_exists(family_, table_, chain);
}

uint32_t KernelView::use_now() {
  return transport_->read_chains(family_, table_, {}).use;
}

} // namespace fastrestore::nft
