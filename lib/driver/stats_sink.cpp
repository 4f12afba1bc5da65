#include "stats_sink.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "diag/json.h"

namespace fastrestore {

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void StatsSink::begin(const std::string &table, const Location &loc) {
  table_ = table;
  loc_ = loc;
  phase_stats().incremental = nullptr;
  phase_stats().state_source = nullptr;
  phase_stats().journal_note.clear();
  before_ = phase_stats();
  open_ = true;
  writer_s_ = 0;
  start_ = std::chrono::steady_clock::now();
  PhaseTimer t(writer_s_);
  inner_.begin(table, loc);
}

void StatsSink::declare(ChainDecl &&decl) {
  PhaseTimer t(writer_s_);
  inner_.declare(std::move(decl));
}

void StatsSink::command(Command &&cmd) {
  phase_stats().rules += cmd.rules.size();
  PhaseTimer t(writer_s_);
  inner_.command(std::move(cmd));
}

void StatsSink::append_basic(const BasicAppend &a) {
  ++phase_stats().rules;
  PhaseTimer t(writer_s_);
  inner_.append_basic(a);
}

void StatsSink::commit(const Location &loc) {
  try {
    PhaseTimer t(writer_s_);
    inner_.commit(loc);
  } catch (const Error &e) {
    report(loc, "failed", &e.diag());
    throw;
  }
  if (ending_ == Ending::held && json_)
    held_.push_back({table_, loc_.line, loc.line});
  report(loc,
         ending_ == Ending::held     ? "held"
         : ending_ == Ending::tested ? "tested"
                                     : "sent",
         nullptr);
}

void StatsSink::failed(const Diagnostic &d) {
  if (open_) {
    report(d.loc.line > 0 ? d.loc : loc_, "failed", &d);
    return;
  }
  const auto named = std::find_if(held_.begin(), held_.end(), [&](auto &h) {
    return h.first_line <= d.loc.line && d.loc.line <= h.last_line;
  });
  if (named == held_.end())
    return;
  JsonObject o;
  o.text("table", named->table)
      .number("first_line", static_cast<uint64_t>(named->first_line))
      .number("last_line", static_cast<uint64_t>(named->last_line))
      .text("status", "failed")
      .number("exit_status", static_cast<uint64_t>(d.code))
      .text("error", d.message);
  out_ << o.str() << "\n" << std::flush;
}

void StatsSink::report(const Location &end, const char *status,
                       const Diagnostic *d) {
  if (!open_)
    return;
  open_ = false;
  const PhaseStats &now = phase_stats();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const double ext = now.extensions_s - before_.extensions_s;
  const double kernel = now.kernel_s - before_.kernel_s;
  // The writer's time less the kernel's is building the batch; the rest of
  // the block's time is reading and splitting the lines.
  const double batch = std::max(0.0, writer_s_ - kernel);
  const double read = std::max(0.0, total - ext - writer_s_);
  const uint64_t rules = now.rules - before_.rules;
  const uint64_t bytes = now.bytes - before_.bytes;
  if (json_) {
    JsonObject o;
    o.text("table", table_)
        .number("first_line", static_cast<uint64_t>(loc_.line))
        .number("last_line", static_cast<uint64_t>(end.line))
        .text("status", status)
        .number("rules", rules)
        .number("bytes", bytes)
        .real("read_ms", 1e3 * read, 3)
        .real("extensions_ms", 1e3 * ext, 3)
        .real("batch_ms", 1e3 * batch, 3)
        .real("kernel_ms", 1e3 * kernel, 3)
        .real("total_ms", 1e3 * total, 3)
        .number("peak_rss_kib", static_cast<uint64_t>(peak_rss_kb()));
    if (now.incremental != nullptr)
      o.text("incremental", now.incremental)
          .number("kept", now.kept)
          .number("added", now.added)
          .number("removed", now.removed)
          .number("unparsed", now.unparsed - before_.unparsed);
    if (now.state_source != nullptr)
      o.text("kernel_state_from", now.state_source);
    if (!now.journal_note.empty())
      o.text("journal", now.journal_note);
    if (d != nullptr)
      o.number("exit_status", static_cast<uint64_t>(d->code))
          .text("error", d->message);
    out_ << o.str() << "\n" << std::flush;
    return;
  }
  if (d != nullptr)
    return; // the error itself says what happened
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "fastrestore: stats: *%s (lines %d-%d): %llu rules; read and "
                "parse %.3f ms, extensions %.3f ms, batch %.3f ms, kernel "
                "%.3f ms, total %.3f ms; %llu bytes sent; peak RSS %ld KiB\n",
                table_.c_str(), loc_.line, end.line,
                static_cast<unsigned long long>(rules), 1e3 * read, 1e3 * ext,
                1e3 * batch, 1e3 * kernel, 1e3 * total,
                static_cast<unsigned long long>(bytes), peak_rss_kb());
  out_ << buf;
  if (now.incremental != nullptr)
    out_ << "fastrestore: stats: *" << table_ << ": incremental, "
         << now.incremental << ": " << now.kept << " rules kept, " << now.added
         << " added, " << now.removed << " removed, "
         << now.unparsed - before_.unparsed << " lines unparsed"
         << (now.state_source ? "; kernel state from " : "")
         << (now.state_source ? now.state_source : "")
         << (now.journal_note.empty() ? "" : "; journal: ") << now.journal_note
         << "\n";
  out_ << std::flush;
}

} // namespace fastrestore
