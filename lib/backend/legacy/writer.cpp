// Applies restore blocks through libiptc (see legacy.h).
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter/x_tables.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "diag/stats.h"
#include "fastrestore/restore_options.h"
#include "fastrestore/tables.h"
#include "image.h"
#include "legacy/iptc.h"
#include "legacy/legacy.h"
#include "legacy/xtables_lock.h"
#include "missing.h"
#include "parse/restore_writer.h"
#include "print/rule_print.h"

namespace fastrestore::legacy {
namespace {

// `upstream`: iptables-legacy-restore's words where they differ
// (Diagnostic::upstream; "" for its bare "line N failed").
[[noreturn]] void fail(const Location &loc, std::string msg, ExitCode code,
                       std::optional<std::string> upstream = {},
                       Frame frame = Frame::by_code) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(msg);
  d.code = code;
  d.upstream = std::move(upstream);
  d.frame = frame;
  throw Error(std::move(d));
}

class Writer : public RestoreWriter {
public:
  Writer(const RestoreConfig &cfg, const BlockSource *block)
      : cfg_(cfg), tc_(iptc_of(cfg.family)), block_(block),
        verbose_(cfg.verbose && !cfg.noflush) {}
  ~Writer() override { release(); }

  void begin(const std::string &table, const Location &loc) override {
    release();
    table_ = table;
    loc_ = loc;
    if (!cfg_.no_lock)
      lock_ = std::make_unique<XtablesLock>(cfg_.wait);
    // A whole table is replaced: build it directly while the block allows.
    if (!cfg_.noflush)
      image_ = TableImage::open(cfg_.family, table);
    if (image_ == nullptr) {
      open_handle(loc, true);
      return;
    }
    for (const auto &[c, builtin] : image_->old_chains())
      say("Flushing", c);
    for (const auto &[c, builtin] : image_->old_chains())
      if (!builtin)
        say("Deleting", c);
  }

  void declare(ChainDecl &&d) override {
    if (image_ != nullptr) {
      xt_counters count{};
      if (cfg_.counters) {
        count.pcnt = d.packets;
        count.bcnt = d.bytes;
      }
      if (d.builtin
              ? d.policy == "-" || image_->set_policy(d.name, d.policy, &count)
              : d.policy == "-" && image_->create_chain(d.name))
        return;
      hand_over();
    }
    if (!d.builtin) {
      // iptables-legacy-restore refuses a chain line it cannot carry out
      // as a parameter problem (status 2), unlike a failing command.
      const bool flush = cfg_.noflush && tc_.is_chain(d.name.c_str(), h_);
      if (!(flush ? tc_.flush(d.name.c_str(), h_)
                  : tc_.create(d.name.c_str(), h_)))
        fail(d.loc,
             std::string(flush ? "error flushing chain '"
                               : "error creating chain '") +
                 d.name + "':" + strerror(errno),
             ExitCode::parameter);
    }
    if (d.policy == "-")
      return;
    xt_counters count{};
    if (cfg_.counters) {
      count.pcnt = d.packets;
      count.bcnt = d.bytes;
    }
    if (!tc_.set_policy(d.name.c_str(), d.policy.c_str(), &count, h_)) {
      const char *why = tc_.strerror(errno);
      fail(d.loc,
           "Can't set policy `" + d.policy + "' on `" + d.name + "': " + why,
           ExitCode::format,
           "Can't set policy `" + d.policy + "' on `" + d.name + "' line " +
               std::to_string(d.loc.line) + ": " + why,
           Frame::tool);
    }
  }

  void command(Command &&cmd) override {
    const char *chain = cmd.chain.c_str();
    for (auto &r : cmd.rules)
      prefer_chain(r);
    if (image_ != nullptr && cmd.kind != CommandKind::append) {
      if (direct(cmd))
        return;
      hand_over();
    }
    switch (cmd.kind) {
    case CommandKind::append:
    case CommandKind::insert:
    case CommandKind::replace:
      for (const auto &r : cmd.rules) {
        check_jump(r);
        if (verbose_)
          print_rule_verbose(r, cfg_.family, true);
        auto e = build_entry(r, cfg_.family);
        if (image_ != nullptr) {
          if (image_->append(cmd.chain, e.data(), e.size()))
            continue;
          hand_over();
        }
        int ok = cmd.kind == CommandKind::append
                     ? tc_.append(chain, e.data(), h_)
                 : cmd.kind == CommandKind::insert
                     ? tc_.insert(chain, e.data(), cmd.rulenum - 1, h_)
                     : tc_.replace(chain, e.data(), cmd.rulenum - 1, h_);
        check(ok, cmd.loc);
      }
      break;
    case CommandKind::remove:
    case CommandKind::check:
      for (const auto &r : cmd.rules) {
        check_jump(r);
        std::vector<unsigned char> mask;
        if (verbose_)
          print_rule_verbose(r, cfg_.family, true);
        auto e = build_entry(r, cfg_.family, &mask);
        check(cmd.kind == CommandKind::remove
                  ? tc_.delete_entry(chain, e.data(), mask.data(), h_)
                  : tc_.check(chain, e.data(), mask.data(), h_),
              cmd.loc);
      }
      break;
    case CommandKind::remove_num:
      check(tc_.delete_num(chain, cmd.rulenum - 1, h_), cmd.loc);
      break;
    case CommandKind::zero:
      if (cmd.rulenum > 0) { // -Z CHAIN N (libiptc counts from 1)
        check(tc_.zero_rule(chain, cmd.rulenum, h_), cmd.loc);
        break;
      }
      [[fallthrough]];
    case CommandKind::flush: {
      auto op = cmd.kind == CommandKind::flush ? tc_.flush : tc_.zero;
      const char *verb =
          cmd.kind == CommandKind::flush ? "Flushing" : "Zeroing";
      if (!cmd.chain.empty()) {
        say(verb, cmd.chain);
        check(op(chain, h_), cmd.loc);
        break;
      }
      for (const auto &c : chains()) {
        say(verb, c);
        check(op(c.c_str(), h_), cmd.loc);
      }
      break;
    }
    case CommandKind::new_chain:
      check(tc_.create(chain, h_), cmd.loc);
      break;
    case CommandKind::delete_chain:
      if (!cmd.chain.empty()) {
        say("Deleting", cmd.chain);
        check(tc_.remove(chain, h_), cmd.loc);
        break;
      }
      for (const auto &c : chains())
        if (!tc_.builtin(c.c_str(), h_)) {
          say("Deleting", c);
          check(tc_.remove(c.c_str(), h_), cmd.loc);
        }
      break;
    case CommandKind::rename_chain:
      check(tc_.rename(chain, cmd.arg.c_str(), h_), cmd.loc);
      break;
    case CommandKind::policy:
      check(tc_.set_policy(chain, cmd.arg.c_str(), nullptr, h_), cmd.loc);
      break;
    case CommandKind::none:
      break;
    }
  }

  // The commonest append goes straight into the image; whatever the image
  // cannot take there (or -v, which prints the rule) takes the general way.
  void append_basic(const BasicAppend &a) override {
    if (image_ != nullptr && !verbose_ && image_->append_basic(a))
      return;
    command(to_command(a));
  }

  BlockOutcome end_block(const Location &loc) override {
    // One IPT_SO_SET_REPLACE for the whole table.
    int err = 0;
    const char *why = nullptr;
    if (cfg_.test) {
    } else if (image_ != nullptr) {
      err = image_->commit(); // times its own setsockopt calls
      why = err ? commit_strerror(err) : nullptr;
    } else {
      PhaseTimer timer(phase_stats().kernel_s);
      if (!tc_.commit(h_)) {
        err = errno;
        why = tc_.strerror(err);
      }
    }
    if (why != nullptr) {
      release();
      std::string msg =
          std::string("kernel refused table ") + table_ + ": " + why;
      // x_tables does not say which rule it refused; find it by loading
      // growing prefixes of the block in a private namespace.
      const int line = !cfg_.noflush && block_ != nullptr
                           ? locate_refused_line(cfg_, *block_)
                           : 0;
      if (line > 0) {
        const std::string source = block_->line(line);
        // A match or target no module provides: name it.
        const std::string missing =
            err == ENOENT ? missing_extension(source, cfg_.family) : "";
        if (!missing.empty())
          msg += ": " + missing;
        fail(Location{line, 0, 0}, msg, ExitCode::format, "");
      }
      fail(loc, msg, ExitCode::format, "");
    }
    release();
    return BlockOutcome::done;
  }

private:
  // Reads the table into libiptc; without --noflush empties it as
  // iptables-legacy-restore does (flush every chain, delete user chains),
  // naming each chain with -v unless `announce` is false.
  void open_handle(const Location &loc, bool announce) {
    h_ = tc_.init(table_.c_str());
    if (h_ == nullptr)
      fail(loc,
           "can't initialize " +
               std::string(cfg_.family == Family::ipv4 ? "iptables"
                                                       : "ip6tables") +
               " table `" + table_ + "': " + tc_.strerror(errno),
           ExitCode::format);
    if (cfg_.noflush)
      return;
    for (const auto &c : chains()) {
      if (announce)
        say("Flushing", c);
      tc_.flush(c.c_str(), h_);
    }
    for (const auto &c : chains())
      if (!tc_.builtin(c.c_str(), h_)) {
        if (announce)
          say("Deleting", c);
        check(tc_.remove(c.c_str(), h_), loc);
      }
  }

  // Whether the direct image took `cmd` (-N or -P; the rules of -A are
  // added one by one in command()). Anything else goes through libiptc.
  bool direct(const Command &cmd) {
    switch (cmd.kind) {
    case CommandKind::new_chain:
      return image_->create_chain(cmd.chain);
    case CommandKind::policy:
      return image_->set_policy(cmd.chain, cmd.arg, nullptr);
    default:
      return false;
    }
  }

  // Moves the block built so far into libiptc, which carries on with it.
  void hand_over() {
    auto image = std::move(image_);
    open_handle(loc_, false);
    TableImage::Replay to;
    to.create = [this](const char *c) { return tc_.create(c, h_) != 0; };
    to.policy = [this](const char *c, const char *p, xt_counters *n) {
      return tc_.set_policy(c, p, n, h_) != 0;
    };
    to.append = [this](const char *c, const void *e) {
      return tc_.append(c, e, h_) != 0;
    };
    if (!image->replay(to))
      fail(loc_, std::string("failed: ") + tc_.strerror(errno),
           ExitCode::format, "");
  }

  // -v without --noflush: iptables-legacy-restore passes -v to each
  // command, which names every chain it flushes, zeroes or deletes.
  void say(const char *verb, const std::string &chain) {
    if (verbose_)
      printf("%s chain `%s'\n", verb, chain.c_str());
  }

  std::vector<std::string> chains() {
    std::vector<std::string> out;
    for (const char *c = tc_.first_chain(h_); c; c = tc_.next_chain(h_))
      out.emplace_back(c);
    return out;
  }

  bool is_chain(const std::string &name) {
    return image_ != nullptr ? image_->is_chain(name)
                             : tc_.is_chain(name.c_str(), h_) != 0;
  }

  // iptables-legacy takes -j NAME for the table's chain of that name even
  // where a target extension has the name too: it says so and drops the
  // target's options.
  void prefer_chain(Rule &r) {
    if (!r.target || r.verdict != Verdict::target || !is_chain(r.target->name))
      return;
    fprintf(stderr, "Warning: using chain %s, not extension\n",
            r.target->name.c_str());
    r.verdict = Verdict::jump;
    r.jump_chain = r.target->name;
    r.target.reset();
  }

  // iptables-legacy refuses a jump to a name that is neither a chain nor a
  // target extension while parsing (status 2); a goto, which it never
  // takes for a target, to anything but a chain.
  void check_jump(const Rule &r) {
    if ((r.verdict != Verdict::jump && r.verdict != Verdict::go) ||
        is_chain(r.jump_chain))
      return;
    const std::string msg = r.verdict == Verdict::go
                                ? "goto '" + r.jump_chain + "' is not a chain"
                                : "Couldn't load target `" + r.jump_chain +
                                      "':No such file or directory";
    // (iptables' "Couldn't load" ends in a newline of its own.)
    fail(r.loc, msg, ExitCode::parameter,
         r.verdict == Verdict::go ? msg : msg + "\n");
  }

  // iptables-legacy-restore reports a refused operation as "line N failed".
  void check(int ok, const Location &loc) {
    if (!ok)
      fail(loc, std::string("failed: ") + tc_.strerror(errno), ExitCode::format,
           "");
  }

  void release() {
    image_.reset();
    if (h_ != nullptr)
      tc_.free(h_);
    h_ = nullptr;
    lock_.reset();
  }

  const RestoreConfig &cfg_;
  const Iptc &tc_;
  std::string table_;
  Location loc_;
  xtc_handle *h_ = nullptr;
  std::unique_ptr<TableImage> image_;
  std::unique_ptr<XtablesLock> lock_;
  const BlockSource *block_;
  bool verbose_;
};

} // namespace

std::unique_ptr<RestoreWriter> make_restore_writer(const RestoreConfig &cfg,
                                                   const BlockSource *block) {
  return std::make_unique<Writer>(cfg, block);
}

} // namespace fastrestore::legacy
