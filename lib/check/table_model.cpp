// The planner's model of a table (table_model.h).
#include "check/table_model.h"

#include <algorithm>

namespace fastrestore {

ModelChain *TableModel::find(const std::string &name) {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

const ModelChain *TableModel::find(const std::string &name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

ModelChain &TableModel::add(ModelChain c) {
  order_.push_back(std::make_unique<ModelChain>(std::move(c)));
  ModelChain &added = *order_.back();
  index_[added.name] = &added;
  return added;
}

void TableModel::remove(const std::string &name) {
  auto it = index_.find(name);
  if (it == index_.end())
    return;
  const ModelChain *gone = it->second;
  index_.erase(it);
  order_.erase(std::find_if(order_.begin(), order_.end(),
                            [&](const auto &c) { return c.get() == gone; }));
}

void TableModel::rename(const std::string &from, const std::string &to) {
  auto it = index_.find(from);
  if (it == index_.end())
    return;
  ModelChain *c = it->second;
  index_.erase(it);
  c->name = to;
  index_[to] = c;
}

void TableModel::arrange(const std::vector<std::string> &names) {
  std::unordered_map<const ModelChain *, size_t> at;
  at.reserve(order_.size());
  for (size_t i = 0; i < order_.size(); ++i)
    at.emplace(order_[i].get(), i);
  std::vector<std::unique_ptr<ModelChain>> next;
  next.reserve(order_.size());
  for (const auto &name : names) {
    const ModelChain *c = find(name);
    if (c == nullptr)
      continue;
    auto &p = order_[at.at(c)];
    if (p != nullptr) // (not named twice)
      next.push_back(std::move(p));
  }
  for (auto &c : order_)
    if (c != nullptr)
      next.push_back(std::move(c));
  order_ = std::move(next);
}

std::vector<std::string> TableModel::names() const {
  std::vector<std::string> out;
  out.reserve(order_.size());
  for (const auto &c : order_)
    out.push_back(c->name);
  return out;
}

} // namespace fastrestore
