// The order in which iptables-nft reports a block's refusals. It carries
// out a block's commands at COMMIT, after it has parsed every line, and
// leaves some refusals to the kernel (status 4), which come after every
// refusal it makes itself. HeldRefusals keeps the first refusal of each
// kind while a block is planned, and gives back the one iptables-nft
// would report: the streaming nf_tables writer holds both kinds, the
// whole-block models hold only the kernel's (their own refusals stop the
// model at once). Header only.
#pragma once

#include <optional>
#include <utility>

#include "fastrestore/diagnostic.h"

namespace fastrestore {

class HeldRefusals {
public:
  // Runs `step`. A refusal left to the kernel (ExitCode::kernel) is kept
  // when it is the first of its kind; any other is kept likewise when
  // `hold_own`, and thrown on otherwise. Returns whether `step` was
  // refused.
  template <class F> bool run(F step, bool hold_own) {
    try {
      step();
    } catch (Error &err) {
      if (err.diag().code != ExitCode::kernel) {
        if (!hold_own)
          throw;
        if (!own_)
          own_ = std::move(err);
      } else if (!kernel_) {
        kernel_ = std::move(err);
      }
      return true;
    }
    return false;
  }

  bool any() const { return own_ || kernel_; }

  // Forgets what was kept and throws the refusal iptables-nft reports:
  // its own first, else the kernel's. Returns when nothing was kept.
  void throw_first() {
    std::optional<Error> first = own_ ? std::move(own_) : std::move(kernel_);
    clear();
    if (first)
      throw std::move(*first);
  }

  void clear() {
    own_.reset();
    kernel_.reset();
  }

private:
  std::optional<Error> own_;    // the first refusal iptables-nft makes
  std::optional<Error> kernel_; // the first it leaves to the kernel
};

} // namespace fastrestore
