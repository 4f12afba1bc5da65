#include "nft/nft_transport.h"

#include "dump.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fastrestore::nft {
namespace {

class NetlinkTransport : public Transport {
public:
  NetlinkTransport() {
    nl_ = mnl_socket_open(NETLINK_NETFILTER);
    if (nl_ == nullptr || mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
      Diagnostic d;
      d.message =
          std::string("cannot open netlink socket: ") + std::strerror(errno);
      d.code = ExitCode::kernel;
      throw Error(std::move(d));
    }
    int on = 1;
    mnl_socket_setsockopt(nl_, NETLINK_CAP_ACK, &on, sizeof(on));
    mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &on, sizeof(on));
  }
  ~NetlinkTransport() override { mnl_socket_close(nl_); }

  KernelTable read_table(uint32_t family, const std::string &table) override {
    return read_kernel_table(nl_, family, table);
  }

  KernelTable read_chain_list(uint32_t family,
                              const std::string &table) override {
    return read_kernel_table(nl_, family, table, nullptr, false);
  }

  KernelTable read_chains(uint32_t family, const std::string &table,
                          const std::vector<std::string> &names,
                          bool rules = true) override {
    return read_kernel_table(nl_, family, table, &names, rules);
  }

  bool chain_exists(uint32_t family, const std::string &table,
                    const std::string &chain) override {
    return kernel_chain_exists(nl_, family, table, chain);
  }

  uint32_t generation() override { return kernel_generation(nl_); }

  std::vector<KernelError> send_raw(const std::vector<iovec> &iov_in,
                                    size_t size, size_t messages) override {
    grow_buffers(size, messages);
    int fd = mnl_socket_get_fd(nl_);
    sockaddr_nl snl{};
    snl.nl_family = AF_NETLINK;
    std::vector<iovec> iov = iov_in;
    msghdr msg{};
    msg.msg_name = &snl;
    msg.msg_namelen = sizeof(snl);
    msg.msg_iov = iov.data();
    msg.msg_iovlen = iov.size();
    std::vector<KernelError> errors;
    echoes.clear();
    ssize_t sent;
    do {
      sent = sendmsg(fd, &msg, 0);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) {
      const int err = errno;
      if (err == EMSGSIZE) {
        // The socket may not send that much at once: its send buffer is
        // capped by net.core.wmem_max unless SO_SNDBUFFORCE was allowed.
        int buf = 0;
        socklen_t len = sizeof(buf);
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, &len);
        errors.push_back({0, err,
                          "the transaction is " + std::to_string(size) +
                              " bytes, the socket's send buffer " +
                              std::to_string(buf) + " bytes"});
        return errors;
      }
      errors.push_back({0, err, "sendmsg failed"});
      return errors;
    }
    // The kernel processes a batch inside sendmsg: every error it has to
    // report is queued by now.
    for (;;) {
      ssize_t n = recv(fd, recv_buf_.get(), kRecvSize, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        if (errno == ENOBUFS)
          errors.push_back({0, ENOBUFS, "too many errors to report"});
        break;
      }
      parse(recv_buf_.get(), static_cast<size_t>(n), errors, echoes);
    }
    return errors;
  }

private:
  void grow_buffers(size_t size, size_t messages) {
    int want = static_cast<int>(std::min<size_t>(size + (1 << 16), 1u << 30));
    if (want > sndbuf_) {
      set_buffer(SO_SNDBUFFORCE, SO_SNDBUF, want);
      sndbuf_ = want;
    }
    // Room for one error per message (each queued error costs about 1 KiB
    // of socket memory).
    int rcv = static_cast<int>(
        std::min<size_t>(messages * 1024 + (1 << 20), 1u << 30));
    if (rcv > rcvbuf_) {
      set_buffer(SO_RCVBUFFORCE, SO_RCVBUF, rcv);
      rcvbuf_ = rcv;
    }
  }

  // The FORCE variant lifts the system limit but needs CAP_NET_ADMIN.
  void set_buffer(int force_opt, int opt, int size) {
    int fd = mnl_socket_get_fd(nl_);
    if (setsockopt(fd, SOL_SOCKET, force_opt, &size, sizeof(size)) < 0)
      setsockopt(fd, SOL_SOCKET, opt, &size, sizeof(size));
  }

  static void parse(const char *buf, size_t len,
                    std::vector<KernelError> &errors,
                    std::vector<std::string> &echoed) {
    auto *nlh = reinterpret_cast<const nlmsghdr *>(buf);
    int rem = static_cast<int>(len);
    for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
      if (nlh->nlmsg_type != NLMSG_ERROR) {
        if (nlh->nlmsg_type != NLMSG_DONE)
          echoed.emplace_back(reinterpret_cast<const char *>(nlh),
                              nlh->nlmsg_len);
        continue;
      }
      auto *err = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(nlh));
      if (err->error == 0)
        continue;
      KernelError ke;
      ke.seq = err->msg.nlmsg_seq;
      ke.error = -err->error;
      if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
        size_t off = sizeof(*err);
        if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
          off += err->msg.nlmsg_len - sizeof(nlmsghdr);
        auto *attr = reinterpret_cast<const nlattr *>(
            static_cast<const char *>(mnl_nlmsg_get_payload(nlh)) + off);
        int alen = static_cast<int>(mnl_nlmsg_get_payload_len(nlh) - off);
        for (; mnl_attr_ok(attr, alen); attr = mnl_attr_next(attr)) {
          if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
            ke.message = mnl_attr_get_str(attr);
        }
      }
      errors.push_back(std::move(ke));
    }
  }

  mnl_socket *nl_ = nullptr;
  int sndbuf_ = 0, rcvbuf_ = 0;
  // Not cleared: only the bytes the kernel writes are touched.
  static constexpr size_t kRecvSize = 1 << 16;
  std::unique_ptr<char[]> recv_buf_{new char[kRecvSize]};
};

} // namespace

std::unique_ptr<Transport> make_netlink_transport() {
  return std::make_unique<NetlinkTransport>();
}

bool RecordingTransport::chain_exists(uint32_t, const std::string &table,
                                      const std::string &chain) {
  for (const auto &[name, t] : tables)
    if (name == table)
      for (const auto &c : t.chains)
        if (c.name == chain)
          return true;
  return false;
}

KernelTable RecordingTransport::read_table(uint32_t, const std::string &table) {
  for (const auto &[name, t] : tables)
    if (name == table)
      return t;
  return {};
}

std::vector<KernelError>
RecordingTransport::send_raw(const std::vector<iovec> &iov, size_t, size_t) {
  std::string bytes;
  for (const auto &v : iov)
    bytes.append(static_cast<const char *>(v.iov_base), v.iov_len);
  sent.push_back(std::move(bytes));
  if (replies.empty())
    return {};
  auto r = std::move(replies.front());
  replies.erase(replies.begin());
  return r;
}

} // namespace fastrestore::nft

namespace fastrestore::nft {

std::vector<KernelError> Transport::send(const Batch &batch,
                                         const uint32_t *genid) {
  if (genid == nullptr)
    return send_raw(batch.iov(), batch.size(), batch.messages());
  std::string begin;
  std::vector<iovec> iov = with_generation(batch.iov(), *genid, begin);
  size_t size = 0;
  for (const auto &v : iov)
    size += v.iov_len;
  return send_raw(iov, size, batch.messages());
}

std::vector<iovec> with_generation(const std::vector<iovec> &iov,
                                   uint32_t genid, std::string &storage) {
  // The batch's own BATCH_BEGIN: a netlink header and an nfgenmsg.
  constexpr size_t kBegin = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg));
  const auto *old = static_cast<const nlmsghdr *>(iov.front().iov_base);
  storage.assign(kBegin + MNL_ATTR_HDRLEN + sizeof(uint32_t), '\0');
  auto *nlh = reinterpret_cast<nlmsghdr *>(storage.data());
  std::memcpy(nlh, old, kBegin);
  nlh->nlmsg_len = static_cast<uint32_t>(kBegin);
  mnl_attr_put_u32(nlh, NFNL_BATCH_GENID, htonl(genid));
  std::vector<iovec> out;
  out.push_back({storage.data(), nlh->nlmsg_len});
  iovec first = iov.front();
  first.iov_base = static_cast<char *>(first.iov_base) + kBegin;
  first.iov_len -= kBegin;
  if (first.iov_len > 0)
    out.push_back(first);
  out.insert(out.end(), iov.begin() + 1, iov.end());
  return out;
}

} // namespace fastrestore::nft
