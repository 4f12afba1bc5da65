// Reading a table's chains and rule handles from the kernel (a chain
// dump, then a rule dump per chain).
#include <arpa/inet.h>
#include <cstdio> // libnftnl headers need FILE
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <vector>

#include "dump.h"

#include "check/bridge_policy.h"
#include "nft/nft_attrs.h"

namespace fastrestore::nft {
namespace {

int on_message(const nlmsghdr *nlh, void *data) {
  (*static_cast<const DumpCallback *>(data))(nlh);
  return MNL_CB_OK;
}

[[noreturn]] void fail(const char *what) {
  Diagnostic d;
  d.code = ExitCode::kernel;
  if (errno == EPERM || errno == EACCES) {
    d.message = "permission denied: reading the firewall needs "
                "CAP_NET_ADMIN (run as root)";
    // (iptables-nft's first read is the generation's.)
    d.frame = Frame::tool;
    d.upstream = "Could not fetch rule set generation id: Permission denied "
                 "(you must be root)";
  } else {
    d.message = std::string("cannot read the kernel's ") + what + ": " +
                std::strerror(errno);
  }
  throw Error(std::move(d));
}

} // namespace

bool run_dump(mnl_socket *nl, const nlmsghdr *req, const char *what,
              const DumpCallback &cb) {
  if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
    fail(what);
  // Reused and never cleared: only the bytes the kernel writes are touched.
  static thread_local std::unique_ptr<char[]> buf(new char[1 << 20]);
  const size_t size = 1 << 20;
  uint32_t portid = mnl_socket_get_portid(nl);
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(nl, buf.get(), size);
    if (n < 0)
      fail(what);
    int ret = mnl_cb_run(buf.get(), static_cast<size_t>(n), req->nlmsg_seq,
                         portid, on_message, const_cast<DumpCallback *>(&cb));
    if (ret == MNL_CB_STOP)
      return true;
    if (ret < 0) {
      if (errno == ENOENT)
        return false;
      if (errno == EINTR) { // a commit changed the ruleset mid-dump
        if (!ends_answer(buf.get(), static_cast<size_t>(n)))
          drain(nl, buf.get(), size);
        throw DumpInterrupted();
      }
      fail(what);
    }
  }
}

bool ends_answer(const char *buf, size_t len) {
  int left = static_cast<int>(len);
  for (auto *m = reinterpret_cast<const nlmsghdr *>(buf); mnl_nlmsg_ok(m, left);
       m = mnl_nlmsg_next(m, &left))
    if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR)
      return true;
  return false;
}

void drain(mnl_socket *nl, char *buf, size_t size) {
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(nl, buf, size);
    if (n <= 0 || ends_answer(buf, static_cast<size_t>(n)))
      return;
  }
}

KernelTable read_kernel_table(mnl_socket *nl, uint32_t family,
                              const std::string &table,
                              const std::vector<std::string> *only,
                              bool rules) {
  // A dump another commit interrupts is read again, as iptables-nft does.
  for (int attempt = 1;; ++attempt) {
    try {
      return read_kernel_table_once(nl, family, table, only, rules);
    } catch (const DumpInterrupted &) {
      if (attempt == 100) {
        errno = EINTR;
        fail("rules (the ruleset kept changing)");
      }
    }
  }
}

namespace {

// The table's own count of what it holds (chains, sets, stateful objects
// and flowtables) into out.use; false when the table does not exist.
bool read_table_use(mnl_socket *nl, uint32_t family, const std::string &table,
                    uint32_t seq, KernelTable &out) {
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETTABLE, family,
                                        NLM_F_ACK, seq);
  mnl_attr_put_strz(nlh, NFTA_TABLE_NAME, table.c_str());
  return run_dump(nl, nlh, "table", [&](const nlmsghdr *m) {
    nft::each_top(m, [&](const nlattr *a) {
      if (mnl_attr_get_type(a) == NFTA_TABLE_USE)
        out.use = ntohl(mnl_attr_get_u32(a));
    });
  });
}

// One chain's rules, in order, into kc (one rule dump: the kernel resumes
// a dump by walking again from the first rule it covers, so one dump of
// the whole table costs time quadratic in all its rules, one per chain
// only in each chain's).
void read_chain_rules(mnl_socket *nl, uint32_t family, const std::string &table,
                      uint32_t seq, KernelChain &kc) {
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETRULE, family,
                                        NLM_F_DUMP, seq);
  nftnl_rule *r = nftnl_rule_alloc();
  nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, kc.name.c_str());
  nftnl_rule_nlmsg_build_payload(nlh, r);
  nftnl_rule_free(r);
  run_dump(nl, nlh, "rules", [&](const nlmsghdr *m) {
    nftnl_rule *rr = nftnl_rule_alloc();
    if (nftnl_rule_nlmsg_parse(m, rr) == 0 &&
        table == nftnl_rule_get_str(rr, NFTNL_RULE_TABLE) &&
        kc.name == nftnl_rule_get_str(rr, NFTNL_RULE_CHAIN)) {
      kc.rules.push_back(nftnl_rule_get_u64(rr, NFTNL_RULE_HANDLE));
      kc.messages.emplace_back(reinterpret_cast<const char *>(m), m->nlmsg_len);
    }
    nftnl_rule_free(rr);
  });
  if (family == NFPROTO_BRIDGE && !kc.messages.empty())
    kc.eb_policy = eb_policy_verdict(
        reinterpret_cast<const nlmsghdr *>(kc.messages.back().data()));
}

// The chain `name` of `table` (one GETCHAIN), if it exists.
std::optional<KernelChain> read_one_chain(mnl_socket *nl, uint32_t family,
                                          const std::string &table,
                                          const std::string &name,
                                          uint32_t seq) {
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETCHAIN, family,
                                        NLM_F_ACK, seq);
  nftnl_chain *c = nftnl_chain_alloc();
  nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name.c_str());
  nftnl_chain_nlmsg_build_payload(nlh, c);
  nftnl_chain_free(c);
  std::optional<KernelChain> out;
  run_dump(nl, nlh, "chain", [&](const nlmsghdr *m) {
    std::string in;
    if (NFNL_MSG_TYPE(m->nlmsg_type) == NFT_MSG_NEWCHAIN)
      out = parse_chain(m, &in);
  });
  return out;
}

} // namespace

KernelTable read_kernel_table_once(mnl_socket *nl, uint32_t family,
                                   const std::string &table,
                                   const std::vector<std::string> *only,
                                   bool rules) {
  KernelTable out;
  out.name = table;
  uint32_t seq = static_cast<uint32_t>(time(nullptr));
  // (A chain dump of a table that does not exist is merely empty.)
  out.exists = read_table_use(nl, family, table, seq, out);
  if (!out.exists)
    return out;
  if (only != nullptr) {
    for (const auto &name : *only)
      if (auto kc = read_one_chain(nl, family, table, name, ++seq)) {
        if (rules)
          read_chain_rules(nl, family, table, ++seq, *kc);
        out.chains.push_back(std::move(*kc));
      }
    return out;
  }
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETCHAIN, family,
                                        NLM_F_DUMP, ++seq);
  nftnl_chain *c = nftnl_chain_alloc();
  nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_nlmsg_build_payload(nlh, c);
  nftnl_chain_free(c);
  run_dump(nl, nlh, "chains", [&](const nlmsghdr *m) {
    std::string in;
    KernelChain kc = parse_chain(m, &in);
    if (in == table)
      out.chains.push_back(std::move(kc));
  });
  if (rules)
    for (auto &kc : out.chains)
      read_chain_rules(nl, family, table, ++seq, kc);
  return out;
}

uint32_t kernel_generation(mnl_socket *nl) {
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETGEN, AF_UNSPEC, NLM_F_ACK,
                            static_cast<uint32_t>(time(nullptr)));
  uint32_t id = 0;
  run_dump(nl, nlh, "generation", [&](const nlmsghdr *m) {
    if (NFNL_MSG_TYPE(m->nlmsg_type) != NFT_MSG_NEWGEN)
      return;
    each_top(m, [&](const nlattr *a) {
      if (attr_type(a) == NFTA_GEN_ID && attr_len(a) >= sizeof(uint32_t))
        id = ntohl(mnl_attr_get_u32(a));
    });
  });
  return id;
}

bool kernel_chain_exists(mnl_socket *nl, uint32_t family,
                         const std::string &table, const std::string &chain) {
  std::vector<char> req(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(req.data(), NFT_MSG_GETCHAIN, family, NLM_F_ACK,
                            static_cast<uint32_t>(time(nullptr)));
  nftnl_chain *c = nftnl_chain_alloc();
  nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, chain.c_str());
  nftnl_chain_nlmsg_build_payload(nlh, c);
  nftnl_chain_free(c);
  return run_dump(nl, nlh, "chain", [](const nlmsghdr *) {});
}

} // namespace fastrestore::nft
