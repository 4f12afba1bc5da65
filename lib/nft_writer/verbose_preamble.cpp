// -v of a replaced table (verbose_preamble.h).
#include "verbose_preamble.h"

#include <linux/netfilter/nf_tables.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "check/plan.h"
#include "fastrestore/tables.h"
#include "nft/nft_backend.h"

namespace fastrestore::nft {

// With -v, iptables-nft-restore empties a table instead of deleting it:
// it flushes every chain (naming each), deletes the user chains (naming
// them) and the base chains that accept, and keeps base chains whose
// policy is DROP. The same here, with the same lines on stdout (with
// --incremental the lines only: the block is planned as a replacement).
// True when the lines were all (the block stays --incremental).
bool verbose_preamble(KernelView &view, Batch &batch, const std::string &table,
                      Family family, const Location &loc, bool lines_only,
                      bool &table_ready) {
  // (The chains alone: their names, handles and policies.)
  const KernelTable kt = view.chain_list();
  // A base chain that drops stays (emptied) where a replacement would
  // delete it: such a block is sent as iptables-nft sends it.
  if (lines_only &&
      std::any_of(kt.chains.begin(), kt.chains.end(),
                  [](const KernelChain &c) { return c.base && !c.accept(); }))
    lines_only = false;
  const std::vector<const BuiltinChain *> bases =
      chains_in_hook_order(*find_builtin_table(table, family));
  std::vector<const KernelChain *> users;
  for (const auto &kc : kt.chains)
    if (!kc.base)
      users.push_back(&kc);
  std::sort(users.begin(), users.end(),
            [](const KernelChain *a, const KernelChain *b) {
              return a->name < b->name;
            });
  for (const auto *b : bases)
    printf("Flushing chain `%s'\n", b->name);
  for (const auto *u : users)
    printf("Flushing chain `%s'\n", u->name.c_str());
  for (const auto *u : users)
    printf("Deleting chain `%s'\n", u->name.c_str());
  fflush(stdout);
  if (lines_only)
    return true;
  batch.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, loc);
  table_ready = true;
  for (const auto *b : bases)
    if (kt.find(b->name))
      batch.add_flush(table, b->name, loc);
  for (const auto *u : users)
    batch.add_flush(table, u->name, loc);
  std::vector<Op> ops;
  for (const auto *u : users) {
    Op op{OpKind::chain_delete, loc, {}, {}};
    op.chain.name = u->name;
    op.chain_handle = u->handle;
    ops.push_back(std::move(op));
  }
  for (const auto *b : bases) {
    const KernelChain *kc = kt.find(b->name);
    if (kc == nullptr || !kc->accept())
      continue;
    Op op{OpKind::chain_delete, loc, {}, {}};
    op.chain.name = b->name;
    op.chain_handle = kc->handle;
    ops.push_back(std::move(op));
  }
  for (const auto &op : ops)
    emit_op(batch, op, table, family, loc, table_ready);
  return false;
}

} // namespace fastrestore::nft
