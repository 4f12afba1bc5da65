#include "fastrestore/restore.h"

#include <cerrno>
#include <cstdio>
#include <functional>
#include <ostream>
#include <system_error>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_committer.h"
#include "block_text.h"
#include "fastrestore/eb_parser.h"
#include "legacy/legacy.h"
#include "line_reader.h"
#include "load_watch.h"
#include "nft_writer/nft_writer.h"
#include "optimize/optimize_sink.h"
#include "parse/block_source.h"
#include "parse/restore_parser.h"
#include "parse/restore_writer.h"
#include "parse/xt_parser.h"
#include "prescan.h"
#include "reparse.h"
#include "stats_sink.h"
#include "xtables/plugin_failure.h"

namespace fastrestore {
namespace {

// The block being read (BlockText), read again through the parser.
class TextSource : public BlockSource {
public:
  TextSource(const BlockText &text, RuleParser &xt, const RestoreConfig &cfg)
      : text_(text), xt_(xt), opts_{cfg.counters,
                                    {},
                                    false,
                                    cfg.family == Family::bridge,
                                    cfg.backend == Backend::legacy} {}

  int first() const override { return text_.first(); }
  int count() const override { return text_.count(); }
  std::string line(int n) const override { return text_.line(n); }
  void
  each(int from, int to,
       const std::function<void(std::string_view, int)> &fn) const override {
    text_.each(from, to, fn);
  }
  void reread(BlockSink &sink) const override {
    // --optimize: the block as it was sent, each run as its set's rule.
    std::unique_ptr<BlockSink> replay =
        optimize_ != nullptr ? optimize_->replay(sink) : nullptr;
    reparse_block(text_, xt_, opts_, replay ? *replay : sink,
                  first() + count() - 1);
  }
  void set_optimize(const OptimizeSink *optimize) { optimize_ = optimize; }
  void reread_prefix(BlockSink &sink, int k) const override {
    reparse_block(text_, xt_, opts_, sink, first() + k, first() + count() - 1);
  }

private:
  const BlockText &text_;
  RuleParser &xt_;
  ParseOptions opts_;
  const OptimizeSink *optimize_ = nullptr;
};

void print_error(const Error &e, const BlockText &text,
                 const RestoreConfig &cfg, std::ostream &err) {
  print_restore_error(
      e, [&](int n) { return text.line(n); }, cfg, err);
}

} // namespace

void print_restore_error(const Error &e,
                         const std::function<std::string(int)> &line,
                         const RestoreConfig &cfg, std::ostream &err) {
  if (!cfg.upstream.name.empty() && cfg.command_line) {
    err << format_upstream_command(e.diag(), cfg.upstream);
    return;
  }
  if (!cfg.upstream.name.empty()) {
    auto with_source = [&](Diagnostic d) {
      if (d.source.empty() && d.loc.line > 0)
        d.source = line(d.loc.line);
      return d;
    };
    std::vector<Diagnostic> more;
    for (const Diagnostic &d : e.more())
      more.push_back(with_source(d));
    err << format_upstream(with_source(e.diag()), more, cfg.upstream);
    return;
  }
  auto show = [&](Diagnostic d) {
    if (cfg.command_line) {
      d.loc = Location{};
      d.source.clear();
      // The command names itself in input_name ("ebtables"), and points
      // to its help after a bad command line, as ebtables does.
      err << cfg.input_name << ": " << d.message << "\n";
      if (d.code == ExitCode::parameter)
        err << "Try `" << cfg.input_name << " -h' or '" << cfg.input_name
            << " --help' for more information.\n";
      return;
    }
    if (d.source.empty() && d.loc.line > 0)
      d.source = line(d.loc.line);
    err << format_diagnostic(d, cfg.input_name);
  };
  show(e.diag());
  for (const auto &d : e.more())
    show(d);
}

namespace {

// An error as the --log line names it: its line, and what it says.
std::string log_text(const Diagnostic &d) {
  return d.loc.line > 0
             ? "line " + std::to_string(d.loc.line) + ": " + d.message
             : d.message;
}

} // namespace

int run_restore(int fd, const RestoreConfig &cfg, nft::Transport *transport,
                std::ostream &err, const nft::BatchObserver *observer) {
  BlockText text;
  // A file's lines can be read again from the file: the block's text need
  // not be kept in a second copy.
  struct stat st {};
  off_t at = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      (at = lseek(fd, 0, SEEK_CUR)) >= 0)
    text.read_from(fd, static_cast<uint64_t>(at));
  std::unique_ptr<RuleParser> parser_of_rules;
  std::unique_ptr<TextSource> source;
  std::unique_ptr<RestoreWriter> writer;
  std::unique_ptr<BlockCommitter> committer;
  std::unique_ptr<OptimizeSink> optimize; // (before the writer goes)
  std::unique_ptr<StatsSink> stats;       // (before the sinks it fronts)
  LoadWatch watch(cfg, err);
  try {
    if (cfg.all_or_nothing && cfg.backend == Backend::legacy) {
      Diagnostic d;
      d.message = "--all-or-nothing needs nf_tables: legacy x_tables "
                  "replaces each table on its own (drop --legacy)";
      d.code = ExitCode::parameter;
      throw Error(std::move(d));
    }
    if (cfg.family == Family::bridge) {
      if (cfg.backend == Backend::legacy) {
        Diagnostic d;
        d.message = "no legacy ebtables here: bridge rules go through "
                    "nf_tables (drop --legacy)";
        d.code = ExitCode::parameter;
        throw Error(std::move(d));
      }
      parser_of_rules = std::make_unique<EbParser>();
    } else {
      auto xt =
          std::make_unique<XtParser>(cfg.family, make_netlink_revision_probe());
      xt->set_listing(cfg.command_line);
      parser_of_rules = std::move(xt);
    }
    RuleParser &xt = *parser_of_rules;
    source = std::make_unique<TextSource>(text, xt, cfg);
    if (cfg.backend == Backend::legacy)
      writer = legacy::make_restore_writer(cfg, source.get());
    else
      writer = nft::make_restore_writer(cfg, transport, *source, err, observer);
    committer = std::make_unique<BlockCommitter>(*writer, *source);
    BlockSink *sink = committer.get();
    // --incremental: the lines the journal knows are taken before the
    // parser sees them (--optimize sees every line: none is taken).
    LineFilter *known = cfg.optimize ? nullptr : writer->line_filter();
    if (cfg.optimize) {
      optimize =
          std::make_unique<OptimizeSink>(*committer, *writer, xt, cfg, err);
      sink = optimize.get();
      source->set_optimize(optimize.get());
    }
    if (cfg.stats) {
      stats = std::make_unique<StatsSink>(*sink, err, cfg.stats_json,
                                          cfg.test ? StatsSink::Ending::tested
                                          : writer->holds_blocks()
                                              ? StatsSink::Ending::held
                                              : StatsSink::Ending::sent);
      sink = stats.get();
    }
    RestoreParser parser(xt,
                         ParseOptions{cfg.counters, cfg.table, cfg.verbose > 0,
                                      cfg.family == Family::bridge,
                                      cfg.backend == Backend::legacy},
                         *sink);
    // iptables input is read and its commonest rules scanned on a second
    // thread, unless --coalesce needs to see when lines arrive, the input
    // is one command of the command line, or it is a file small enough
    // to be read here before a thread would have started (a few hundred
    // rules: starting one costs about 0.4 ms on a slow machine).
    constexpr off_t kSmallFile = 64 << 10;
    struct stat st;
    const bool small_file =
        fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < kSmallFile;
    std::unique_ptr<PreScanner> prescan;
    std::unique_ptr<LineReader> reader;
    if (!writer->holds_blocks() && cfg.family != Family::bridge &&
        !cfg.command_line && !small_file) {
      try {
        prescan = std::make_unique<PreScanner>(fd, cfg.family, cfg.incremental);
      } catch (const std::system_error &) {
        // No second thread to be had: read here.
      }
    }
    if (prescan == nullptr)
      reader = std::make_unique<LineReader>(fd);
    std::string_view line;
    BasicAppend *pre = nullptr;
    const bool watching = watch.on();
    int lineno = 0;
    for (;;) {
      // A group goes out when no further line arrives in time.
      if (const int ms = writer->pause_ms();
          ms >= 0 && !reader->ready_within(ms))
        writer->send_held();
      if (!(prescan ? prescan->next(line, pre) : reader->next(line)))
        break;
      ++lineno;
      if (watching)
        watch.line(line);
      if (parser.ends_table(line)) // ebtables-restore: "*nat" commits too
        parser.next_table(line, lineno);
      if (!parser.in_table())
        text.reset();
      text.add(lineno, line,
               prescan ? prescan->line_offset() : reader->line_offset());
      if (known != nullptr &&
          parser.hand_over(line, lineno, *known,
                           prescan ? prescan->line_hash() : 0))
        continue;
      parser.feed(line, lineno, pre);
    }
    parser.finish(lineno);
    writer->send_held();
  } catch (const Error &e) {
    watch.clear();
    if (stats != nullptr)
      stats->failed(e.diag());
    // The blocks before the failing one go in first, as they would have
    // without --coalesce; if one of them fails, that failure is the one.
    // With --all-or-nothing nothing goes in.
    if (writer != nullptr) {
      try {
        writer->input_failed();
      } catch (const Error &earlier) {
        print_error(earlier, text, cfg, err);
        watch.done(static_cast<int>(earlier.diag().code),
                   log_text(earlier.diag()));
        return static_cast<int>(earlier.diag().code);
      }
    }
    print_error(e, text, cfg, err);
    watch.done(static_cast<int>(e.diag().code), log_text(e.diag()));
    return static_cast<int>(e.diag().code);
  } catch (const PluginFailure &f) {
    // A plugin refused to print a rule (-v), as iptables would exit.
    watch.clear();
    fflush(stdout);
    err << "fastrestore: " << f.message << "\n";
    watch.done(static_cast<int>(f.status), f.message);
    return static_cast<int>(f.status);
  }
  watch.done(0, "");
  return 0;
}

int run_restore_text(std::string_view text, const RestoreConfig &cfg,
                     nft::Transport *transport, std::ostream &err,
                     const nft::BatchObserver *observer) {
  const int fd = memfd_create("fastrestore-input", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int saved = errno;
      close(fd);
      errno = n == 0 ? EIO : saved;
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  const int rc = run_restore(fd, cfg, transport, err, observer);
  close(fd);
  return rc;
}

} // namespace fastrestore
