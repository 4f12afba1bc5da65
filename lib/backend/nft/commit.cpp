#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>

#include <algorithm>
#include <cstring>

#include "diag/stats.h"
#include "nft/nft_backend.h"

namespace fastrestore::nft {

bool stale_generation(const std::vector<KernelError> &errors) {
  for (const auto &e : errors)
    if (e.error == ERESTART)
      return true;
  return false;
}

namespace {

// What the kernel said of `batch`, sent with `genid`: nothing, or a throw.
void refused(const Batch &batch, std::vector<KernelError> errors,
             const uint32_t *genid) {
  if (errors.empty())
    return;
  if (genid != nullptr && stale_generation(errors))
    throw GenerationChanged();
  throw batch_error(batch, std::move(errors));
}

} // namespace

void commit_batch(const Batch &batch, Transport &transport,
                  const uint32_t *genid) {
  std::vector<KernelError> errors;
  {
    PhaseTimer timer(phase_stats().kernel_s);
    errors = transport.send(batch, genid);
  }
  phase_stats().bytes += batch.size();
  refused(batch, std::move(errors), genid);
}

void check_batch(const Batch &batch, Transport &transport,
                 const uint32_t *genid) {
  // BATCH_END: a netlink header and an nfgenmsg, at the batch's end.
  constexpr size_t kEnd = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg));
  std::vector<iovec> iov = batch.iov();
  std::string begin;
  if (genid != nullptr)
    iov = with_generation(iov, *genid, begin);
  if (iov.back().iov_len == kEnd)
    iov.pop_back();
  else
    iov.back().iov_len -= kEnd;
  size_t size = 0;
  for (const auto &v : iov)
    size += v.iov_len;
  std::vector<KernelError> errors;
  {
    PhaseTimer timer(phase_stats().kernel_s);
    errors = transport.send_raw(iov, size, batch.messages());
  }
  refused(batch, std::move(errors), genid);
}

Error batch_error(const Batch &batch, std::vector<KernelError> errors) {
  std::sort(
      errors.begin(), errors.end(),
      [](const KernelError &a, const KernelError &b) { return a.seq < b.seq; });
  std::vector<uint32_t> seqs;
  seqs.reserve(errors.size());
  for (const auto &e : errors)
    seqs.push_back(e.seq);
  const std::vector<const char *> ops = batch.operations(seqs);
  std::vector<Diagnostic> diags;
  for (size_t i = 0; i < errors.size(); ++i) {
    const KernelError &e = errors[i];
    Diagnostic d;
    d.code = ExitCode::kernel;
    if (e.seq == 0 && e.error == EMSGSIZE) {
      // Not sent at all: nothing to name but the block, and nothing the
      // kernel judged. iptables-nft-restore exits 1 here too.
      std::string what;
      batch.describe(2, d.loc, what);
      d.code = ExitCode::format;
      d.message = "this block's transaction is too large to send (" +
                  e.message +
                  "; without CAP_NET_ADMIN in the initial user namespace "
                  "the buffer cannot grow past net.core.wmem_max): raise "
                  "net.core.wmem_max or split the block into several "
                  "COMMITs; nothing was changed";
      diags.assign(1, d);
      break;
    }
    if (e.error == EPERM) {
      d.message = "permission denied: changing the firewall needs "
                  "CAP_NET_ADMIN (run as root)";
      // (iptables-nft-restore fails at its first read, the generation's.)
      d.frame = Frame::tool;
      d.upstream = "Could not fetch rule set generation id: Permission "
                   "denied (you must be root)";
      diags.assign(1, d);
      break;
    }
    std::string what = "transaction";
    batch.describe(e.seq, d.loc, what);
    d.message = "kernel refused " + what + ": " + std::strerror(e.error);
    if (!e.message.empty())
      d.message += " (" + e.message + ")";
    // iptables-nft's words: "RULE_APPEND failed (Invalid argument): rule
    // in chain INPUT".
    if (ops[i] != nullptr)
      d.upstream = std::string(ops[i]) + " failed (" + std::strerror(e.error) +
                   "): " + what;
    diags.push_back(std::move(d));
  }
  Error err(diags.front());
  for (size_t i = 1; i < diags.size(); ++i)
    err.more().push_back(std::move(diags[i]));
  return err;
}

} // namespace fastrestore::nft
