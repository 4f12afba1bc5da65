// The text save of nf_tables, in the order and form of iptables-nft-save
// and ebtables-nft-save 1.8.9: tables in iptables' order; base chains by
// hook, then user chains by name; rules in chain order; a table with an
// expression iptables cannot read replaced by one comment line.
#include <linux/netfilter.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture.h"
#include "check/bridge_policy.h"
#include "decode.h"
#include "fastrestore/tables.h"
#include "fastrestore/version.h"
#include "kernel_rules.h"
#include "print/save_print.h"
#include "save.h"
#include "xtables/xtables_setup.h"

namespace fastrestore::save {
namespace {

std::string stamp() {
  time_t now = time(nullptr);
  return ctime(&now);
}

struct Result {
  std::string text;                // stdout
  std::vector<std::string> errors; // a rule that cannot be read: stop there
};

class Saver {
public:
  Saver(const TextSaveOptions &opts) : opts_(opts) {
    bridge_ = opts.family == Family::bridge;
    if (bridge_) {
      const char *env = getenv("EBTABLES_SAVE_COUNTER");
      if (!opts.counters && env != nullptr && std::strcmp(env, "yes") == 0)
        fmt_.c_counters = true;
    }
  }

  Result run(const std::vector<std::string> &names) {
    Result res;
    std::vector<KernelTable> tables = read_kernel_tables(opts_.family, names);
    if (bridge_)
      sets_ = read_sets(Family::bridge);
    std::vector<TableView> views;
    std::vector<RuleStream::Job> jobs;
    for (const auto &name : names) {
      KernelTable *t = nullptr;
      for (auto &kt : tables)
        if (kt.name == name)
          t = &kt;
      if (t == nullptr && opts_.table.empty())
        continue;
      views.push_back(table_view(t, *find_builtin_table(name, opts_.family)));
      for (auto *c : views.back().chains)
        if (!is_fake(views.back(), c))
          jobs.push_back({name, c->name});
    }
    RuleStream stream(opts_.family, jobs);
    size_t job = 0;
    const RulesOf from_kernel = [&](KernelChain &) {
      return stream.take(job++);
    };
    for (auto &v : views) {
      if (!table(v, from_kernel, res))
        break;
    }
    return res;
  }

  // One table from chains the caller holds with their rule messages, its
  // dated comment lines left out.
  Result given(KernelTable &t, ChainTexts *texts) {
    Result res;
    dated_ = false;
    texts_ = texts;
    TableView v = table_view(&t, *find_builtin_table(t.name, opts_.family));
    const RulesOf held = [](KernelChain &c) {
      std::vector<char> buf;
      for (const std::string &m : c.messages) {
        buf.insert(buf.end(), m.begin(), m.end());
        buf.resize(MNL_ALIGN(buf.size()));
      }
      return buf;
    };
    table(v, held, res);
    return res;
  }

private:
  static bool is_fake(const TableView &v, const KernelChain *c) {
    for (const auto &f : v.fakes)
      if (f.get() == c)
        return true;
    return false;
  }

  // One table: its rules decoded and printed into memory while the
  // compatibility of every rule is checked, then the table's lines.
  // Returns false when a rule could not be read (the save stops).
  // A chain's rule messages, back to back (each_message).
  using RulesOf = std::function<std::vector<char>(KernelChain &)>;

  bool table(TableView &v, const RulesOf &rules_of, Result &res) {
    bool compatible = true, stopped = false;
    std::vector<std::string> errors;
    const auto &table_sets = sets_[v.name];
    SetResolver resolve = [&](const std::string &set) -> const SetInfo * {
      auto it = table_sets.find(set);
      return it != table_sets.end() ? &it->second : nullptr;
    };
    Capture cap;
    for (auto *c : v.chains) {
      if (is_fake(v, c))
        continue;
      const bool cached = texts_ != nullptr && compatible && !stopped;
      if (cached)
        if (auto it = texts_->find(c->name); it != texts_->end()) {
          fwrite(it->second.data(), 1, it->second.size(), stdout);
          continue;
        }
      const size_t start = cached ? cap.size() : 0;
      std::vector<char> buf = rules_of(*c);
      std::vector<const nlmsghdr *> rules;
      each_message(buf, [&](const nlmsghdr *m) { rules.push_back(m); });
      if (bridge_ && !rules.empty())
        if (auto verdict = nft::eb_policy_verdict(rules.back())) {
          c->has_policy = true;
          c->policy = *verdict;
          rules.pop_back();
        }
      for (const nlmsghdr *m : rules) {
        if (!compatible)
          break;
        RuleAttrs a = rule_attrs(m);
        if (stopped) {
          if (a.expressions != nullptr && !rule_compatible(a.expressions))
            compatible = false;
          continue;
        }
        SavedRule r = decode_rule(a.expressions, a.userdata, opts_.family,
                                  bridge_ ? &resolve : nullptr);
        if (!r.compatible) {
          compatible = false;
          break;
        }
        if (!r.errors.empty()) {
          errors = std::move(r.errors);
          stopped = true;
          continue;
        }
        print(c->name, r);
      }
      if (cached && compatible && !stopped)
        (*texts_)[c->name] = cap.since(start);
    }
    std::string &out = res.text;
    if (!compatible) {
      cap.finish();
      out += "# Table `" + v.name + "' is incompatible, use 'nft' tool.\n";
      return true;
    }
    if (v.tainted)
      out += "# Table `" + v.name +
             "' contains incompatible base-chains, use 'nft' tool to list "
             "them.\n";
    if (dated_)
      out += "# Generated by fastrestore v" + std::string(kVersion) +
             " (nf_tables) on " + stamp();
    out += "*" + v.name + "\n";
    char line[128];
    for (const auto *c : v.chains) {
      const char *policy = policy_name(*c, bridge_);
      out += ":" + c->name + " ";
      if (bridge_) {
        out += policy != nullptr ? policy : "ACCEPT";
        out += "\n";
      } else {
        snprintf(line, sizeof(line), "%s [%" PRIu64 ":%" PRIu64 "]\n",
                 policy != nullptr ? policy : "-", c->packets, c->bytes);
        out += line;
      }
    }
    cap.finish(&out); // the rules, after the lines above
    if (stopped) {
      res.errors = std::move(errors);
      return false;
    }
    if (!bridge_)
      out += "COMMIT\n";
    if (dated_)
      out += "# Completed on " + stamp();
    return true;
  }

  void print(const std::string &chain, const SavedRule &r) {
    if (!bridge_) {
      print_ip_rule(chain, r, opts_.family, opts_.counters);
      return;
    }
    if (opts_.counters)
      printf("[%" PRIu64 ":%" PRIu64 "] ", r.packets, r.bytes);
    printf("-A %s ", chain.c_str());
    print_bridge_body(r, fmt_);
  }

  const TextSaveOptions &opts_;
  bool bridge_;
  bool dated_ = true; // the `# Generated by' and `# Completed on' lines
  ChainTexts *texts_ = nullptr; // given(): chains' rule lines, reused
  BridgeFormat fmt_;
  TableSets sets_;
};

} // namespace

std::vector<std::string> save_nft_given(const TextSaveOptions &opts,
                                        KernelTable &table, std::string &out,
                                        ChainTexts *texts) {
  use_xtables(opts.family, opts.family == Family::bridge
                               ? nullptr
                               : make_netlink_revision_probe());
  Result res = Saver(opts).given(table, texts);
  out += res.text;
  return res.errors;
}

int save_nft(const TextSaveOptions &opts) {
  const bool bridge = opts.family == Family::bridge;
  // libxtables set up for the family, asking the kernel which revision of
  // an extension to use as iptables-nft does.
  use_xtables(opts.family, bridge ? nullptr : make_netlink_revision_probe());

  static const char *const kIp[] = {"mangle", "security", "raw", "filter",
                                    "nat"};
  static const char *const kBridge[] = {"filter", "nat"};
  if (!opts.table.empty() &&
      find_builtin_table(opts.table, opts.family) == nullptr) {
    fprintf(stderr, "Table `%s' does not exist\n", opts.table.c_str());
    return 1;
  }
  std::vector<std::string> names;
  for (const char *name : bridge
                              ? std::vector<const char *>(kBridge, kBridge + 2)
                              : std::vector<const char *>(kIp, kIp + 5))
    if (opts.table.empty() || opts.table == name)
      names.emplace_back(name);
  // A dump is not atomic: read again when the ruleset changed meanwhile.
  Result res;
  bool stable = false;
  for (int attempt = 0; attempt < 10 && !stable; ++attempt) {
    const uint32_t gen = ruleset_generation(opts.family);
    res = Saver(opts).run(names);
    stable = ruleset_generation(opts.family) == gen;
  }
  if (!stable) {
    fprintf(stderr, "fastrestore save: the ruleset kept changing while it "
                    "was read (10 attempts)\n");
    return 1;
  }
  fwrite(res.text.data(), 1, res.text.size(), stdout);
  fflush(stdout);
  if (!res.errors.empty()) {
    for (const auto &e : res.errors)
      fprintf(stderr, "Error: %s\n", e.c_str());
    fprintf(stderr, "fastrestore save: Parsing nftables rule failed\n");
    return 3;
  }
  warn_legacy_tables(opts.family);
  return 0;
}

} // namespace fastrestore::save
