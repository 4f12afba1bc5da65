// `ebtables -L` as ebtables-nft 1.8.9 prints it: "Bridge table:", then
// per chain (base chains by hook, user chains by name) a header with the
// number of rules and the policy (a user chain's reads RETURN), and each
// rule in ebtables' own form. The same reading as the text save, from the
// kernel (an atomic file is committed into a private network namespace and
// listed from there: see tools/ebtables_cli.cpp).
#include "fastrestore/eb_list.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "check/bridge_policy.h"
#include "fastrestore/diagnostic.h"
#include "fastrestore/tables.h"
#include "kernel_rules.h"
#include "nft/nft_attrs.h"
#include "nft/nft_dumper.h"
#include "print/save_print.h"
#include "xtables/plugin_failure.h"
#include "xtables/xtables_setup.h"

namespace fastrestore {
namespace {

// A table as listed: its chains and each chain's rule messages.
struct Listing {
  KernelTable table;
  std::map<const KernelChain *, std::vector<const nlmsghdr *>> rules;
  save::TableSets sets;
  std::vector<std::vector<char>> bufs; // owns kernel messages
  bool found = false;
};

void read_kernel(const EbListOptions &opts, Listing &l) {
  std::vector<KernelTable> tables =
      save::read_kernel_tables(Family::bridge, {opts.table});
  if (!tables.empty()) {
    l.table = std::move(tables.front());
    l.found = true;
  }
  std::vector<save::RuleStream::Job> jobs;
  for (auto &c : l.table.chains)
    jobs.push_back({opts.table, c.name});
  save::RuleStream stream(Family::bridge, jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    l.bufs.push_back(stream.take(i));
    auto &rules = l.rules[&l.table.chains[i]];
    save::each_message(l.bufs.back(),
                       [&](const nlmsghdr *m) { rules.push_back(m); });
  }
  l.sets = save::read_sets(Family::bridge);
}

} // namespace

namespace {

int list(const EbListOptions &opts) {
  use_xtables(Family::bridge, nullptr);
  const BuiltinTable *bt = find_builtin_table(opts.table, Family::bridge);
  if (bt == nullptr) {
    fprintf(stderr, "fastrestore ebtables: table '%s' does not exist\n",
            opts.table.c_str());
    return 3;
  }
  Listing l;
  try {
    read_kernel(opts, l);
  } catch (const Error &e) {
    fprintf(stderr, "fastrestore ebtables: %s\n", e.diag().message.c_str());
    // ebtables-nft exits 4 when it cannot read the kernel (no
    // CAP_NET_ADMIN) as for a kernel refusal.
    return e.diag().code == ExitCode::kernel ? 4 : 1;
  }
  save::TableView v = save::table_view(l.found ? &l.table : nullptr, *bt);
  // A policy rule ends a chain: its verdict is the policy (which the
  // listing shows for base chains only), and it is not listed.
  for (auto *c : v.chains) {
    auto &rules = l.rules[c];
    if (!rules.empty())
      if (auto verdict = nft::eb_policy_verdict(rules.back())) {
        c->has_policy = true;
        c->policy = *verdict;
        rules.pop_back();
      }
  }
  std::vector<KernelChain *> chains;
  for (auto *c : v.chains)
    if (opts.chain.empty() || c->name == opts.chain)
      chains.push_back(c);
  bool compatible = !chains.empty() || opts.chain.empty();
  const auto &table_sets = l.sets[opts.table];
  save::SetResolver resolve =
      [&](const std::string &set) -> const save::SetInfo * {
    auto it = table_sets.find(set);
    return it != table_sets.end() ? &it->second : nullptr;
  };
  // Decoded first: a rule iptables cannot read makes the whole listing an
  // error, printed before anything else.
  std::vector<std::vector<save::SavedRule>> decoded;
  for (auto *c : chains) {
    decoded.emplace_back();
    for (const nlmsghdr *m : l.rules[c]) {
      save::RuleAttrs a = save::rule_attrs(m);
      decoded.back().push_back(save::decode_rule(a.expressions, a.userdata,
                                                 Family::bridge, &resolve));
      if (!decoded.back().back().compatible)
        compatible = false;
    }
  }
  if (!compatible) {
    if (opts.chain.empty())
      fprintf(stderr,
              "fastrestore ebtables: table `%s' is incompatible, use 'nft' "
              "tool.\n",
              opts.table.c_str());
    else
      fprintf(stderr,
              "fastrestore ebtables: chain `%s' in table `%s' is "
              "incompatible, use 'nft' tool.\n",
              opts.chain.c_str(), opts.table.c_str());
    return 1;
  }
  save::BridgeFormat fmt;
  fmt.c_counters = opts.counters;
  fmt.ebt_save = false;
  printf("Bridge table: %s\n\n", opts.table.c_str());
  for (size_t i = 0; i < chains.size(); ++i) {
    const KernelChain *c = chains[i];
    if (i > 0)
      printf("\n");
    const char *policy = c->base && c->has_policy
                             ? (c->policy == NF_DROP     ? "DROP"
                                : c->policy == NF_ACCEPT ? "ACCEPT"
                                                         : nullptr)
                             : nullptr;
    printf("Bridge chain: %s, entries: %zu, policy: %s\n", c->name.c_str(),
           decoded[i].size(), policy != nullptr ? policy : "RETURN");
    unsigned n = 0;
    for (const auto &r : decoded[i]) {
      ++n;
      if (!r.errors.empty()) {
        fflush(stdout);
        for (const auto &e : r.errors)
          fprintf(stderr, "Error: %s\n", e.c_str());
        fprintf(stderr, "fastrestore ebtables: Parsing nftables rule failed\n");
        return 3;
      }
      if (opts.line_numbers)
        printf("%u ", n);
      save::print_bridge_body(r, fmt);
    }
  }
  fflush(stdout);
  return 0;
}

} // namespace

int ebtables_list(const EbListOptions &opts) {
  try {
    return list(opts);
  } catch (const PluginFailure &f) {
    // A plugin refused to print a rule (ebtables-nft exits the same way).
    fflush(stdout);
    fprintf(stderr, "fastrestore ebtables: %s\n", f.message.c_str());
    return static_cast<int>(f.status);
  }
}

} // namespace fastrestore
