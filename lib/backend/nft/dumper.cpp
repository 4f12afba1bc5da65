#include "nft/nft_dumper.h"

#include "dump.h"

#include <arpa/inet.h>

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "fastrestore/diagnostic.h"
#include "nft/nft_attrs.h"

namespace fastrestore::nft {

namespace {

std::string str(const nlattr *a) {
  return std::string(attr_text(a));
}

} // namespace

KernelChain parse_chain(const nlmsghdr *m, std::string *table) {
  KernelChain c;
  each_top(m, [&](const nlattr *a) {
    switch (mnl_attr_get_type(a)) {
    case NFTA_CHAIN_TABLE:
      *table = str(a);
      break;
    case NFTA_CHAIN_NAME:
      c.name = str(a);
      break;
    case NFTA_CHAIN_HANDLE:
      c.handle = attr_be64(a);
      break;
    case NFTA_CHAIN_TYPE:
      c.type = str(a);
      break;
    case NFTA_CHAIN_USE:
      c.use = ntohl(mnl_attr_get_u32(a));
      break;
    case NFTA_CHAIN_POLICY:
      c.has_policy = true;
      c.policy = ntohl(mnl_attr_get_u32(a));
      break;
    case NFTA_CHAIN_HOOK:
      each_nested(a, [&](const nlattr *h) {
        if (mnl_attr_get_type(h) == NFTA_HOOK_HOOKNUM) {
          c.base = true;
          c.hook = ntohl(mnl_attr_get_u32(h));
        } else if (mnl_attr_get_type(h) == NFTA_HOOK_PRIORITY) {
          c.prio = static_cast<int32_t>(ntohl(mnl_attr_get_u32(h)));
        }
      });
      break;
    case NFTA_CHAIN_COUNTERS:
      each_nested(a, [&](const nlattr *x) {
        if (mnl_attr_get_type(x) == NFTA_COUNTER_PACKETS)
          c.packets = attr_be64(x);
        else if (mnl_attr_get_type(x) == NFTA_COUNTER_BYTES)
          c.bytes = attr_be64(x);
      });
      break;
    }
  });
  return c;
}

std::string attr_str(const nlmsghdr *m, uint16_t type) {
  std::string out;
  each_top(m, [&](const nlattr *a) {
    if (out.empty() && mnl_attr_get_type(a) == type)
      out = str(a);
  });
  return out;
}

Dumper::Dumper(uint8_t family)
    : family_(family), seq_(static_cast<uint32_t>(time(nullptr))) {
  nl_ = mnl_socket_open(NETLINK_NETFILTER);
  if (nl_ == nullptr || mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
    Diagnostic d;
    d.message =
        std::string("cannot open a netlink socket: ") + std::strerror(errno);
    d.code = ExitCode::kernel;
    if (nl_ != nullptr)
      mnl_socket_close(nl_);
    throw Error(std::move(d));
  }
}

Dumper::~Dumper() {
  mnl_socket_close(nl_);
}

uint32_t Dumper::generation() {
  return kernel_generation(nl_);
}

// Every reader of a Dumper compares the generation before and after its
// dumps and reads again when it changed, so a dump a commit interrupted
// just ends early here.
void Dumper::run(const nlmsghdr *req, const char *what,
                 const DumpCallback &cb) {
  try {
    run_dump(nl_, req, what, cb);
  } catch (const DumpInterrupted &) {
  }
}

void Dumper::dump(uint16_t type, const char *what, const std::string &table,
                  const std::string &set, const DumpCallback &cb) {
  char req[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(req, type, family_, NLM_F_DUMP, ++seq_);
  if (!table.empty())
    mnl_attr_put_strz(nlh, 1, table.c_str()); // NFTA_*_TABLE is 1
  if (!set.empty())
    mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, set.c_str());
  if (table.empty()) {
    run(nlh, what, cb);
    return;
  }
  // Not every dump honours the table filter (chains come for the whole
  // family): keep only the table's own objects.
  run(nlh, what, [&](const nlmsghdr *m) {
    if (attr_str(m, 1) == table)
      cb(m);
  });
}

void Dumper::dump_rules(const std::string &table, const std::string &chain,
                        const DumpCallback &cb) {
  char req[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr *nlh =
      nftnl_nlmsg_build_hdr(req, NFT_MSG_GETRULE, family_, NLM_F_DUMP, ++seq_);
  mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, table.c_str());
  mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, chain.c_str());
  run(nlh, "rules", cb);
}

} // namespace fastrestore::nft
