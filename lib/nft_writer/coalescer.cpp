#include "coalescer.h"

#include <sys/uio.h>

#include <ostream>

#include "diag/stats.h"
#include "nft/nft_backend.h"

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

uint32_t Coalescer::id_base() const {
  return static_cast<uint32_t>(items_.size()) * kIdsPerBlock;
}

bool Coalescer::pending_table(const std::string &table) const {
  for (const auto &item : items_)
    if (item.table == table)
      return true;
  return false;
}

void Coalescer::add(std::unique_ptr<nft::Batch> batch, const std::string &table,
                    int first_line, int last_line,
                    std::vector<std::string> lines) {
  if (hold_all_) {
    if (items_.size() >= kMaxBlocks) {
      Diagnostic d;
      d.loc.line = first_line;
      d.message = "--all-or-nothing takes at most " +
                  std::to_string(kMaxBlocks) +
                  " blocks (COMMITs) in one input; nothing was changed";
      d.code = ExitCode::parameter;
      throw Error(std::move(d));
    }
    batch->compact();
    items_.push_back(
        {std::move(batch), table, first_line, last_line, std::move(lines)});
    return;
  }
  // A held block keeps only its messages' bytes: a stream of one-rule
  // blocks held together costs what they say, not their batches' room.
  batch->compact();
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

// The block's own lines, for the display of each message naming one.
void Coalescer::show_lines(const Item &item, Error &e) {
  auto source = [&](Diagnostic &d) {
    if (d.source.empty() && d.loc.line >= item.first_line &&
        d.loc.line - item.first_line < static_cast<int>(item.lines.size()))
      d.source = item.lines[d.loc.line - item.first_line];
  };
  source(e.diag());
  for (auto &d : e.more())
    source(d);
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
  if (hold_all_) {
    commit_all(items);
    return;
  }
  bool together = false;
  if (items.size() > 1) {
    size_t size, messages;
    std::string storage;
    std::vector<iovec> iov =
        merge(items, items.size(), true, size, messages, storage);
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
      show_lines(item, e);
      throw;
    }
    report(item, how);
  }
}

std::vector<iovec> Coalescer::merge(const std::vector<Item> &items, size_t n,
                                    bool end, size_t &size, size_t &messages,
                                    std::string &storage) const {
  // The first block's BATCH_BEGIN, every block's messages, the last
  // block's BATCH_END (none when !end: a batch the kernel only checks).
  std::vector<iovec> iov;
  size = 0;
  messages = 0;
  for (size_t i = 0; i < n; ++i) {
    std::vector<iovec> part = items[i].batch->iov();
    if (i > 0) { // drop BATCH_BEGIN
      part.front().iov_base =
          static_cast<char *>(part.front().iov_base) + kMarker;
      part.front().iov_len -= kMarker;
    }
    if (i + 1 < n || !end) // drop BATCH_END
      part.back().iov_len -= kMarker;
    for (const auto &v : part)
      if (v.iov_len > 0) {
        iov.push_back(v);
        size += v.iov_len;
      }
    messages += items[i].batch->messages();
  }
  if (iov.size() > kMaxIov) { // more pieces than one sendmsg takes
    storage.clear();
    storage.reserve(size);
    for (const auto &v : iov)
      storage.append(static_cast<const char *>(v.iov_base), v.iov_len);
    iov.assign(1, iovec{storage.data(), storage.size()});
  }
  return iov;
}

void Coalescer::commit_all(std::vector<Item> &items) {
  size_t size, messages;
  std::string storage, begin;
  std::vector<iovec> iov =
      merge(items, items.size(), true, size, messages, storage);
  if (genid_) {
    iov = nft::with_generation(iov, *genid_, begin);
    size = 0;
    for (const auto &v : iov)
      size += v.iov_len;
  }
  std::vector<nft::KernelError> errors;
  {
    PhaseTimer timer(phase_stats().kernel_s);
    errors = transport_.send_raw(iov, size, messages);
  }
  phase_stats().bytes += size;
  if (genid_ && nft::stale_generation(errors)) {
    Diagnostic d;
    d.loc.line = items.front().first_line;
    d.message = "another program changed the kernel's rules while this "
                "input was read (--all-or-nothing plans every block from "
                "what it read); nothing was changed, run it again";
    d.code = ExitCode::kernel;
    throw Error(std::move(d));
  }
  if (errors.empty()) {
    const std::string how = "applied, one of " + std::to_string(items.size()) +
                            " blocks in one transaction";
    for (const auto &item : items)
      report(item, how.c_str());
    return;
  }
  const auto refused = [&](size_t n) {
    std::string copy;
    size_t sz, msgs;
    auto part = merge(items, n, false, sz, msgs, copy);
    return transport_.send_raw(part, sz, msgs);
  };
  // The shortest prefix of blocks the kernel refuses ends with the
  // failing block (bisecting: a prefix that fails stays failing as blocks
  // are added).
  size_t lo = 0, hi = items.size(); // prefix lo passes, prefix hi fails
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (refused(mid).empty())
      lo = mid;
    else
      hi = mid;
  }
  // That block's own errors (its messages' sequence numbers); the commit's
  // when the check finds nothing.
  std::vector<nft::KernelError> found = refused(hi);
  if (found.empty())
    found = std::move(errors);
  Item &item = items[hi - 1];
  Error e = nft::batch_error(*item.batch, std::move(found));
  show_lines(item, e);
  auto note = [](Diagnostic &d) {
    if (d.code == ExitCode::kernel)
      d.message += "; nothing was changed (--all-or-nothing)";
  };
  note(e.diag());
  for (auto &d : e.more())
    note(d);
  for (size_t i = 0; i < items.size(); ++i)
    report(items[i], i + 1 == hi ? "rejected" : "not applied");
  throw e;
}

void Coalescer::note_op(Family family, const std::string &table, const Op &op) {
  switch (op.kind) {
  case OpKind::chain_update:
  case OpKind::chain_create:
  case OpKind::chain_restore:
  case OpKind::chain_new:
    note_chain(family, table, op.chain.name);
    break;
  case OpKind::chain_delete:
  case OpKind::chain_rename:
    forget_chains();
    doubtful_.insert(table);
    break;
  default:
    break;
  }
}

} // namespace fastrestore
