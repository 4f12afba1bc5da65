// See image.h.
#include "image.h"
#include "diag/stats.h"

#include "arena.h"
#include "legacy/legacy_sockopt.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>

#include "legacy/legacy.h"

namespace fastrestore::legacy {
namespace {

const char *const kHookNames[NF_INET_NUMHOOKS] = {
    "PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"};

// How a built-in chain's policy counters reach the new table, as in
// libiptc: `zeroed` (left alone: only what the old policy counted since the
// table was read), `set` (given), `nomap` (zero).
enum class CounterMap { zeroed, set, nomap };

// A run of a chain's rules lying back to back in the arena.
struct Run {
  size_t begin, end;
};

struct Chain {
  std::string name;
  int hook = -1; // built-in: NF_INET_*
  // Built-in chains: the policy and how its counters are carried over.
  int verdict = -NF_ACCEPT - 1;
  CounterMap map = CounterMap::zeroed;
  xt_counters counters{}; // set: the given counters; zeroed: those read
  unsigned old_foot = 0;  // index of the policy entry in the old table
  bool policy_set = false;
  std::vector<Run> runs;
  unsigned nrules = 0;
  // Layout, filled at commit.
  unsigned head_offset = 0, foot_offset = 0, foot_index = 0;
};

// Standard target verdicts kept in the arena: < 0 the kernel's own, 0 a
// rule without target (falls through), n > 0 a jump to chain n - 1.
int standard_verdict(const char *name, bool *ok) {
  *ok = true;
  if (std::strcmp(name, "ACCEPT") == 0)
    return -NF_ACCEPT - 1;
  if (std::strcmp(name, "DROP") == 0)
    return -NF_DROP - 1;
  if (std::strcmp(name, "QUEUE") == 0)
    return -NF_QUEUE - 1;
  if (std::strcmp(name, "RETURN") == 0)
    return XT_RETURN;
  *ok = false;
  return 0;
}

const char *verdict_name(int v) {
  switch (v) {
  case -NF_ACCEPT - 1:
    return "ACCEPT";
  case -NF_DROP - 1:
    return "DROP";
  case -NF_QUEUE - 1:
    return "QUEUE";
  default:
    return "RETURN";
  }
}

template <class T> class Image : public TableImage {
  using Entry = typename T::Entry;

public:
  static constexpr size_t kHead =
      sizeof(Entry) + XT_ALIGN(sizeof(xt_error_target));
  static constexpr size_t kReleaseStep = 1u << 20;
  static constexpr size_t kHeadroom = 64u << 10;
  static constexpr size_t kFoot =
      sizeof(Entry) + XT_ALIGN(sizeof(xt_standard_target));

  ~Image() override {
    if (fd_ >= 0)
      close(fd_);
  }

  bool load(const std::string &name) {
    fd_ = socket(T::af, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
    std::vector<unsigned char> buf;
    if (fd_ < 0 || !read_table<T>(fd_, name, info_, buf))
      return false;
    return load_entries(
        info_,
        T::table_of(reinterpret_cast<const typename T::Entries *>(buf.data())));
  }

  // The table `info` describes, its entries at `entries` (info.size
  // bytes).
  bool load_entries(const typename T::Info &info,
                    const unsigned char *entries) {
    info_ = info;
    // Headroom before the first rule, where commit can put the table's
    // header and first chains without moving the rules.
    if (arena_.grow(kHeadroom) == nullptr)
      return false;
    return read_old(entries, info_.size);
  }

  const std::vector<std::pair<std::string, bool>> &old_chains() const override {
    return old_chains_;
  }

  bool is_chain(const std::string &name) const override {
    return find(name) != nullptr;
  }

  bool create_chain(const std::string &name) override {
    if (find(name) != nullptr || name == "ACCEPT" || name == "DROP" ||
        name == "QUEUE" || name == "RETURN" ||
        name.size() + 1 > XT_EXTENSION_MAXNAMELEN)
      return false;
    index_[name] = chains_.size();
    Chain c;
    c.name = name;
    chains_.push_back(std::move(c));
    return true;
  }

  bool set_policy(const std::string &chain, const std::string &policy,
                  const xt_counters *counters) override {
    Chain *c = find(chain);
    if (c == nullptr || c->hook < 0 || (policy != "ACCEPT" && policy != "DROP"))
      return false;
    c->verdict = policy == "ACCEPT" ? -NF_ACCEPT - 1 : -NF_DROP - 1;
    c->policy_set = true;
    if (counters != nullptr) {
      c->counters = *counters;
      c->map = CounterMap::set;
    } else {
      c->map = CounterMap::nomap;
    }
    return true;
  }

  bool append(const std::string &chain, const unsigned char *entry,
              size_t size) override {
    Chain *c = find(chain);
    if (c == nullptr)
      return false;
    const auto *e = reinterpret_cast<const Entry *>(entry);
    const auto *t =
        reinterpret_cast<const xt_entry_target *>(entry + e->target_offset);
    const char *tname = t->u.user.name;
    int verdict = INT_MIN; // INT_MIN: an extension target, kept as it is
    if (*tname == '\0') {
      verdict = 0;
    } else {
      bool standard;
      int v = standard_verdict(tname, &standard);
      if (standard) {
        verdict = v;
      } else if (const Chain *to = find(tname)) {
        if (to->hook >= 0)
          return false; // no jumps to built-in chains (libiptc: EINVAL)
        verdict = static_cast<int>(to - chains_.data()) + 1;
      }
    }
    if (verdict != INT_MIN &&
        t->u.target_size != XT_ALIGN(sizeof(xt_standard_target)))
      return false;
    unsigned char *at = arena_.grow(size);
    if (at == nullptr)
      return false;
    std::memcpy(at, entry, size);
    if (verdict != INT_MIN)
      set_verdict(at, verdict);
    place(c, at, size);
    return true;
  }

  bool append_basic(const BasicAppend &a) override {
    Chain *c = find_recent(a.chain, recent_);
    if (c == nullptr)
      return false;
    int verdict = 0;
    switch (a.verdict) {
    case Verdict::accept:
      verdict = -NF_ACCEPT - 1;
      break;
    case Verdict::drop:
      verdict = -NF_DROP - 1;
      break;
    case Verdict::ret:
      verdict = XT_RETURN;
      break;
    case Verdict::jump: {
      const Chain *to = find_recent(a.jump_chain, recent_jump_);
      if (to == nullptr || to->hook >= 0)
        return false;
      verdict = static_cast<int>(to - chains_.data()) + 1;
      break;
    }
    default:
      break;
    }
    const size_t size = basic_entry_size(a, kFamily);
    unsigned char *at = arena_.grow(size);
    if (at == nullptr)
      return false;
    build_basic_entry(a, kFamily, at);
    set_verdict(at, verdict);
    place(c, at, size);
    return true;
  }

  bool replay(const Replay &to) const override {
    for (const auto &c : chains_)
      if (c.hook < 0 && !to.create(c.name.c_str()))
        return false;
    for (const auto &c : chains_) {
      if (c.hook < 0 || !c.policy_set)
        continue;
      xt_counters count = c.counters;
      if (!to.policy(c.name.c_str(), verdict_name(c.verdict),
                     c.map == CounterMap::set ? &count : nullptr))
        return false;
    }
    std::vector<unsigned char> buf;
    for (const auto &c : chains_)
      for (const auto &run : c.runs)
        for (size_t off = run.begin; off < run.end;) {
          const auto *e = reinterpret_cast<const Entry *>(arena_.data() + off);
          buf.assign(reinterpret_cast<const unsigned char *>(e),
                     reinterpret_cast<const unsigned char *>(e) +
                         e->next_offset);
          auto *t = reinterpret_cast<xt_standard_target *>(buf.data() +
                                                           e->target_offset);
          if (t->target.u.user.name[0] == '\0') {
            const char *name = t->verdict < 0 ? verdict_name(t->verdict)
                               : t->verdict == 0
                                   ? ""
                                   : chains_[t->verdict - 1].name.c_str();
            std::strncpy(t->target.u.user.name, name,
                         sizeof(t->target.u.user.name) - 1);
            t->verdict = 0;
          }
          if (!to.append(c.name.c_str(), buf.data()))
            return false;
          off += e->next_offset;
        }
    return true;
  }

  int commit() override {
    arena_.stop_prefault();
    // libiptc's order: built-in chains by hook, then user chains by name.
    std::vector<Chain *> order;
    for (auto &c : chains_)
      order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](Chain *a, Chain *b) {
      if ((a->hook >= 0) != (b->hook >= 0))
        return a->hook >= 0;
      if (a->hook >= 0)
        return a->hook < b->hook;
      return std::strcmp(a->name.c_str(), b->name.c_str()) < 0;
    });
    size_t offset = 0;
    unsigned num = 0;
    for (Chain *c : order) {
      c->head_offset = static_cast<unsigned>(offset);
      if (c->hook < 0) {
        offset += kHead;
        ++num;
      }
      for (const auto &r : c->runs)
        offset += r.end - r.begin;
      num += c->nrules;
      c->foot_offset = static_cast<unsigned>(offset);
      c->foot_index = num;
      offset += kFoot;
      ++num;
    }
    offset += kHead; // the closing ERROR entry
    ++num;
    if (offset > UINT_MAX)
      return ENOMEM;

    const size_t total = sizeof(typename T::Replace) + offset;
    Arena out; // a second buffer, only when the runs are out of order
    auto *repl = in_place(order, total);
    if (repl == nullptr) {
      repl = reinterpret_cast<typename T::Replace *>(out.grow(total));
      if (repl == nullptr)
        return ENOMEM;
      copy_entries(order, reinterpret_cast<unsigned char *>(repl + 1));
    }
    std::memset(static_cast<void *>(repl), 0, sizeof(*repl));
    std::strcpy(repl->name, info_.name);
    repl->valid_hooks = info_.valid_hooks;
    repl->num_entries = num;
    repl->size = static_cast<unsigned>(offset);
    repl->num_counters = info_.num_entries;
    std::vector<xt_counters> old(info_.num_entries);
    repl->counters = old.data();
    unsigned char *base = reinterpret_cast<unsigned char *>(repl + 1);
    finish_chains(order, repl, base);
    // The closing ERROR entry.
    write_error(base + offset - kHead, "ERROR");

    {
      PhaseTimer timer(phase_stats().kernel_s);
      if (setsockopt(fd_, T::level, T::set_replace, repl,
                     static_cast<socklen_t>(sizeof(*repl) + offset)) < 0)
        return errno;
    }
    phase_stats().bytes += sizeof(*repl) + offset;
    return add_counters(order, num, old);
  }

private:
  static constexpr Family kFamily =
      std::is_same<T, V4>::value ? Family::ipv4 : Family::ipv6;

  // A standard target as the arena keeps it: no name, the verdict coded.
  static void set_verdict(unsigned char *entry, int verdict) {
    const auto *e = reinterpret_cast<const Entry *>(entry);
    auto *st = reinterpret_cast<xt_standard_target *>(entry + e->target_offset);
    std::memset(st->target.u.user.name, 0, sizeof(st->target.u.user.name));
    st->target.u.user.revision = 0;
    st->verdict = verdict;
  }

  // Records the entry just written at `at` as the chain's next rule.
  void place(Chain *c, const unsigned char *at, size_t size) {
    size_t begin = static_cast<size_t>(at - arena_.data());
    if (!c->runs.empty() && c->runs.back().end == begin)
      c->runs.back().end += size;
    else
      c->runs.push_back({begin, begin + size});
    ++c->nrules;
  }

  // A lookup that remembers its last answer in `recent`: consecutive
  // rules mostly name the same chains.
  Chain *find_recent(std::string_view name, size_t &recent) {
    if (recent < chains_.size() && chains_[recent].name == name)
      return &chains_[recent];
    auto it = index_.find(name);
    if (it == index_.end())
      return nullptr;
    recent = it->second;
    return &chains_[recent];
  }

  Chain *find(const std::string &name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &chains_[it->second];
  }
  const Chain *find(const std::string &name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &chains_[it->second];
  }

  // The old table: its chains in order, and each built-in chain's policy
  // entry (whose counters libiptc carries over unless the block sets them).
  bool read_old(const unsigned char *blob, size_t size) {
    unsigned index = 0;
    for (size_t off = 0; off < size; ++index) {
      const auto *e = reinterpret_cast<const Entry *>(blob + off);
      if (e->next_offset < sizeof(Entry) || off + e->next_offset > size)
        return false;
      for (int h = 0; h < NF_INET_NUMHOOKS; ++h) {
        if (!(info_.valid_hooks & (1u << h)))
          continue;
        if (info_.hook_entry[h] == off)
          old_chains_.emplace_back(kHookNames[h], true);
        if (info_.underflow[h] == off) {
          const auto *st = reinterpret_cast<const xt_standard_target *>(
              blob + off + e->target_offset);
          Chain c;
          c.name = kHookNames[h];
          c.hook = h;
          c.verdict = st->verdict;
          c.counters = e->counters;
          c.old_foot = index;
          index_[c.name] = chains_.size();
          chains_.push_back(std::move(c));
        }
      }
      const auto *t = reinterpret_cast<const xt_entry_target *>(
          blob + off + e->target_offset);
      if (std::strcmp(t->u.user.name, XT_ERROR_TARGET) == 0) {
        const auto *et = reinterpret_cast<const xt_error_target *>(t);
        if (std::strcmp(et->errorname, XT_ERROR_TARGET) != 0)
          old_chains_.emplace_back(et->errorname, false);
      }
      off += e->next_offset;
    }
    return true;
  }

  void write_error(unsigned char *at, const char *name) {
    std::memset(at, 0, kHead);
    auto *e = reinterpret_cast<Entry *>(at);
    e->target_offset = sizeof(Entry);
    e->next_offset = kHead;
    auto *t = reinterpret_cast<xt_error_target *>(at + sizeof(Entry));
    t->target.u.target_size = XT_ALIGN(sizeof(xt_error_target));
    std::strcpy(t->target.u.user.name, XT_ERROR_TARGET);
    std::strncpy(t->errorname, name, XT_FUNCTION_MAXNAMELEN - 1);
  }

  // Where a chain's rules start in the table.
  size_t rules_offset(const Chain *c) const {
    return c->head_offset + (c->hook < 0 ? kHead : 0);
  }

  // Lays the table out inside the arena itself when its runs already lie
  // there in table order (a block that fills chain after chain): the runs
  // move, most of them not at all, to leave room for the heads and feet
  // between chains. Null when they are out of order (or memory runs out).
  typename T::Replace *in_place(const std::vector<Chain *> &order,
                                size_t total) {
    struct Move {
      size_t from, to, len; // `to`: from the start of the entries, then
                            // in the arena
    };
    std::vector<Move> moves;
    for (const Chain *c : order) {
      size_t to = rules_offset(c);
      for (const auto &r : c->runs) {
        if (!moves.empty() && r.begin < moves.back().from + moves.back().len)
          return nullptr;
        moves.push_back({r.begin, to, r.end - r.begin});
        to += r.end - r.begin;
      }
    }
    // The buffer starts so that the first run stays where it is, when the
    // arena's headroom leaves room for the header and the chains before it.
    const size_t head = sizeof(typename T::Replace);
    size_t start = 0;
    if (!moves.empty() && moves[0].from >= head + moves[0].to)
      start = moves[0].from - head - moves[0].to;
    // Front-moving runs must all come before back-moving ones.
    long long last_shift = LLONG_MIN;
    for (auto &m : moves) {
      m.to += start + head;
      long long shift =
          static_cast<long long>(m.to) - static_cast<long long>(m.from);
      if (shift < last_shift)
        return nullptr;
      last_shift = shift;
    }
    if (start + total > arena_.size() &&
        arena_.grow(start + total - arena_.size()) == nullptr)
      return nullptr;
    unsigned char *buf = arena_.data();
    size_t k = 0;
    for (; k < moves.size() && moves[k].to <= moves[k].from; ++k)
      if (moves[k].to != moves[k].from)
        std::memmove(buf + moves[k].to, buf + moves[k].from, moves[k].len);
    for (size_t j = moves.size(); j-- > k;)
      std::memmove(buf + moves[j].to, buf + moves[j].from, moves[j].len);
    return reinterpret_cast<typename T::Replace *>(buf + start);
  }

  // Copies every chain's runs to their offsets from `base`, handing the
  // arena back as the copy passes it.
  void copy_entries(const std::vector<Chain *> &order, unsigned char *base) {
    // Runs by arena position, to know how far the copy has passed.
    std::vector<std::pair<size_t, size_t>> by_pos; // begin, end
    for (const Chain *c : order)
      for (const auto &r : c->runs)
        by_pos.emplace_back(r.begin, r.end);
    std::sort(by_pos.begin(), by_pos.end());
    std::vector<bool> done(by_pos.size());
    size_t next = 0, released = 0;

    for (Chain *c : order) {
      size_t at = rules_offset(c);
      for (const auto &r : c->runs) {
        auto it = std::lower_bound(by_pos.begin(), by_pos.end(),
                                   std::make_pair(r.begin, r.end));
        // Every run before this one in the arena is copied: hand the
        // arena back while this one is copied too.
        const bool frontier = static_cast<size_t>(it - by_pos.begin()) == next;
        for (size_t off = r.begin; off < r.end;) {
          const size_t n = std::min(kReleaseStep, r.end - off);
          std::memcpy(base + at, arena_.data() + off, n);
          at += n;
          off += n;
          if (frontier)
            released = arena_.release(released, off);
        }
        done[it - by_pos.begin()] = true;
        while (next < by_pos.size() && done[next])
          ++next;
        released =
            arena_.release(released, next < by_pos.size() ? by_pos[next].first
                                                          : arena_.size());
      }
    }
  }

  // With the rules at their offsets from `base`: each chain's head and
  // foot, the hooks, jumps resolved to offsets, and the rules' counters
  // noted for add_counters.
  void finish_chains(const std::vector<Chain *> &order,
                     typename T::Replace *repl, unsigned char *base) {
    for (Chain *c : order) {
      if (c->hook < 0) {
        write_error(base + c->head_offset, c->name.c_str());
      } else {
        repl->hook_entry[c->hook] = c->head_offset;
        repl->underflow[c->hook] = c->foot_offset;
      }
      unsigned index = c->foot_index - c->nrules;
      for (size_t at = rules_offset(c); at < c->foot_offset; ++index) {
        auto *e = reinterpret_cast<Entry *>(base + at);
        const size_t n = e->next_offset;
        if (e->counters.pcnt != 0 || e->counters.bcnt != 0)
          rule_counters_.emplace_back(index, e->counters);
        auto *t = reinterpret_cast<xt_standard_target *>(base + at +
                                                         e->target_offset);
        if (t->target.u.user.name[0] == '\0' && t->verdict >= 0)
          t->verdict = t->verdict == 0
                           ? static_cast<int>(at + n)
                           : static_cast<int>(
                                 chains_[t->verdict - 1].head_offset + kHead);
        at += n;
      }
      // The chain's last entry: its policy, or RETURN for a user chain.
      std::memset(base + c->foot_offset, 0, kFoot);
      auto *e = reinterpret_cast<Entry *>(base + c->foot_offset);
      e->target_offset = sizeof(Entry);
      e->next_offset = kFoot;
      auto *t = reinterpret_cast<xt_standard_target *>(base + c->foot_offset +
                                                       sizeof(Entry));
      t->target.u.target_size = XT_ALIGN(sizeof(xt_standard_target));
      t->verdict = c->hook >= 0 ? c->verdict : XT_RETURN;
      if (c->hook >= 0 && c->map == CounterMap::set)
        e->counters = c->counters;
    }
  }

  // After the replacement, as libiptc: the counters of every new entry
  // (the rules' own, set policies', and the old counters of policies the
  // block left alone).
  int add_counters(const std::vector<Chain *> &order, unsigned num,
                   const std::vector<xt_counters> &old) {
    std::vector<unsigned char> buf(sizeof(xt_counters_info) +
                                   sizeof(xt_counters) * num);
    auto *info = reinterpret_cast<xt_counters_info *>(buf.data());
    std::strcpy(info->name, info_.name);
    info->num_counters = num;
    // Rules carry their own counters (zero unless given with -c), kept
    // aside by the copy since the arena is gone.
    for (const Chain *c : order) {
      if (c->hook >= 0) {
        if (c->map == CounterMap::set)
          info->counters[c->foot_index] = c->counters;
        else if (c->map == CounterMap::zeroed && c->old_foot < old.size())
          info->counters[c->foot_index] = {
              old[c->old_foot].pcnt - c->counters.pcnt,
              old[c->old_foot].bcnt - c->counters.bcnt};
      }
    }
    for (const auto &[index, count] : rule_counters_)
      info->counters[index] = count;
    PhaseTimer timer(phase_stats().kernel_s);
    if (setsockopt(fd_, T::level, T::add_counters, info,
                   static_cast<socklen_t>(buf.size())) < 0)
      return errno;
    return 0;
  }

  int fd_ = -1;
  typename T::Info info_{};
  std::vector<std::pair<std::string, bool>> old_chains_;
  std::vector<Chain> chains_;
  std::map<std::string, size_t, std::less<>> index_;
  size_t recent_ = SIZE_MAX, recent_jump_ = SIZE_MAX;
  Arena arena_{true};
  std::vector<std::pair<unsigned, xt_counters>> rule_counters_;
};

} // namespace

std::unique_ptr<TableImage> TableImage::open(Family family,
                                             const std::string &name) {
  if (family == Family::ipv4) {
    auto img = std::make_unique<Image<V4>>();
    if (img->load(name))
      return img;
  } else {
    auto img = std::make_unique<Image<V6>>();
    if (img->load(name))
      return img;
  }
  return nullptr;
}

std::unique_ptr<TableImage>
TableImage::from_entries(Family family, const void *info,
                         const unsigned char *entries) {
  if (family == Family::ipv4) {
    auto img = std::make_unique<Image<V4>>();
    if (img->load_entries(*static_cast<const V4::Info *>(info), entries))
      return img;
  } else {
    auto img = std::make_unique<Image<V6>>();
    if (img->load_entries(*static_cast<const V6::Info *>(info), entries))
      return img;
  }
  return nullptr;
}

const char *commit_strerror(int err) {
  switch (err) {
  case 0:
    return "Incompatible with this kernel";
  case ENOPROTOOPT:
    return "iptables who? (do you need to insmod?)";
  case ENOSYS:
    return "Will be implemented real soon.  I promise ;)";
  case ENOMEM:
    return "Memory allocation problem";
  case ENOENT:
    return "No chain/target/match by that name";
  default:
    return std::strerror(err);
  }
}

} // namespace fastrestore::legacy
