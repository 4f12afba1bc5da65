// The planner's one model of a table while a block is planned (plan.h):
// its chains in order, each with its attributes and its rules as
// references (RuleRef: a kernel rule by handle, a rule of this block by
// transaction id). Both planners change it through these functions: a
// table being replaced starts from nothing (plan_block, which keeps each
// rule's IR by its id), a --noflush block from the kernel's table, its
// chains read as commands need them (OpPlanner). What a command may do is
// the planners' to check; the model only does it.
#pragma once

#include <linux/netfilter.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fastrestore/ir.h"
#include "fastrestore/tables.h"

namespace fastrestore {

// A rule by kernel handle, or by the transaction id of a rule added earlier
// in the same batch (or, in a table being replaced, by the id plan_block
// gave it).
struct RuleRef {
  uint64_t handle = 0;
  uint32_t id = 0;
};

// A chain's own attributes, its rules aside.
struct ChainAttrs {
  Location loc; // where the block made it
  std::string name;
  const BuiltinChain *builtin = nullptr; // the table's base chain so named
  std::optional<uint32_t> policy; // NF_ACCEPT / NF_DROP; none: the default
  bool counters = false;          // set packets/bytes on the chain
  uint64_t packets = 0, bytes = 0;
};

struct ModelChain : ChainAttrs {
  bool base = false;     // has a hook
  uint64_t handle = 0;   // the kernel's (0: made by this block, or unknown)
  bool recorded = false; // read from the journal's record: handle unknown
  std::vector<RuleRef> rules;

  bool accept() const { return policy.value_or(NF_ACCEPT) == NF_ACCEPT; }
};

class TableModel {
public:
  ModelChain *find(const std::string &name);
  const ModelChain *find(const std::string &name) const;
  bool has(const std::string &name) const { return find(name) != nullptr; }
  // `c` added after the others (no chain of its name there yet).
  ModelChain &add(ModelChain c);
  // Chain `name` gone (when there).
  void remove(const std::string &name);
  // Every chain `gone(chain)` is true of removed.
  template <class F> void remove_if(F gone) {
    std::vector<std::unique_ptr<ModelChain>> kept;
    kept.reserve(order_.size());
    for (auto &c : order_) {
      if (gone(static_cast<const ModelChain &>(*c)))
        index_.erase(c->name);
      else
        kept.push_back(std::move(c));
    }
    order_ = std::move(kept);
  }
  // Chain `from` named `to`, in its place.
  void rename(const std::string &from, const std::string &to);
  // The chains put in the order of `names` (the names of chains not there
  // skipped); a chain `names` lacks keeps its place after them.
  void arrange(const std::vector<std::string> &names);
  // The chains' names in order.
  std::vector<std::string> names() const;
  // The chains in order (a chain stays where it is, in memory, until it
  // is removed: references to it stay valid).
  template <class F> void each(F fn) {
    for (auto &c : order_)
      fn(*c);
  }
  template <class F> void each(F fn) const {
    for (const auto &c : order_)
      fn(static_cast<const ModelChain &>(*c));
  }

private:
  std::vector<std::unique_ptr<ModelChain>> order_;
  std::unordered_map<std::string, ModelChain *> index_;
};

} // namespace fastrestore
