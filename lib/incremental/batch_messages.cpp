#include "batch_messages.h"

#include <linux/netfilter/nf_tables.h>

#include "nft/nft_attrs.h"
#include "nft/rule_identity.h"
#include "sys/hash64.h"
#include "table_delta.h"

namespace fastrestore::nft {
namespace {

// A chain's name, kind and policy (no rules, no counters), between a
// kernel chain and a chain of a TableState, which name them alike.
template <class To, class From> To chain_head(const From &f) {
  To t;
  t.name = f.name;
  t.base = f.base;
  t.hook = f.hook;
  t.prio = f.prio;
  t.type = f.type;
  t.has_policy = f.has_policy;
  t.policy = f.policy;
  return t;
}

} // namespace

StateChain state_chain(const KernelChain &kc) {
  return chain_head<StateChain>(kc);
}

KernelChain kernel_chain(const StateChainHead &h) {
  return chain_head<KernelChain>(h);
}

uint64_t message_key(const nlmsghdr *m) {
  uint64_t h = hash64_seed;
  each_top(m, [&](const nlattr *a) {
    switch (attr_type(a)) {
    case NFTA_RULE_EXPRESSIONS:
      each_nested(a, [&](const nlattr *e) {
        if (expr_name(e) != "counter")
          h = hash64(
              std::string_view(reinterpret_cast<const char *>(e), e->nla_len),
              h);
      });
      break;
    case NFTA_RULE_USERDATA:
    case NFTA_RULE_COMPAT:
      h = hash64(
          std::string_view(reinterpret_cast<const char *>(a), a->nla_len), h);
      break;
    default: // table, chain, handle, position, id: where, not what
      break;
    }
  });
  return h;
}

uint16_t nft_type(std::string_view m) {
  return static_cast<uint16_t>(header(m)->nlmsg_type & 0xff);
}

bool has_attr(std::string_view m, uint16_t type) {
  bool found = false;
  each_top(header(m), [&](const nlattr *a) { found |= attr_type(a) == type; });
  return found;
}

StateRule batch_rule(const Batch &batch, std::string_view m, size_t index) {
  StateRule r;
  r.key = message_key(header(m));
  r.counters = batch.counters_given(index);
  if (r.counters)
    rule_identity(m, &r.packets, &r.bytes);
  return r;
}

namespace {

// A rule message's attributes that say where the rule goes or which rule
// it is.
struct RuleAttrs {
  std::string_view chain;
  uint64_t handle = 0, position = 0;
  uint32_t position_id = 0, id = 0;
};

RuleAttrs rule_attrs(std::string_view m) {
  RuleAttrs r;
  each_top(header(m), [&](const nlattr *a) {
    switch (attr_type(a)) {
    case NFTA_RULE_CHAIN:
      r.chain = attr_text(a);
      break;
    case NFTA_RULE_HANDLE:
      r.handle = attr_be64(a);
      break;
    case NFTA_RULE_POSITION:
      r.position = attr_be64(a);
      break;
    case NFTA_RULE_POSITION_ID:
      r.position_id = attr_be32(a);
      break;
    case NFTA_RULE_ID:
      r.id = attr_be32(a);
      break;
    }
  });
  return r;
}

} // namespace

RulePlace rule_place(std::string_view m) {
  const RuleAttrs r = rule_attrs(m);
  RulePlace p;
  p.chain = r.chain;
  p.position_id = r.position_id;
  p.id = r.id;
  const uint16_t flags = header(m)->nlmsg_flags & ~NLM_F_ECHO;
  const uint16_t create = NLM_F_REQUEST | NLM_F_CREATE;
  const bool placed = r.position != 0 || r.position_id != 0;
  if (flags == (create | NLM_F_REPLACE)) {
    p.at = r.handle != 0 && !placed ? Placing::replace : Placing::other;
    p.handle = r.handle;
  } else if ((flags & ~NLM_F_APPEND) != create || r.handle != 0 ||
             (r.position != 0 && r.position_id != 0)) {
    p.at = Placing::other;
  } else if (placed) {
    p.at = (flags & NLM_F_APPEND) != 0 ? Placing::after : Placing::before;
    p.handle = r.position;
  } else {
    p.at = (flags & NLM_F_APPEND) != 0 ? Placing::append : Placing::head;
  }
  return p;
}

void rule_target(std::string_view m, std::string_view &chain, uint64_t &handle,
                 uint32_t &id) {
  const RuleAttrs r = rule_attrs(m);
  chain = r.chain;
  handle = r.handle;
  id = r.id;
}

} // namespace fastrestore::nft
