// Asks nf_tables (NFNL_SUBSYS_NFT_COMPAT) whether the kernel has a revision
// of an x_tables extension, as iptables-nft does, but answers each distinct
// question once per process and reuses one socket.
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include "sys/nfnl_header.h"
#include "xtables/revision_probe.h"

namespace fastrestore {
namespace {

class NetlinkRevisionProbe : public RevisionProbe {
public:
  ~NetlinkRevisionProbe() override {
    if (nl_ != nullptr)
      mnl_socket_close(nl_);
  }

  bool supported(const char *name, uint8_t rev, int opt) override {
    auto key = std::make_tuple(std::string(name), rev, opt);
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    bool ok = ask(name, rev, opt);
    cache_.emplace(key, ok);
    return ok;
  }

private:
  bool ask(const char *name, uint8_t rev, int opt) {
    uint32_t pf = AF_INET, type = 0;
    switch (opt) {
    case IPT_SO_GET_REVISION_MATCH:
      break;
    case IP6T_SO_GET_REVISION_MATCH:
      pf = AF_INET6;
      break;
    case IPT_SO_GET_REVISION_TARGET:
      type = 1;
      break;
    case IP6T_SO_GET_REVISION_TARGET:
      type = 1;
      pf = AF_INET6;
      break;
    default:
      return true;
    }
    if (nl_ == nullptr) {
      nl_ = mnl_socket_open(NETLINK_NETFILTER);
      if (nl_ == nullptr || mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0)
        return fail(name, rev);
    }
    char buf[MNL_SOCKET_BUFFER_SIZE];
    nlmsghdr *nlh = put_nfnl_header(
        buf, (NFNL_SUBSYS_NFT_COMPAT << 8) | NFNL_MSG_COMPAT_GET, NLM_F_ACK,
        ++seq_, pf);
    mnl_attr_put_strz(nlh, NFTA_COMPAT_NAME, name);
    mnl_attr_put_u32(nlh, NFTA_COMPAT_REV, htonl(rev));
    mnl_attr_put_u32(nlh, NFTA_COMPAT_TYPE, htonl(type));
    if (mnl_socket_sendto(nl_, nlh, nlh->nlmsg_len) < 0)
      return fail(name, rev);
    uint32_t portid = mnl_socket_get_portid(nl_);
    int ret;
    do {
      ret = static_cast<int>(mnl_socket_recvfrom(nl_, buf, sizeof(buf)));
      if (ret <= 0)
        return fail(name, rev);
      ret = mnl_cb_run(buf, ret, seq_, portid, nullptr, nullptr);
    } while (ret > 0);
    if (ret < 0)
      return fail(name, rev);
    return true;
  }

  // Same leniency as iptables-nft: without permission assume support (the
  // commit will tell), and let revision 0 through with a warning so the
  // kernel's own error names the missing module.
  bool fail(const char *name, uint8_t rev) {
    if (errno == EPERM)
      return true;
    if (rev == 0) {
      fprintf(stderr,
              "Warning: Extension %s revision 0 not supported, missing "
              "kernel module?\n",
              name);
      return true;
    }
    return false;
  }

  mnl_socket *nl_ = nullptr;
  uint32_t seq_ = 0;
  std::map<std::tuple<std::string, uint8_t, int>, bool> cache_;
};

} // namespace

std::unique_ptr<RevisionProbe> make_netlink_revision_probe() {
  return std::make_unique<NetlinkRevisionProbe>();
}

} // namespace fastrestore
