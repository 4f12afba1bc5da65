// The head of an nfnetlink request of any subsystem (nf_tables, its
// compat part, ipset): libnftnl's nftnl_nlmsg_build_hdr writes nf_tables'
// alone.
#pragma once

#include <cstdint>

struct nlmsghdr;

namespace fastrestore {

// At `buf` (room for the message to follow): the netlink header (`type`,
// the subsystem's id << 8 | the message's; NLM_F_REQUEST | `flags`;
// `seq`) and the nfgenmsg after it (`family`, version 0, `res_id`).
nlmsghdr *put_nfnl_header(char *buf, uint16_t type, uint16_t flags,
                          uint32_t seq, uint8_t family, uint16_t res_id = 0);

} // namespace fastrestore
