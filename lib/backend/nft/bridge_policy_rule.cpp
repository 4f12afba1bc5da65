#include "check/bridge_policy.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstring>
#include <string_view>

#include "nft/nft_attrs.h"

namespace fastrestore::nft {
namespace {

// Whether the user data's TLVs hold the policy marker (type 1 with the
// value 1); a malformed TLV or comment fails the whole parse.
bool marked(const nlattr *udata) {
  const auto *p = reinterpret_cast<const uint8_t *>(attr_data(udata));
  const uint32_t n = attr_len(udata);
  bool marked = false;
  for (uint32_t i = 0; i + 2 <= n; i += 2 + p[i + 1]) {
    const uint8_t type = p[i], len = p[i + 1];
    if (i + 2 + len > n)
      return false;
    if (type == 0 && (len == 0 || p[i + 2 + len - 1] != '\0'))
      return false;
    if (type == 1 && len >= 4) {
      uint32_t v;
      std::memcpy(&v, p + i + 2, 4);
      marked = v == 1;
    }
  }
  return marked;
}

// The verdict code an immediate expression sets, if any.
std::optional<uint32_t> immediate_verdict(const nlattr *elem) {
  std::optional<uint32_t> verdict;
  each_nested(elem, [&](const nlattr *a) {
    if (attr_type(a) != NFTA_EXPR_DATA)
      return;
    each_nested(a, [&](const nlattr *d) {
      if (attr_type(d) != NFTA_IMMEDIATE_DATA)
        return;
      each_nested(d, [&](const nlattr *v) {
        if (attr_type(v) != NFTA_DATA_VERDICT)
          return;
        each_nested(v, [&](const nlattr *x) {
          if (attr_type(x) == NFTA_VERDICT_CODE && attr_len(x) >= 4) {
            uint32_t code;
            std::memcpy(&code, attr_data(x), 4);
            verdict = ntohl(code);
          }
        });
      });
    });
  });
  return verdict;
}

} // namespace

std::optional<uint32_t> eb_policy_verdict(const nlmsghdr *m) {
  const nlattr *udata = nullptr, *exprs = nullptr;
  each_top(m, [&](const nlattr *a) {
    if (attr_type(a) == NFTA_RULE_USERDATA)
      udata = a;
    else if (attr_type(a) == NFTA_RULE_EXPRESSIONS)
      exprs = a;
  });
  if (udata == nullptr || exprs == nullptr || !marked(udata))
    return std::nullopt;
  int index = 0;
  bool ok = false;
  std::optional<uint32_t> verdict;
  each_nested(exprs, [&](const nlattr *elem) {
    if (index == 0)
      ok = expr_name(elem) == "counter";
    else if (index == 1 && ok) {
      ok = false;
      if (expr_name(elem) != "immediate")
        return;
      verdict = immediate_verdict(elem);
      ok = verdict && (*verdict == NF_ACCEPT || *verdict == NF_DROP);
    }
    ++index;
  });
  if (!ok || index < 2)
    return std::nullopt;
  return verdict;
}

} // namespace fastrestore::nft
