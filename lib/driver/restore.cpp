#include "fastrestore/restore.h"

#include <ostream>

#include "fastrestore/nft_backend.h"
#include "fastrestore/plan.h"
#include "fastrestore/restore_parser.h"
#include "fastrestore/xt_parser.h"
#include "line_reader.h"

namespace fastrestore {
namespace {

// The text of the current block's lines, kept so an error found at COMMIT
// (by the checks or the kernel) can show the line it names.
class BlockText {
public:
  void reset(int first_line) {
    first_ = first_line;
    text_.clear();
    ends_.clear();
  }
  void add(int lineno, std::string_view line) {
    if (ends_.empty())
      first_ = lineno;
    while (first_ + static_cast<int>(ends_.size()) < lineno)
      ends_.push_back(text_.size()); // skipped lines stay empty
    text_.append(line);
    ends_.push_back(text_.size());
  }
  std::string line(int lineno) const {
    int i = lineno - first_;
    if (i < 0 || i >= static_cast<int>(ends_.size()))
      return {};
    size_t b = i == 0 ? 0 : ends_[i - 1];
    return text_.substr(b, ends_[i] - b);
  }

private:
  int first_ = 0;
  std::string text_;
  std::vector<size_t> ends_;
};

void print_error(const Error &e, const BlockText &text,
                 const RestoreConfig &cfg, std::ostream &err) {
  auto show = [&](Diagnostic d) {
    if (d.source.empty() && d.loc.line > 0)
      d.source = text.line(d.loc.line);
    err << format_diagnostic(d, cfg.input_name);
  };
  show(e.diag());
  for (const auto &d : e.more())
    show(d);
}

} // namespace

int run_restore(int fd, const RestoreConfig &cfg, nft::Transport *transport,
                std::ostream &out, std::ostream &err, RestoreStats *stats) {
  RestoreStats local;
  RestoreStats &st = stats ? *stats : local;
  BlockText text;
  try {
    XtParser xt(cfg.family, make_netlink_revision_probe());
    ParseOptions popts{cfg.counters, cfg.table};
    RestoreParser parser(xt, popts, [&](Block &&block) {
      Plan plan = plan_block(block, cfg.noflush, cfg.counters);
      auto batch = nft::build_batch(plan, cfg.family);
      if (!cfg.test)
        nft::commit_batch(*batch, *transport);
      st.blocks++;
      st.bytes_sent += cfg.test ? 0 : batch->size();
      uint64_t rules = 0;
      for (const auto &c : plan.chains)
        rules += c.rules.size();
      for (const auto &op : plan.ops)
        rules +=
            op.kind == OpKind::rule_append || op.kind == OpKind::rule_insert;
      st.rules += rules;
      if (cfg.verbose)
        out << "# " << (cfg.test ? "checked" : "committed") << " table "
            << plan.table << ": " << rules << " rules, " << batch->messages()
            << " messages, " << batch->size() << " bytes\n";
    });
    LineReader reader(fd);
    std::string_view line;
    int lineno = 0;
    while (reader.next(line)) {
      ++lineno;
      if (!parser.in_table())
        text.reset(lineno);
      text.add(lineno, line);
      parser.feed(line, lineno);
    }
    parser.finish(lineno);
  } catch (const Error &e) {
    print_error(e, text, cfg, err);
    return static_cast<int>(e.diag().code);
  }
  return 0;
}

} // namespace fastrestore
