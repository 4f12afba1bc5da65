#include "table_delta.h"

#include <arpa/inet.h>
#include <endian.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <algorithm>
#include <unordered_map>

#include "batch_messages.h"
#include "batch_model.h"
#include "fastrestore/process_heap.h"
#include "nft/nft_attrs.h"
#include "nft/nft_backend.h"
#include "nft/nft_dumper.h"
#include "nft/rule_identity.h"
#include "sys/hash64.h"
#include "sys/hash_index.h"

namespace fastrestore::nft {
namespace {

// A rule bound to a set (ebtables' among): the set is the rule's own,
// under a name each load picks anew.
bool uses_set(const std::string &identity) {
  return identity.rfind("lookup ", 0) == 0 ||
         identity.find("\nlookup ") != std::string::npos;
}

} // namespace

uint64_t rule_key(std::string_view message, RuleKey how) {
  if (how == RuleKey::message)
    return message_key(header(message));
  return hash64(rule_identity(message));
}

std::optional<DesiredTable>
desired_table(const Batch &replacement,
              const std::vector<std::string_view> &declared) {
  BatchModel model(replacement, declared);
  bool followed = true;
  replacement.each_message([&](std::string_view m, size_t index) {
    followed = followed && model.apply(m, index);
  });
  if (!followed)
    return std::nullopt;
  std::optional<DesiredTable> out = model.result();
  leave_to_exit(model); // its chains' rule lists (process_heap.h)
  return out;
}

std::optional<DesiredTable>
noflush_table(const Batch &batch, const TableState &kernel,
              const std::vector<UnparsedLine> &known) {
  BatchModel model(batch, kernel, known);
  bool followed = true;
  size_t k = 0; // the next known append
  batch.each_message([&](std::string_view m, size_t index) {
    if (!followed)
      return;
    if (k < known.size()) {
      const int line = batch.location(index).line;
      while (followed && k < known.size() && known[k].line < line)
        followed = model.take_line(k++);
    }
    followed = followed && model.apply(m, index);
  });
  while (followed && k < known.size())
    followed = model.take_line(k++);
  if (!followed)
    return std::nullopt;
  std::optional<DesiredTable> out = model.result();
  leave_to_exit(model); // its chains' rule lists (process_heap.h)
  return out;
}

std::vector<size_t> rule_messages(const Batch &batch) {
  std::vector<size_t> out;
  batch.each_message([&](std::string_view m, size_t i) {
    if (nft_type(m) == NFT_MSG_NEWRULE)
      out.push_back(i);
  });
  return out;
}

std::vector<Allocation> rule_allocations(const std::vector<size_t> &rules,
                                         const std::vector<Allocation> &made) {
  std::vector<bool> rule(rules.empty() ? 0 : rules.back() + 1, false);
  for (size_t i : rules)
    rule[i] = true;
  std::vector<Allocation> out;
  for (const Allocation &a : made)
    if (a.message < rule.size() && rule[a.message])
      out.push_back(a);
  return out;
}

std::unordered_map<std::string, NoflushChain>
noflush_chains(const Batch &batch) {
  std::unordered_map<std::string, NoflushChain> out;
  batch.each_message([&](std::string_view m, size_t) {
    std::string_view chain;
    uint64_t handle = 0;
    uint32_t id = 0;
    switch (nft_type(m)) {
    case NFT_MSG_NEWRULE:
      chain = rule_place(m).chain;
      ++out[std::string(chain)].rules;
      break;
    case NFT_MSG_DELRULE:
      rule_target(m, chain, handle, id);
      if (handle == 0 && id == 0)
        out[std::string(chain)].emptied = true;
      break;
    case NFT_MSG_DELCHAIN: {
      std::string table;
      out[parse_chain(header(m), &table).name].emptied = true;
      break;
    }
    default:
      break;
    }
  });
  return out;
}

std::optional<std::vector<std::string>> batch_chains(const Batch &batch) {
  std::vector<std::string> out;
  bool followed = true;
  batch.each_message([&](std::string_view m, size_t) {
    std::string name;
    switch (nft_type(m)) {
    case NFT_MSG_NEWTABLE:
      return;
    case NFT_MSG_NEWRULE:
      name = rule_place(m).chain;
      break;
    case NFT_MSG_DELRULE: {
      std::string_view chain;
      uint64_t handle = 0;
      uint32_t id = 0;
      rule_target(m, chain, handle, id);
      name = chain;
      break;
    }
    case NFT_MSG_NEWCHAIN:
    case NFT_MSG_DELCHAIN: {
      if (has_attr(m, NFTA_CHAIN_HANDLE))
        followed = false; // a rename (or a chain named by handle)
      std::string table;
      name = parse_chain(header(m), &table).name;
      break;
    }
    default:
      followed = false;
      return;
    }
    if (name.empty())
      followed = false;
    else if (std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(std::move(name));
  });
  if (!followed)
    return std::nullopt;
  return out;
}

std::optional<TableState> kernel_side(const KernelTable &table) {
  TableState out;
  for (const KernelChain &kc : table.chains) {
    StateChain &sc = out.chains.emplace_back(state_chain(kc));
    sc.counters = true;
    sc.packets = kc.packets;
    sc.bytes = kc.bytes;
    for (size_t i = 0; i < kc.messages.size(); ++i) {
      StateRule &r = sc.rules.emplace_back();
      const std::string id =
          rule_identity(kc.messages[i], &r.packets, &r.bytes);
      if (uses_set(id))
        return std::nullopt;
      r.key = hash64(id);
      r.handle = kc.rules[i];
      r.counters = true;
    }
  }
  return out;
}

std::vector<Allocation> write_delta(Batch &out, const Delta &delta,
                                    const DesiredTable &want,
                                    const Batch &replacement,
                                    const TableState &kernel,
                                    const std::string &table, Family family,
                                    const Location &table_loc) {
  out.add_table(NFT_MSG_NEWTABLE, NLM_F_CREATE, table, table_loc);
  bool ready = true;
  std::vector<Allocation> made;
  for (const DeltaOp &op : delta.ops) {
    switch (op.kind) {
    case DeltaKind::chain_flush:
      out.add_flush(table, kernel.chains[op.chain].name, table_loc);
      break;
    case DeltaKind::rule_delete:
      out.add_rule_delete(table, want.state.chains[op.chain].name, op.handle, 0,
                          table_loc);
      break;
    case DeltaKind::chain_delete: {
      Op del{OpKind::chain_delete, table_loc, {}, {}};
      del.chain.name = kernel.chains[op.chain].name;
      emit_op(out, del, table, family, table_loc, ready);
      break;
    }
    case DeltaKind::chain_create:
    case DeltaKind::chain_update: {
      // A base chain's policy as desired: ACCEPT when declared without
      // one, as made; the one declared when the chain's last message
      // (-Z's, which zeroes counters) does not say it.
      const StateChain &c = want.state.chains[op.chain];
      const std::string_view message = want.chain_messages[op.chain];
      out.add_copy(message, NLM_F_CREATE,
                   replacement.location(want.chain_index[op.chain]), "chain",
                   c.name, [&](nlmsghdr *nlh) {
                     if (c.base && !has_attr(message, NFTA_CHAIN_POLICY))
                       mnl_attr_put_u32(
                           nlh, NFTA_CHAIN_POLICY,
                           htonl(c.has_policy ? c.policy : NF_ACCEPT));
                   });
      if (op.kind == DeltaKind::chain_create)
        made.push_back({out.messages() - 1, op.chain, SIZE_MAX});
      break;
    }
    case DeltaKind::rule_append:
    case DeltaKind::rule_insert_before:
    case DeltaKind::rule_replace: {
      const uint16_t flags =
          op.kind == DeltaKind::rule_append    ? NLM_F_CREATE | NLM_F_APPEND
          : op.kind == DeltaKind::rule_replace ? NLM_F_CREATE | NLM_F_REPLACE
                                               : NLM_F_CREATE;
      const RuleSource &source = want.rule_sources[op.chain][op.rule];
      out.add_copy(
          source.message, flags, replacement.location(source.index),
          "rule in chain", want.state.chains[op.chain].name,
          [&](nlmsghdr *nlh) {
            if (op.kind == DeltaKind::rule_insert_before)
              mnl_attr_put_u64(nlh, NFTA_RULE_POSITION, htobe64(op.handle));
            else if (op.kind == DeltaKind::rule_replace)
              mnl_attr_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(op.handle));
          });
      if (op.kind != DeltaKind::rule_replace)
        made.push_back({out.messages() - 1, op.chain, op.rule});
      break;
    }
    }
  }
  return made;
}

} // namespace fastrestore::nft
