#include "journal_keeper.h"

#include <endian.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstring>

#include "nft/nft_attrs.h"

namespace fastrestore::nft {
namespace {

// The handle in an echoed NEWRULE or NEWCHAIN message (0: none).
uint64_t echoed_handle(const std::string &m) {
  const auto *nlh = reinterpret_cast<const nlmsghdr *>(m.data());
  const uint16_t type = nlh->nlmsg_type & 0xff;
  const uint16_t want = type == NFT_MSG_NEWRULE    ? NFTA_RULE_HANDLE
                        : type == NFT_MSG_NEWCHAIN ? NFTA_CHAIN_HANDLE
                                                   : 0;
  uint64_t handle = 0;
  if (want == 0)
    return 0;
  each_top(nlh, [&](const nlattr *a) {
    if (attr_type(a) == want)
      handle = attr_be64(a);
  });
  return handle;
}

// The chains' policies as made (a base chain without a policy accepts)
// and the kept rules' handles, from `kept` in order (none: the rules
// carry theirs).
void settle(TableState &state, const std::vector<uint64_t> *kept) {
  size_t at = 0; // in *kept
  for (StateChain &s : state.chains) {
    s.policy = s.has_policy ? s.policy : NF_ACCEPT;
    s.has_policy = s.base;
    if (kept != nullptr)
      for (StateRule &r : s.rules)
        r.handle = (*kept)[at++];
  }
}

// The handles of what `made` made, `first` on, and the table's next.
void place_made(TableState &state, const std::vector<Allocation> &made,
                uint64_t first) {
  for (size_t i = 0; i < made.size(); ++i)
    if (made[i].rule != SIZE_MAX)
      state.chains[made[i].chain].rules[made[i].rule].handle = first + i;
  if (!made.empty())
    state.next_handle = first + made.size();
}

bool handles_known(const TableState &state) {
  for (const auto &c : state.chains)
    for (const auto &r : c.rules)
      if (r.handle == 0)
        return false;
  return true;
}

// The first handle of what `made` made, from the transport's echoes of
// the first and the last of them (ask_echo): 0, with the reason in *why,
// when they are not there or not consecutive; 0 too for nothing made.
uint64_t echoed_first(const Transport &transport,
                      const std::vector<Allocation> &made, const char **why) {
  if (made.empty())
    return 0;
  const size_t echoes = made.size() > 1 ? 2 : 1;
  if (transport.echoes.size() != echoes) {
    *why = "the kernel did not echo the handles of what it made";
    return 0;
  }
  const uint64_t first = echoed_handle(transport.echoes.front());
  const uint64_t last = echoed_handle(transport.echoes.back());
  if (first == 0 || last - first != made.size() - 1) {
    *why = "the kernel's handles were not consecutive";
    return 0;
  }
  return first;
}

// The generation after one commit from `before` (the kernel moves it by
// one per commit, skipping 0).
uint32_t generation_after(uint32_t before) {
  return before + 1 == 0 ? 1 : before + 1;
}

} // namespace

bool JournalKeeper::forget(Transport &transport, uint32_t family,
                           const std::string &table, uint32_t before,
                           uint32_t after, const char *reason,
                           std::string *why) {
  std::string ignored;
  journal_.record(
      family, table, before, after, nullptr,
      [&] { return transport.generation(); }, &ignored);
  *why = reason;
  return false;
}

std::unique_ptr<JournalKeeper> JournalKeeper::open(std::string *why) {
  const std::string dir = Journal::default_dir();
  if (dir.empty()) {
    *why = "turned off (FASTRESTORE_JOURNAL_DIR is empty)";
    return nullptr;
  }
  std::optional<NetnsId> ns = current_netns_id(why);
  if (!ns)
    return nullptr;
  return std::unique_ptr<JournalKeeper>(
      new JournalKeeper(Journal(dir, std::move(*ns))));
}

std::optional<TableState> JournalKeeper::load(uint32_t family,
                                              const std::string &table,
                                              uint32_t generation,
                                              std::string *why) const {
  return journal_.load(family, table, generation, why);
}

void JournalKeeper::ask_echo(Batch &batch,
                             const std::vector<Allocation> &made) {
  if (made.empty())
    return;
  batch.add_flags(made.front().message, NLM_F_ECHO);
  if (made.size() > 1)
    batch.add_flags(made.back().message, NLM_F_ECHO);
}

bool JournalKeeper::record(Transport &transport, uint32_t family,
                           const std::string &table, uint32_t before,
                           bool committed, DesiredTable *want,
                           const std::vector<uint64_t> *kept,
                           const std::vector<Allocation> &made,
                           std::string *why, Ahead *ahead) {
  const uint32_t after = committed ? generation_after(before) : before;
  auto now = [&] { return transport.generation(); };
  // Without a record the table's old one goes (the index moves on).
  auto forget = [&](const char *reason) {
    return this->forget(transport, family, table, before, after, reason, why);
  };
  if (want == nullptr)
    return journal_.record(family, table, before, after, nullptr, now, why);

  TableState &state = want->state;
  if (ahead == nullptr || !ahead->settled)
    settle(state, kept);
  if (!made.empty()) {
    // The first and last made get their handles echoed (ask_echo).
    const char *reason = nullptr;
    const uint64_t first = echoed_first(transport, made, &reason);
    if (first == 0)
      return forget(reason);
    if (ahead != nullptr && ahead->first != first)
      ahead->ready = false; // foretold wrong: made again
    place_made(state, made, first);
  }
  if (ahead != nullptr && ahead->ready)
    return journal_.record(family, table, before, after, &ahead->encoded, now,
                           why);
  if (!handles_known(state))
    return forget("a rule's handle is not known");
  const Journal::Encoded record = journal_.encode(family, table, state);
  return journal_.record(family, table, before, after, &record, now, why);
}

bool JournalKeeper::edit(Transport &transport, uint32_t family,
                         const std::string &table, uint32_t before,
                         DesiredTable &want,
                         const std::vector<std::string> &gone,
                         const std::vector<Allocation> &made,
                         std::string *why) {
  const uint32_t after = generation_after(before);
  auto now = [&] { return transport.generation(); };
  auto forget = [&](const char *reason) {
    return this->forget(transport, family, table, before, after, reason, why);
  };
  TableState &state = want.state;
  settle(state, nullptr);
  if (!made.empty()) {
    const char *reason = nullptr;
    const uint64_t first = echoed_first(transport, made, &reason);
    if (first == 0)
      return forget(reason);
    place_made(state, made, first);
  }
  if (!handles_known(state))
    return forget("a rule's handle is not known");
  std::vector<ChainEdit> edits;
  edits.reserve(state.chains.size() + gone.size());
  for (const StateChain &c : state.chains)
    edits.push_back({c.name, c});
  for (const std::string &name : gone)
    edits.push_back({name, std::nullopt});
  return journal_.edit(family, table, before, after, edits, state.next_handle,
                       now, why);
}

void JournalKeeper::prepare(uint32_t family, const std::string &table,
                            DesiredTable &want,
                            const std::vector<uint64_t> *kept,
                            const std::vector<Allocation> &made, uint64_t first,
                            Ahead &ahead) const {
  ahead.ready = false;
  settle(want.state, kept);
  ahead.settled = true;
  ahead.first = first;
  if (first == 0 && !made.empty())
    return;
  place_made(want.state, made, first);
  if (!handles_known(want.state))
    return;
  ahead.encoded = journal_.encode(family, table, want.state);
  ahead.ready = true;
}

} // namespace fastrestore::nft
