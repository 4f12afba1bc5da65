// Walking netlink attributes from C++ (libmnl's mnl_attr_for_each macros
// do not compile there: they assign void pointers), const or mutable.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>

#include <endian.h>
#include <linux/netfilter/nf_tables.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace fastrestore::nft {

// Calls fn(attr) for each attribute in [begin, begin + len).
template <class A, class F> void each_attr(A *begin, size_t len, F fn) {
  using Byte = std::conditional_t<std::is_const_v<A>, const char, char>;
  Byte *end = reinterpret_cast<Byte *>(begin) + len;
  // mnl_attr_ok, inline: a whole header, a length within what is left.
  for (A *a = begin;; a = reinterpret_cast<A *>(reinterpret_cast<Byte *>(a) +
                                                MNL_ALIGN(a->nla_len))) {
    const long left = end - reinterpret_cast<Byte *>(a);
    if (left < static_cast<long>(sizeof(nlattr)) ||
        a->nla_len < sizeof(nlattr) || a->nla_len > left)
      return;
    fn(a);
  }
}

// An attribute's type without its flags (mnl_attr_get_type, inline).
inline uint16_t attr_type(const nlattr *a) {
  return a->nla_type & NLA_TYPE_MASK;
}
inline uint16_t attr_len(const nlattr *a) {
  return static_cast<uint16_t>(a->nla_len - MNL_ATTR_HDRLEN);
}
template <class A> auto *attr_data(A *a) {
  using Byte = std::conditional_t<std::is_const_v<A>, const char, char>;
  return reinterpret_cast<Byte *>(a) + MNL_ATTR_HDRLEN;
}

// A string attribute's text, up to its terminating NUL (as libnftnl reads
// it).
inline std::string_view attr_text(const nlattr *a) {
  const char *p = attr_data(a);
  return std::string_view(p, strnlen(p, attr_len(a)));
}

// A big-endian unsigned attribute of type U (uint64_t: handles,
// counters; uint32_t: transaction ids); 0 when shorter.
template <class U> U attr_be(const nlattr *a) {
  static_assert(sizeof(U) == 4 || sizeof(U) == 8);
  U v = 0;
  if (attr_len(a) < sizeof(v))
    return 0;
  std::memcpy(&v, attr_data(a), sizeof(v));
  if constexpr (sizeof(U) == 8)
    return be64toh(v);
  else
    return be32toh(v);
}
inline uint64_t attr_be64(const nlattr *a) {
  return attr_be<uint64_t>(a);
}
inline uint32_t attr_be32(const nlattr *a) {
  return attr_be<uint32_t>(a);
}

// The attributes nested in `nest` (const or mutable as `nest` is).
template <class A, class F> void each_nested(A *nest, F fn) {
  using Payload = std::conditional_t<std::is_const_v<A>, const nlattr, nlattr>;
  each_attr(reinterpret_cast<Payload *>(attr_data(nest)), attr_len(nest), fn);
}

// The attributes of an nf_tables message, after its nfgenmsg.
template <class F> void each_top(const nlmsghdr *m, F fn) {
  if (m->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg)))
    return;
  each_attr(static_cast<const nlattr *>(
                mnl_nlmsg_get_payload_offset(m, sizeof(nfgenmsg))),
            m->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN(sizeof(nfgenmsg)), fn);
}

// The name of an expression (an element of NFTA_RULE_EXPRESSIONS).
inline std::string_view expr_name(const nlattr *elem) {
  std::string_view name;
  each_nested(elem, [&](const nlattr *a) {
    if (attr_type(a) == NFTA_EXPR_NAME)
      name = attr_text(a);
  });
  return name;
}

} // namespace fastrestore::nft
