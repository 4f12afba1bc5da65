#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstring>
#include <new>

#include "nft/nft_backend.h"
#include "nft/nft_compat.h"

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

void add_chain(Batch &b, uint16_t type, uint16_t flags, const PlannedChain &pc,
               const std::string &table, bool base_attrs, const Location &loc) {
  ChainPtr c = make_chain(pc, table, b.family(), base_attrs);
  b.add_chain(type, flags, c.get(), pc.name, loc);
}

} // namespace

void begin_block(Batch &b, const std::string &table, const Location &loc,
                 bool replace, bool &table_ready) {
  // Creating the table first makes the delete valid whether or not the
  // table existed, without asking the kernel. Either way the table is made
  // (again) only when something goes in it: an empty --noflush block
  // leaves a missing table missing, as iptables-nft-restore does.
  table_ready = false;
  if (!replace)
    return;
  b.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, loc);
  b.add_table(NFT_MSG_DELTABLE, 0, table, loc);
}

void emit_op(Batch &b, const Op &op, const std::string &table, Family family,
             const Location &table_loc, bool &table_ready) {
  // A replaced table is created again only when something goes in it: an
  // empty block deletes the table, as iptables-nft-restore does.
  if (!table_ready) {
    b.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, table_loc);
    table_ready = true;
  }
  const std::string &chain = op.chain.name;
  switch (op.kind) {
  case OpKind::chain_update:
    add_chain(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE, op.chain, table, true, op.loc);
    break;
  case OpKind::chain_create:
    add_chain(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE, op.chain, table, false,
              op.loc);
    break;
  case OpKind::chain_restore:
    add_chain(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE, op.chain, table, false,
              op.loc);
    b.add_flush(table, chain, op.loc);
    break;
  case OpKind::chain_new:
    add_chain(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_EXCL, op.chain, table,
              false, op.loc);
    break;
  case OpKind::chain_delete: {
    ChainPtr c = make_chain(op.chain, table, b.family(), false);
    // By handle when known: a chain renamed earlier in this batch is not
    // found by its new name yet.
    if (op.chain_handle)
      nftnl_chain_set_u64(c.get(), NFTNL_CHAIN_HANDLE, op.chain_handle);
    b.add_chain(NFT_MSG_DELCHAIN, NLM_F_NONREC, c.get(), op.chain.name, op.loc);
    break;
  }
  case OpKind::chain_flush:
    b.add_flush(table, chain, op.loc);
    break;
  case OpKind::rule_append:
    b.add_rule(NLM_F_CREATE | NLM_F_APPEND, op.rule, family, table, chain,
               Placement{0, 0, op.id, 0});
    break;
  case OpKind::rule_insert:
    b.add_rule(NLM_F_CREATE, op.rule, family, table, chain,
               Placement{0, 0, op.id, 0});
    break;
  case OpKind::rule_insert_before:
    // Without NLM_F_APPEND the kernel puts the rule before its position.
    b.add_rule(
        NLM_F_CREATE, op.rule, family, table, chain,
        Placement{0, op.ref.handle, op.id, op.ref.handle ? 0 : op.ref.id});
    break;
  case OpKind::rule_delete:
    b.add_rule_delete(table, chain, op.ref.handle, op.ref.id, op.loc);
    break;
  case OpKind::rule_replace:
    b.add_rule(NLM_F_CREATE | NLM_F_REPLACE, op.rule, family, table, chain,
               Placement{op.ref.handle, 0, op.id, 0});
    break;
  case OpKind::rule_zero: {
    // The rule as the kernel holds it, counters at zero, replacing itself.
    std::unique_ptr<nftnl_rule, void (*)(const nftnl_rule *)> r(
        nftnl_rule_alloc(), nftnl_rule_free);
    if (!r)
      throw std::bad_alloc();
    nftnl_rule_nlmsg_parse(
        reinterpret_cast<const nlmsghdr *>(op.message.data()), r.get());
    // Only a rule with something counted is written again, as iptables-nft
    // does (a rule bound to an anonymous set could not replace itself).
    bool counted = false;
    nftnl_expr_foreach(
        r.get(),
        [](nftnl_expr *e, void *data) {
          if (std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "counter") ==
                  0 &&
              (nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS) != 0 ||
               nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES) != 0)) {
            nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_PACKETS, 0);
            nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_BYTES, 0);
            *static_cast<bool *>(data) = true;
          }
          return 0;
        },
        &counted);
    if (!counted)
      break;
    // The dump lacks the protocol compat expressions are checked with.
    Compat compat =
        rule_compat(reinterpret_cast<const nlmsghdr *>(op.message.data()));
    if (compat.found) {
      nftnl_rule_set_u32(r.get(), NFTNL_RULE_COMPAT_PROTO, compat.proto);
      nftnl_rule_set_u32(r.get(), NFTNL_RULE_COMPAT_FLAGS,
                         compat.inv ? NFT_RULE_COMPAT_F_INV : 0);
    }
    b.add_rule(NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_REPLACE, r.get(), chain,
               op.loc);
    break;
  }
  case OpKind::chain_rename: {
    ChainPtr c(nftnl_chain_alloc());
    if (!c)
      throw std::bad_alloc();
    nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_FAMILY, b.family());
    nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, table.c_str());
    nftnl_chain_set_u64(c.get(), NFTNL_CHAIN_HANDLE, op.chain_handle);
    nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, op.new_name.c_str());
    b.add_chain(NFT_MSG_NEWCHAIN, 0, c.get(), chain, op.loc);
    break;
  }
  }
}

std::unique_ptr<Batch>
build_batch(const Plan &plan, Family family,
            const std::function<void(Batch &)> &before_end, uint32_t id_base) {
  auto batch = std::make_unique<Batch>(family, id_base);
  Batch &b = *batch;
  bool ready = false;
  begin_block(b, plan.table, plan.loc, plan.replace, ready);
  if (plan.replace) {
    for (const auto &pc : plan.chains) {
      Op op{pc.builtin ? OpKind::chain_update : OpKind::chain_create,
            pc.loc,
            {},
            {}};
      op.chain.loc = pc.loc;
      op.chain.name = pc.name;
      op.chain.builtin = pc.builtin;
      op.chain.policy = pc.policy;
      op.chain.counters = pc.counters;
      op.chain.packets = pc.packets;
      op.chain.bytes = pc.bytes;
      emit_op(b, op, plan.table, family, plan.loc, ready);
    }
    for (const auto &pc : plan.chains)
      for (const auto &r : pc.rules)
        b.add_rule(NLM_F_CREATE | NLM_F_APPEND, r, family, plan.table, pc.name);
  } else {
    for (const auto &op : plan.ops)
      emit_op(b, op, plan.table, family, plan.loc, ready);
  }
  if (before_end)
    before_end(b);
  b.finish();
  return batch;
}

} // namespace fastrestore::nft
