// `iptables -L` as iptables-nft 1.8.9 prints it: each chain (base chains
// by hook, made up when the kernel lacks them, then user chains by name)
// with its header and a row a rule, a blank line between chains. A chain's
// references are the kernel's use count less its rules (iptables-nft's
// arithmetic: the count holds both).
#include "fastrestore/ip_list.h"

#include <cstdio>
#include <vector>

#include "fastrestore/tables.h"
#include "kernel_rules.h"
#include "nft/nft_dumper.h"
#include "print/list_print.h"
#include "xtables/plugin_failure.h"
#include "xtables/xtables_setup.h"

namespace fastrestore {
namespace {

std::string incompatible(const IpListOptions &o) {
  return (o.chain.empty() ? "" : "chain `" + o.chain + "' in ") + "table `" +
         o.table + "' is incompatible, use 'nft' tool.";
}

int list(const IpListOptions &o, KernelTable &table, std::string *error) {
  use_xtables(o.family, make_netlink_revision_probe());
  const BuiltinTable *bt = find_builtin_table(o.table, o.family);
  table.name = o.table;
  table.exists = true;
  save::TableView v = save::table_view(&table, *bt);
  std::vector<KernelChain *> chains;
  for (KernelChain *c : v.chains)
    if (o.chain.empty() || c->name == o.chain)
      chains.push_back(c);
  if (!o.chain.empty() && chains.empty()) {
    *error = incompatible(o);
    return 1;
  }
  // Every rule decoded first: one iptables cannot read makes the whole
  // listing an error, printed before anything else.
  std::vector<std::vector<save::SavedRule>> decoded;
  for (const KernelChain *c : chains) {
    decoded.emplace_back();
    for (const std::string &msg : c->messages) {
      // (A message's bytes are on the heap, aligned for its header.)
      const auto *m = reinterpret_cast<const nlmsghdr *>(msg.data());
      save::RuleAttrs a = save::rule_attrs(m);
      decoded.back().push_back(
          save::decode_rule(a.expressions, a.userdata, o.family));
      const save::SavedRule &r = decoded.back().back();
      if (!r.compatible) {
        *error = incompatible(o);
        return 1;
      }
      if (!r.errors.empty()) {
        *error = r.errors.front() + " (Parsing nftables rule failed)";
        return 3;
      }
    }
  }
  if (v.tainted)
    printf("# Table `%s' contains incompatible base-chains, use 'nft' tool "
           "to list them.\n",
           o.table.c_str());
  save::ListFormat f;
  f.verbose = o.verbose;
  f.numeric = o.numeric;
  f.exact = o.exact;
  f.line_numbers = o.line_numbers;
  for (size_t i = 0; i < chains.size(); ++i) {
    const KernelChain *c = chains[i];
    const auto &rules = decoded[i];
    if (o.rule != 0) { // -L CHAIN N: the row alone
      if (o.rule <= rules.size())
        save::print_list_rule(f, o.rule, rules[o.rule - 1], o.family);
      continue;
    }
    if (i > 0)
      printf("\n");
    const char *policy = nullptr;
    if (c->base)
      policy = c->accept() ? "ACCEPT" : "DROP";
    save::print_list_header(f, c->name, policy, c->packets, c->bytes,
                            static_cast<int64_t>(c->use) -
                                static_cast<int64_t>(rules.size()));
    unsigned n = 0;
    for (const auto &r : rules)
      save::print_list_rule(f, ++n, r, o.family);
  }
  return 0;
}

} // namespace

int iptables_list(const IpListOptions &opts, KernelTable &table,
                  std::string *error) {
  try {
    return list(opts, table, error);
  } catch (const PluginFailure &f) {
    fflush(stdout);
    *error = f.message;
    return static_cast<int>(f.status);
  }
}

} // namespace fastrestore
