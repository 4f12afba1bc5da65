#include "coalescer.h"

#include <sys/uio.h>

#include <ostream>

#include "fastrestore/nft_backend.h"
#include "fastrestore/stats.h"
#include "fastrestore/txn_ids.h"

namespace fastrestore {
namespace {

// A group's limits: iovecs (sendmsg takes at most UIO_MAXIOV, 1024; a
// small block's batch is one), blocks (each may use a million transaction
// ids below the next one's base) and bytes.
constexpr size_t kMaxIov = 1000;
constexpr size_t kMaxBlocks = 4000;
constexpr size_t kMaxBytes = 64u << 20;
constexpr uint32_t kIdsPerBlock = 1000000;
// BATCH_BEGIN and BATCH_END: a netlink header and an nfgenmsg each.
constexpr size_t kMarker = 20;

} // namespace

void Coalescer::prepare_ids() {
  set_transaction_id_base(static_cast<uint32_t>(items_.size()) * kIdsPerBlock);
}

void Coalescer::add(std::unique_ptr<nft::Batch> batch, const std::string &table,
                    int first_line, int last_line,
                    std::vector<std::string> lines) {
  const size_t parts = batch->iov().size();
  if (!items_.empty() && iovs_ + parts > kMaxIov)
    flush();
  bytes_ += batch->size();
  iovs_ += parts;
  items_.push_back(
      {std::move(batch), table, first_line, last_line, std::move(lines)});
  if (items_.size() >= kMaxBlocks || bytes_ >= kMaxBytes)
    flush();
}

void Coalescer::report(const Item &item, const char *how) {
  if (verbose_)
    out_ << "fastrestore: coalesce: *" << item.table << " (lines "
         << item.first_line << "-" << item.last_line << "): " << how << "\n"
         << std::flush;
}

void Coalescer::flush() {
  if (items_.empty())
    return;
  std::vector<Item> items = std::move(items_);
  items_.clear();
  bytes_ = 0;
  iovs_ = 0;
  set_transaction_id_base(0);
  bool together = false;
  if (items.size() > 1) {
    // One transaction: the first block's BATCH_BEGIN, every block's
    // messages, the last block's BATCH_END.
    std::vector<iovec> iov;
    size_t size = 0, messages = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      std::vector<iovec> part = items[i].batch->iov();
      if (i > 0) { // drop BATCH_BEGIN
        part.front().iov_base =
            static_cast<char *>(part.front().iov_base) + kMarker;
        part.front().iov_len -= kMarker;
      }
      if (i + 1 < items.size()) // drop BATCH_END
        part.back().iov_len -= kMarker;
      for (const auto &v : part)
        if (v.iov_len > 0) {
          iov.push_back(v);
          size += v.iov_len;
        }
      messages += items[i].batch->messages();
    }
    std::vector<nft::KernelError> errors;
    {
      PhaseTimer timer(phase_stats().kernel_s);
      errors = transport_.send_raw(iov, size, messages);
    }
    phase_stats().bytes += size;
    together = errors.empty();
  }
  if (together) {
    const std::string how = "applied, one of " + std::to_string(items.size()) +
                            " blocks in one transaction";
    for (const auto &item : items)
      report(item, how.c_str());
    return;
  }
  // Alone (one block), or again one by one after the group failed: each
  // block as it would have gone without --coalesce.
  const char *how = items.size() > 1
                        ? "applied alone (its group's transaction failed)"
                        : "applied";
  for (auto &item : items) {
    try {
      nft::commit_batch(*item.batch, transport_);
    } catch (Error &e) {
      report(item, "rejected");
      forget_chains();
      // The block's own lines, for the message's display.
      auto source = [&](Diagnostic &d) {
        if (d.source.empty() && d.loc.line >= item.first_line &&
            d.loc.line - item.first_line < static_cast<int>(item.lines.size()))
          d.source = item.lines[d.loc.line - item.first_line];
      };
      source(e.diag());
      for (auto &d : e.more())
        source(d);
      throw;
    }
    report(item, how);
  }
}

} // namespace fastrestore
