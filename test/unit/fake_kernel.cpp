#include "fake_kernel.h"

#include <arpa/inet.h> // (before the kernel's headers)
#include <cstdio>      // libnftnl's headers need FILE
#include <endian.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "check/bridge_policy.h"
#include "nft/nft_attrs.h"
#include "nft/nft_dumper.h"

namespace fastrestore::test {
namespace {

using Chain = FakeKernel::Chain;
using Rule = FakeKernel::Rule;
using Table = FakeKernel::Table;

struct RuleFree {
  void operator()(nftnl_rule *r) const { nftnl_rule_free(r); }
};
struct ChainFree {
  void operator()(nftnl_chain *c) const { nftnl_chain_free(c); }
};
using RulePtr = std::unique_ptr<nftnl_rule, RuleFree>;
using ChainPtr = std::unique_ptr<nftnl_chain, ChainFree>;

const char *str_or(const char *s) {
  return s != nullptr ? s : "";
}

// A message as the kernel writes it: header, nfgenmsg, then the object.
std::string message_of(uint16_t type, uint32_t family,
                       const std::function<void(nlmsghdr *)> &payload) {
  std::vector<char> buf(1 << 16);
  nlmsghdr *nlh = nftnl_nlmsg_build_hdr(buf.data(), type, family, 0, 0);
  payload(nlh);
  return std::string(buf.data(), nlh->nlmsg_len);
}

// `a` and what it nests, without NLA_F_NESTED (the kernel writes its
// nests without it).
std::string unflagged(const nlattr *a) {
  std::string out(reinterpret_cast<const char *>(a), NLA_HDRLEN);
  auto *h = reinterpret_cast<nlattr *>(out.data());
  if (!(a->nla_type & NLA_F_NESTED)) {
    out.assign(reinterpret_cast<const char *>(a), NLA_ALIGN(a->nla_len));
    return out;
  }
  h->nla_type &= ~NLA_F_NESTED;
  nft::each_nested(a, [&](const nlattr *in) { out += unflagged(in); });
  h->nla_len = static_cast<uint16_t>(out.size());
  return out;
}

// A rule as the kernel dumps it: table, chain, handle, the handle of the
// rule before it (when there is one), expressions, user data.
std::string dumped_rule(const Rule &r, const std::string &chain,
                        uint32_t family, uint64_t before) {
  const auto *set = reinterpret_cast<const nlmsghdr *>(r.message.data());
  std::string out = message_of(NFT_MSG_NEWRULE, family, [](nlmsghdr *) {});
  auto put = [&](uint16_t type) {
    nft::each_top(set, [&](const nlattr *a) {
      if (mnl_attr_get_type(a) == type)
        out += unflagged(a);
    });
  };
  auto put_u64 = [&](uint16_t type, uint64_t v) {
    char buf[NLA_HDRLEN + 8];
    auto *a = reinterpret_cast<nlattr *>(buf);
    a->nla_len = sizeof(buf);
    a->nla_type = type;
    const uint64_t be = htobe64(v);
    std::memcpy(buf + NLA_HDRLEN, &be, 8);
    out.append(buf, sizeof(buf));
  };
  put(NFTA_RULE_TABLE);
  // (The chain's name now: it may have been renamed.)
  std::vector<char> name(NLA_HDRLEN + NLA_ALIGN(chain.size() + 1), 0);
  auto *a = reinterpret_cast<nlattr *>(name.data());
  a->nla_len = static_cast<uint16_t>(NLA_HDRLEN + chain.size() + 1);
  a->nla_type = NFTA_RULE_CHAIN;
  std::memcpy(name.data() + NLA_HDRLEN, chain.data(), chain.size());
  out.append(name.data(), name.size());
  put_u64(NFTA_RULE_HANDLE, r.handle);
  if (before != 0)
    put_u64(NFTA_RULE_POSITION, before);
  put(NFTA_RULE_EXPRESSIONS);
  put(NFTA_RULE_USERDATA);
  reinterpret_cast<nlmsghdr *>(out.data())->nlmsg_len =
      static_cast<uint32_t>(out.size());
  return out;
}

std::string dumped_chain(const Chain &c, uint32_t family) {
  ChainPtr chain(nftnl_chain_alloc());
  nftnl_chain_nlmsg_parse(reinterpret_cast<const nlmsghdr *>(c.message.data()),
                          chain.get());
  nftnl_chain_set_u64(chain.get(), NFTNL_CHAIN_HANDLE, c.handle);
  nftnl_chain_set_str(chain.get(), NFTNL_CHAIN_NAME, c.name.c_str());
  if (c.has_policy)
    nftnl_chain_set_u32(chain.get(), NFTNL_CHAIN_POLICY, c.policy);
  if (c.counters) {
    nftnl_chain_set_u64(chain.get(), NFTNL_CHAIN_PACKETS, c.packets);
    nftnl_chain_set_u64(chain.get(), NFTNL_CHAIN_BYTES, c.bytes);
  }
  nftnl_chain_set_u32(chain.get(), NFTNL_CHAIN_USE, 0);
  return message_of(NFT_MSG_NEWCHAIN, family, [&](nlmsghdr *nlh) {
    nftnl_chain_nlmsg_build_payload(nlh, chain.get());
  });
}

// One batch applied to a copy of the tables: an errno for the first
// message it refuses.
class Apply {
public:
  Apply(std::map<FakeKernel::Key, Table> &tables,
        std::vector<std::string> &echoes)
      : tables_(tables), echoes_(echoes) {}

  int message(const nlmsghdr *nlh) {
    const auto *g = static_cast<const nfgenmsg *>(mnl_nlmsg_get_payload(nlh));
    family_ = g->nfgen_family;
    switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
    case NFT_MSG_NEWTABLE:
      return new_table(nlh);
    case NFT_MSG_DELTABLE:
      return del_table(nlh);
    case NFT_MSG_NEWCHAIN:
      return new_chain(nlh);
    case NFT_MSG_DELCHAIN:
      return del_chain(nlh);
    case NFT_MSG_NEWRULE:
      return new_rule(nlh);
    case NFT_MSG_DELRULE:
      return del_rule(nlh);
    case NFT_MSG_NEWSET:
      // (A set takes a handle of its table's too.)
      return with_table(nlh, NFTA_SET_TABLE, [](Table &t) {
        ++t.next_handle;
        return 0;
      });
    case NFT_MSG_NEWSETELEM:
      return 0;
    default:
      return EOPNOTSUPP;
    }
  }

private:
  Table *table(const std::string &name) {
    auto it = tables_.find({family_, name});
    return it == tables_.end() ? nullptr : &it->second;
  }

  int with_table(const nlmsghdr *nlh, uint16_t attr,
                 const std::function<int(Table &)> &fn) {
    Table *t = table(nft::attr_str(nlh, attr));
    return t == nullptr ? ENOENT : fn(*t);
  }

  int new_table(const nlmsghdr *nlh) {
    const std::string name = nft::attr_str(nlh, NFTA_TABLE_NAME);
    if (table(name) != nullptr)
      return (nlh->nlmsg_flags & NLM_F_EXCL) ? EEXIST : 0;
    tables_[{family_, name}];
    return 0;
  }

  int del_table(const nlmsghdr *nlh) {
    const std::string name = nft::attr_str(nlh, NFTA_TABLE_NAME);
    return tables_.erase({family_, name}) != 0 ? 0 : ENOENT;
  }

  static Chain *find(Table &t, const std::string &name, uint64_t handle) {
    for (Chain &c : t.chains)
      if (handle != 0 ? c.handle == handle : c.name == name)
        return &c;
    return nullptr;
  }

  // A chain or rule message, parsed: its table (null when the table
  // does not exist), and the chain it names.
  struct ChainMessage {
    ChainPtr c{nftnl_chain_alloc()};
    Table *table = nullptr;
    std::string name;
    uint64_t handle = 0; // 0: none given
  };
  struct RuleMessage {
    RulePtr r{nftnl_rule_alloc()};
    Table *table = nullptr;
    std::string chain;
  };

  // 0, or the errno for a message that does not parse or names no table.
  int parse(const nlmsghdr *nlh, ChainMessage &m) {
    if (nftnl_chain_nlmsg_parse(nlh, m.c.get()) < 0)
      return EINVAL;
    m.table = table(str_or(nftnl_chain_get_str(m.c.get(), NFTNL_CHAIN_TABLE)));
    m.name = str_or(nftnl_chain_get_str(m.c.get(), NFTNL_CHAIN_NAME));
    if (nftnl_chain_is_set(m.c.get(), NFTNL_CHAIN_HANDLE))
      m.handle = nftnl_chain_get_u64(m.c.get(), NFTNL_CHAIN_HANDLE);
    return m.table == nullptr ? ENOENT : 0;
  }
  int parse(const nlmsghdr *nlh, RuleMessage &m) {
    if (nftnl_rule_nlmsg_parse(nlh, m.r.get()) < 0)
      return EINVAL;
    m.table = table(str_or(nftnl_rule_get_str(m.r.get(), NFTNL_RULE_TABLE)));
    m.chain = str_or(nftnl_rule_get_str(m.r.get(), NFTNL_RULE_CHAIN));
    return m.table == nullptr ? ENOENT : 0;
  }

  int new_chain(const nlmsghdr *nlh) {
    ChainMessage m;
    if (const int err = parse(nlh, m))
      return err;
    Table *t = m.table;
    const std::string &name = m.name;
    const uint64_t handle = m.handle;
    nftnl_chain *c = m.c.get();
    Chain *have = find(*t, name, handle);
    if (handle != 0 && have == nullptr)
      return ENOENT;
    if (have != nullptr && handle == 0 && (nlh->nlmsg_flags & NLM_F_EXCL))
      return EEXIST;
    const bool made = have == nullptr;
    if (made) {
      Chain fresh;
      fresh.handle = t->next_handle++;
      fresh.name = name;
      fresh.message.assign(reinterpret_cast<const char *>(nlh), nlh->nlmsg_len);
      t->chains.push_back(std::move(fresh));
      have = &t->chains.back();
    } else if (handle != 0 && have->name != name) {
      if (find(*t, name, 0) != nullptr)
        return EEXIST;
      have->name = name; // renamed
    }
    if (nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY)) {
      have->has_policy = true;
      have->policy = nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY);
    }
    if (nftnl_chain_is_set(c, NFTNL_CHAIN_PACKETS)) {
      have->counters = true;
      have->packets = nftnl_chain_get_u64(c, NFTNL_CHAIN_PACKETS);
      have->bytes = nftnl_chain_get_u64(c, NFTNL_CHAIN_BYTES);
    }
    if (made && (nlh->nlmsg_flags & NLM_F_ECHO))
      echoes_.push_back(dumped_chain(*have, family_));
    return 0;
  }

  int del_chain(const nlmsghdr *nlh) {
    ChainMessage m;
    if (const int err = parse(nlh, m))
      return err;
    Table *t = m.table;
    Chain *have = find(*t, m.name, m.handle);
    if (have == nullptr)
      return ENOENT;
    // (Its rules go with it; the kernel's EBUSY for a chain still jumped
    // to is not modelled.)
    t->chains.erase(t->chains.begin() + (have - t->chains.data()));
    return 0;
  }

  // The index in `c` of the rule with `handle` (c.rules.size(): none).
  static size_t at(const Chain &c, uint64_t handle) {
    for (size_t i = 0; i < c.rules.size(); ++i)
      if (c.rules[i].handle == handle)
        return i;
    return c.rules.size();
  }

  int new_rule(const nlmsghdr *nlh) {
    RuleMessage m;
    if (const int err = parse(nlh, m))
      return err;
    Table *t = m.table;
    nftnl_rule *r = m.r.get();
    Chain *c = find(*t, m.chain, 0);
    if (c == nullptr)
      return ENOENT;
    const uint16_t flags = nlh->nlmsg_flags;
    size_t pos; // insert before this index
    bool replace = false;
    if (flags & NLM_F_REPLACE) {
      pos = at(*c, nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE));
      if (pos == c->rules.size())
        return ENOENT;
      replace = true;
    } else {
      uint64_t ref = 0;
      if (nftnl_rule_is_set(r, NFTNL_RULE_POSITION)) {
        ref = nftnl_rule_get_u64(r, NFTNL_RULE_POSITION);
      } else if (nftnl_rule_is_set(r, NFTNL_RULE_POSITION_ID)) {
        auto id = ids_.find(nftnl_rule_get_u32(r, NFTNL_RULE_POSITION_ID));
        if (id == ids_.end())
          return ENOENT;
        ref = id->second;
      }
      if (ref != 0) {
        pos = at(*c, ref);
        if (pos == c->rules.size())
          return ENOENT;
        if (flags & NLM_F_APPEND)
          ++pos;
      } else {
        pos = (flags & NLM_F_APPEND) ? c->rules.size() : 0;
      }
    }
    // (A replacement keeps the handle of the rule it replaces.)
    Rule made;
    made.handle = replace ? c->rules[pos].handle : t->next_handle++;
    if (nftnl_rule_is_set(r, NFTNL_RULE_ID))
      ids_[nftnl_rule_get_u32(r, NFTNL_RULE_ID)] = made.handle;
    // Kept as set: without what only places it.
    for (uint16_t a : {NFTNL_RULE_HANDLE, NFTNL_RULE_POSITION,
                       NFTNL_RULE_POSITION_ID, NFTNL_RULE_ID})
      nftnl_rule_unset(r, a);
    made.message = message_of(NFT_MSG_NEWRULE, family_, [&](nlmsghdr *out) {
      nftnl_rule_nlmsg_build_payload(out, r);
    });
    if (replace)
      c->rules[pos] = made;
    else
      c->rules.insert(c->rules.begin() + pos, made);
    if (flags & NLM_F_ECHO) {
      const uint64_t before = pos > 0 ? c->rules[pos - 1].handle : 0;
      echoes_.push_back(dumped_rule(made, c->name, family_, before));
    }
    return 0;
  }

  int del_rule(const nlmsghdr *nlh) {
    RuleMessage m;
    if (const int err = parse(nlh, m))
      return err;
    Table *t = m.table;
    nftnl_rule *r = m.r.get();
    const std::string &chain = m.chain;
    if (chain.empty()) { // every chain of the table flushed
      for (Chain &c : t->chains)
        c.rules.clear();
      return 0;
    }
    Chain *c = find(*t, chain, 0);
    if (c == nullptr)
      return ENOENT;
    uint64_t handle = 0;
    if (nftnl_rule_is_set(r, NFTNL_RULE_HANDLE)) {
      handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
    } else if (nftnl_rule_is_set(r, NFTNL_RULE_ID)) {
      auto id = ids_.find(nftnl_rule_get_u32(r, NFTNL_RULE_ID));
      if (id == ids_.end())
        return ENOENT;
      handle = id->second;
    } else { // the chain flushed
      c->rules.clear();
      return 0;
    }
    const size_t i = at(*c, handle);
    if (i == c->rules.size())
      return ENOENT;
    c->rules.erase(c->rules.begin() + i);
    return 0;
  }

  std::map<FakeKernel::Key, Table> &tables_;
  std::vector<std::string> &echoes_;
  std::map<uint32_t, uint64_t> ids_; // NFTA_RULE_ID -> handle
  uint32_t family_ = 0;
};

} // namespace

std::vector<nft::KernelError>
FakeKernel::send_raw(const std::vector<iovec> &iov, size_t, size_t messages) {
  ++batches;
  last_messages = messages;
  std::string bytes;
  for (const auto &v : iov)
    bytes.append(static_cast<const char *>(v.iov_base), v.iov_len);
  echoes.clear();
  std::map<Key, Table> next = tables_;
  std::vector<std::string> echoed;
  Apply apply(next, echoed);
  std::vector<nft::KernelError> errors;
  int left = static_cast<int>(bytes.size());
  for (auto *m = reinterpret_cast<const nlmsghdr *>(bytes.data());
       mnl_nlmsg_ok(m, left); m = mnl_nlmsg_next(m, &left)) {
    if (m->nlmsg_type == NFNL_MSG_BATCH_BEGIN) {
      // A generation carried in BATCH_BEGIN must still be the ruleset's.
      bool stale = false;
      nft::each_top(m, [&](const nlattr *a) {
        stale |= mnl_attr_get_type(a) == NFNL_BATCH_GENID &&
                 ntohl(mnl_attr_get_u32(a)) != genid_;
      });
      if (stale)
        return {{m->nlmsg_seq, ERESTART, ""}};
      continue;
    }
    if (m->nlmsg_type == NFNL_MSG_BATCH_END)
      break;
    if (const int err = apply.message(m); err != 0)
      errors.push_back({m->nlmsg_seq, err, ""});
  }
  if (!errors.empty())
    return errors;
  tables_ = std::move(next);
  echoes = std::move(echoed);
  next_generation();
  return {};
}

KernelTable FakeKernel::read(uint32_t family, const std::string &table,
                             const std::vector<std::string> *only,
                             bool rules) const {
  KernelTable out;
  out.name = table;
  auto it = tables_.find({family, table});
  if (it == tables_.end())
    return out;
  const Table &t = it->second;
  out.exists = true;
  // (The kernel does not count the anonymous sets rules use.)
  out.use = static_cast<uint32_t>(t.chains.size());
  auto add = [&](const Chain &c) {
    const std::string m = dumped_chain(c, family);
    std::string in;
    KernelChain kc =
        nft::parse_chain(reinterpret_cast<const nlmsghdr *>(m.data()), &in);
    if (rules) {
      uint64_t before = 0;
      for (const Rule &r : c.rules) {
        kc.rules.push_back(r.handle);
        kc.messages.push_back(dumped_rule(r, c.name, family, before));
        before = r.handle;
      }
      if (family == NFPROTO_BRIDGE && !kc.messages.empty())
        kc.eb_policy = nft::eb_policy_verdict(
            reinterpret_cast<const nlmsghdr *>(kc.messages.back().data()));
    }
    out.chains.push_back(std::move(kc));
  };
  if (only != nullptr) {
    for (const auto &name : *only)
      for (const Chain &c : t.chains)
        if (c.name == name)
          add(c);
  } else {
    for (const Chain &c : t.chains)
      add(c);
  }
  return out;
}

KernelTable FakeKernel::read_table(uint32_t family, const std::string &table) {
  ++table_reads;
  return read(family, table, nullptr, true);
}

KernelTable FakeKernel::read_chain_list(uint32_t family,
                                        const std::string &table) {
  ++chain_list_reads;
  return read(family, table, nullptr, false);
}

KernelTable FakeKernel::read_chains(uint32_t family, const std::string &table,
                                    const std::vector<std::string> &names,
                                    bool rules) {
  ++chain_reads;
  return read(family, table, &names, rules);
}

bool FakeKernel::chain_exists(uint32_t family, const std::string &table,
                              const std::string &chain) {
  auto it = tables_.find({family, table});
  if (it == tables_.end())
    return false;
  for (const Chain &c : it->second.chains)
    if (c.name == chain)
      return true;
  return false;
}

} // namespace fastrestore::test
