#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/chain.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <new>

#include "fastrestore/nft_backend.h"
#include "fastrestore/nft_rule.h"

namespace fastrestore::nft {
namespace {

struct ChainDeleter {
  void operator()(nftnl_chain *c) const { nftnl_chain_free(c); }
};
using ChainPtr = std::unique_ptr<nftnl_chain, ChainDeleter>;

ChainPtr make_chain(const PlannedChain &pc, const std::string &table,
                    uint32_t family, bool base_attrs) {
  ChainPtr c(nftnl_chain_alloc());
  if (!c)
    throw std::bad_alloc();
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_FAMILY, family);
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, pc.name.c_str());
  if (pc.builtin != nullptr && base_attrs) {
    nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_HOOKNUM, pc.builtin->hook);
    nftnl_chain_set_s32(c.get(), NFTNL_CHAIN_PRIO, pc.builtin->prio);
    nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TYPE, pc.builtin->type);
    if (pc.policy)
      nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_POLICY, *pc.policy);
    if (pc.counters) {
      nftnl_chain_set_u64(c.get(), NFTNL_CHAIN_PACKETS, pc.packets);
      nftnl_chain_set_u64(c.get(), NFTNL_CHAIN_BYTES, pc.bytes);
    }
  }
  return c;
}

std::string rule_what(const std::string &chain) {
  return "rule in chain " + chain;
}

void add_rule(Batch &b, uint16_t flags, const Rule &r, Family family,
              const std::string &table, const std::string &chain) {
  RulePtr nr = lower_rule(r, family, table, chain);
  b.add_rule(NFT_MSG_NEWRULE, flags, nr.get(), r.loc, rule_what(chain));
}

void add_flush(Batch &b, const std::string &table, const std::string &chain,
               uint32_t family, const Location &loc) {
  RulePtr r(nftnl_rule_alloc());
  if (!r)
    throw std::bad_alloc();
  nftnl_rule_set_u32(r.get(), NFTNL_RULE_FAMILY, family);
  nftnl_rule_set_str(r.get(), NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_CHAIN, chain.c_str());
  b.add_rule(NFT_MSG_DELRULE, 0, r.get(), loc, "flush of chain " + chain);
}

} // namespace

std::unique_ptr<Batch> build_batch(const Plan &plan, Family family) {
  auto batch = std::make_unique<Batch>(family);
  Batch &b = *batch;
  const uint32_t fam = b.family();
  const std::string &table = plan.table;
  const Location table_loc = plan.loc;

  // Creating the table first makes the delete below valid whether or not
  // the table existed, without asking the kernel.
  b.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, table_loc);
  if (plan.replace) {
    // An empty block deletes the table, as iptables-nft-restore does.
    b.add_table(NFT_MSG_DELTABLE, 0, table, table_loc);
    if (!plan.chains.empty())
      b.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, table_loc);
    for (const auto &pc : plan.chains) {
      ChainPtr c = make_chain(pc, table, fam, true);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), pc.loc,
                  "chain " + pc.name);
    }
    for (const auto &pc : plan.chains)
      for (const auto &r : pc.rules)
        add_rule(b, NLM_F_CREATE | NLM_F_APPEND, r, family, table, pc.name);
    b.finish();
    return batch;
  }

  for (const auto &op : plan.ops) {
    const std::string &chain = op.chain.name;
    switch (op.kind) {
    case OpKind::chain_update: {
      ChainPtr c = make_chain(op.chain, table, fam, true);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), op.loc,
                  "chain " + chain);
      break;
    }
    case OpKind::chain_restore: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), op.loc,
                  "chain " + chain);
      add_flush(b, table, chain, fam, op.loc);
      break;
    }
    case OpKind::chain_new: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_EXCL, c.get(), op.loc,
                  "chain " + chain);
      break;
    }
    case OpKind::chain_delete: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_DELCHAIN, NLM_F_NONREC, c.get(), op.loc,
                  "chain " + chain);
      break;
    }
    case OpKind::chain_flush:
      add_flush(b, table, chain, fam, op.loc);
      break;
    case OpKind::rule_append:
      add_rule(b, NLM_F_CREATE | NLM_F_APPEND, op.rule, family, table, chain);
      break;
    case OpKind::rule_insert:
      add_rule(b, NLM_F_CREATE, op.rule, family, table, chain);
      break;
    }
  }
  b.finish();
  return batch;
}

} // namespace fastrestore::nft
