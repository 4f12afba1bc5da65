#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/chain.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <new>

#include "fastrestore/nft_backend.h"
#include <libnftnl/rule.h>

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

void add_rule(Batch &b, uint16_t flags, const Rule &r, Family family,
              const std::string &table, const std::string &chain) {
  b.add_rule(flags, r, family, table, chain);
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
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), pc.name, pc.loc);
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
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), chain, op.loc);
      break;
    }
    case OpKind::chain_restore: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE, c.get(), chain, op.loc);
      b.add_flush(table, chain, op.loc);
      break;
    }
    case OpKind::chain_new: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_EXCL, c.get(), chain,
                  op.loc);
      break;
    }
    case OpKind::chain_delete: {
      ChainPtr c = make_chain(op.chain, table, fam, false);
      b.add_chain(NFT_MSG_DELCHAIN, NLM_F_NONREC, c.get(), chain, op.loc);
      break;
    }
    case OpKind::chain_flush:
      b.add_flush(table, chain, op.loc);
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
