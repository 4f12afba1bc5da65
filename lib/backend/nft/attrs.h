// Walking netlink attributes from C++ (libmnl's mnl_attr_for_each macros
// do not compile there: they assign void pointers), const or mutable.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>

#include <cstddef>
#include <type_traits>

namespace fastrestore::nft {

// Calls fn(attr) for each attribute in [begin, begin + len).
template <class A, class F> void each_attr(A *begin, size_t len, F fn) {
  using Byte = std::conditional_t<std::is_const_v<A>, const char, char>;
  Byte *end = reinterpret_cast<Byte *>(begin) + len;
  for (A *a = begin;
       mnl_attr_ok(a, static_cast<int>(end - reinterpret_cast<Byte *>(a)));
       a = reinterpret_cast<A *>(reinterpret_cast<Byte *>(a) +
                                 MNL_ALIGN(a->nla_len)))
    fn(a);
}

// The attributes nested in `nest` (const or mutable as `nest` is).
template <class A, class F> void each_nested(A *nest, F fn) {
  using Payload = std::conditional_t<std::is_const_v<A>, const nlattr, nlattr>;
  each_attr(static_cast<Payload *>(mnl_attr_get_payload(nest)),
            mnl_attr_get_payload_len(nest), fn);
}

// The attributes of an nf_tables message, after its nfgenmsg.
template <class F> void each_top(const nlmsghdr *m, F fn) {
  each_attr(static_cast<const nlattr *>(
                mnl_nlmsg_get_payload_offset(m, sizeof(nfgenmsg))),
            m->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN(sizeof(nfgenmsg)), fn);
}

} // namespace fastrestore::nft
