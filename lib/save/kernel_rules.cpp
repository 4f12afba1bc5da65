#include "kernel_rules.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "decode.h"
#include "expr_reader.h"
#include "nft/nft_attrs.h"
#include "nft/nft_dumper.h"

namespace fastrestore::save {
namespace {

uint8_t nfproto(Family f) {
  return f == Family::ipv4   ? NFPROTO_IPV4
         : f == Family::ipv6 ? NFPROTO_IPV6
                             : NFPROTO_BRIDGE;
}

} // namespace

const char *policy_name(const KernelChain &c, bool bridge) {
  if (c.has_policy)
    return c.policy == NF_DROP     ? "DROP"
           : c.policy == NF_ACCEPT ? "ACCEPT"
                                   : nullptr;
  if (c.base)
    return "ACCEPT";
  return bridge ? "RETURN" : nullptr;
}

std::vector<KernelTable>
read_kernel_tables(Family family, const std::vector<std::string> &names) {
  std::vector<KernelTable> out;
  nft::Dumper d(nfproto(family));
  d.dump(NFT_MSG_GETTABLE, "tables", {}, {}, [&](const nlmsghdr *m) {
    KernelTable t;
    t.name = nft::attr_str(m, NFTA_TABLE_NAME);
    t.exists = true;
    if (std::find(names.begin(), names.end(), t.name) != names.end())
      out.push_back(std::move(t));
  });
  d.dump(NFT_MSG_GETCHAIN, "chains", {}, {}, [&](const nlmsghdr *m) {
    std::string table;
    KernelChain c = nft::parse_chain(m, &table);
    for (auto &t : out)
      if (t.name == table) {
        t.chains.push_back(std::move(c));
        break;
      }
  });
  return out;
}

uint32_t ruleset_generation(Family family) {
  nft::Dumper d(nfproto(family));
  return d.generation();
}

TableView table_view(KernelTable *t, const BuiltinTable &bt) {
  TableView v;
  v.name = bt.name;
  KernelChain *slots[NF_INET_NUMHOOKS] = {};
  std::vector<KernelChain *> users;
  if (t != nullptr)
    for (auto &kc : t->chains) {
      KernelChain *c = &kc;
      if (!c->base) {
        users.push_back(c);
        continue;
      }
      const BuiltinChain *bc = nullptr;
      for (int i = 0; i < bt.nchains; ++i)
        if (bt.chains[i].hook == c->hook)
          bc = &bt.chains[i];
      if (bc == nullptr || c->prio != bc->prio || c->name != bc->name ||
          c->type != bc->type || c->hook >= NF_INET_NUMHOOKS ||
          slots[c->hook] != nullptr) {
        v.tainted = true;
        continue;
      }
      slots[c->hook] = c;
    }
  for (int i = 0; i < bt.nchains; ++i) {
    const BuiltinChain &bc = bt.chains[i];
    if (slots[bc.hook] != nullptr)
      continue;
    auto fake = std::make_unique<KernelChain>();
    fake->name = bc.name;
    fake->base = true;
    fake->hook = bc.hook;
    fake->prio = bc.prio;
    fake->type = bc.type;
    fake->has_policy = true;
    fake->policy = NF_ACCEPT;
    slots[bc.hook] = fake.get();
    v.fakes.push_back(std::move(fake));
  }
  for (auto *c : slots)
    if (c != nullptr)
      v.chains.push_back(c);
  std::sort(users.begin(), users.end(),
            [](const KernelChain *a, const KernelChain *b) {
              return std::strcmp(a->name.c_str(), b->name.c_str()) < 0;
            });
  v.chains.insert(v.chains.end(), users.begin(), users.end());
  return v;
}

RuleStream::RuleStream(Family family, std::vector<Job> jobs)
    : jobs_(std::move(jobs)), bufs_(jobs_.size()),
      ready_(new std::atomic<bool>[jobs_.size()]) {
  for (size_t i = 0; i < jobs_.size(); ++i)
    ready_[i].store(false);
  // Two dumping threads: the kernel's work of filling the replies is most
  // of a save, and it runs on the cores of the threads that ask.
  const size_t n = jobs_.size() > 1 ? 2 : 1;
  for (size_t k = 0; k < n; ++k)
    threads_.emplace_back([this, family, k, n] { run(family, k, n); });
}

RuleStream::~RuleStream() {
  stop_.store(true);
  for (auto &t : threads_)
    t.join();
}

void RuleStream::run(Family family, size_t first, size_t step) {
  try {
    nft::Dumper d(nfproto(family));
    for (size_t i = first; i < jobs_.size(); i += step) {
      std::vector<char> buf;
      d.dump_rules(jobs_[i].table, jobs_[i].chain, [&](const nlmsghdr *m) {
        buf.insert(buf.end(), reinterpret_cast<const char *>(m),
                   reinterpret_cast<const char *>(m) + MNL_ALIGN(m->nlmsg_len));
      });
      if (stop_.load())
        return;
      bufs_[i] = std::move(buf);
      ready_[i].store(true);
      // Wake the reader only when it waits for this job.
      if (want_.load() == i) {
        std::lock_guard<std::mutex> lock(mu_);
        cv_.notify_one();
      }
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_)
      error_ = std::current_exception();
    failed_.store(true);
    cv_.notify_one();
  }
}

std::vector<char> RuleStream::take(size_t i) {
  if (!ready_[i].load()) {
    std::unique_lock<std::mutex> lock(mu_);
    want_.store(i);
    cv_.wait(lock, [&] { return ready_[i].load() || failed_.load(); });
    want_.store(SIZE_MAX);
    if (!ready_[i].load())
      std::rethrow_exception(error_);
  }
  return std::move(bufs_[i]);
}

RuleAttrs rule_attrs(const nlmsghdr *m) {
  RuleAttrs r;
  nft::each_top(m, [&](const nlattr *a) {
    if (mnl_attr_get_type(a) == NFTA_RULE_EXPRESSIONS)
      r.expressions = a;
    else if (mnl_attr_get_type(a) == NFTA_RULE_USERDATA)
      r.userdata = a;
  });
  return r;
}

void read_set(const nlmsghdr *m, SetInfo &info) {
  nft::each_top(m, [&](const nlattr *a) {
    switch (mnl_attr_get_type(a)) {
    case NFTA_SET_KEY_LEN:
      info.key_len = ntohl(mnl_attr_get_u32(a));
      break;
    case NFTA_SET_DESC:
      nft::each_nested(a, [&](const nlattr *x) {
        if (mnl_attr_get_type(x) == NFTA_SET_DESC_SIZE)
          info.size = ntohl(mnl_attr_get_u32(x));
      });
      break;
    }
  });
}

void read_set_elements(const nlmsghdr *m, SetInfo &info) {
  nft::each_top(m, [&](const nlattr *a) {
    if (mnl_attr_get_type(a) != NFTA_SET_ELEM_LIST_ELEMENTS)
      return;
    nft::each_nested(a, [&](const nlattr *el) {
      nft::each_nested(el, [&](const nlattr *k) {
        if (mnl_attr_get_type(k) != NFTA_SET_ELEM_KEY)
          return;
        nft::each_nested(k, [&](const nlattr *v) {
          if (mnl_attr_get_type(v) != NFTA_DATA_VALUE)
            return;
          auto *p = static_cast<const uint8_t *>(mnl_attr_get_payload(v));
          info.keys.emplace_back(p, p + mnl_attr_get_payload_len(v));
        });
      });
    });
  });
}

TableSets read_sets(Family family) {
  TableSets out;
  nft::Dumper d(nfproto(family));
  d.dump(NFT_MSG_GETSET, "sets", {}, {}, [&](const nlmsghdr *m) {
    SetInfo info;
    read_set(m, info);
    out[nft::attr_str(m, NFTA_SET_TABLE)][nft::attr_str(m, NFTA_SET_NAME)] =
        std::move(info);
  });
  for (auto &[table, sets] : out)
    for (auto &[name, info] : sets) {
      SetInfo &si = info;
      d.dump(NFT_MSG_GETSETELEM, "set elements", table, name,
             [&](const nlmsghdr *m) { read_set_elements(m, si); });
    }
  return out;
}

void warn_legacy_tables(Family family) {
  if (family == Family::bridge)
    return;
  const bool v4 = family == Family::ipv4;
  FILE *fp = fopen(
      v4 ? "/proc/net/ip_tables_names" : "/proc/net/ip6_tables_names", "r");
  if (fp == nullptr)
    return;
  char buf[1024];
  if (fgets(buf, sizeof(buf), fp) != nullptr) {
    const char *p = v4 ? "ip" : "ip6";
    fprintf(
        stderr,
        "# Warning: %stables-legacy tables present, use %stables-legacy-save "
        "to see them\n",
        p, p);
  }
  fclose(fp);
}

} // namespace fastrestore::save
