#include "sys/nfnl_header.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>

namespace fastrestore {

nlmsghdr *put_nfnl_header(char *buf, uint16_t type, uint16_t flags,
                          uint32_t seq, uint8_t family, uint16_t res_id) {
  nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  nlh->nlmsg_seq = seq;
  auto *nfg = static_cast<nfgenmsg *>(
      mnl_nlmsg_put_extra_header(nlh, sizeof(nfgenmsg)));
  nfg->nfgen_family = family;
  nfg->version = NFNETLINK_V0;
  nfg->res_id = htons(res_id);
  return nlh;
}

} // namespace fastrestore
