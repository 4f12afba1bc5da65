#include "stats_sink.h"

#include <sys/resource.h>

#include <cstdio>
#include <ostream>

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
  {
    PhaseTimer t(writer_s_);
    inner_.commit(loc);
  }
  const PhaseStats &now = phase_stats();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const double ext = now.extensions_s - before_.extensions_s;
  const double kernel = now.kernel_s - before_.kernel_s;
  // The writer's time less the kernel's is building the batch; the rest of
  // the block's time is reading and splitting the lines.
  const double batch = writer_s_ - kernel;
  const double read = total - ext - writer_s_;
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "fastrestore: stats: *%s (lines %d-%d): %llu rules; read and "
                "parse %.3f ms, extensions %.3f ms, batch %.3f ms, kernel "
                "%.3f ms, total %.3f ms; %llu bytes sent; peak RSS %ld KiB\n",
                table_.c_str(), loc_.line, loc.line,
                static_cast<unsigned long long>(now.rules - before_.rules),
                1e3 * (read < 0 ? 0 : read), 1e3 * ext,
                1e3 * (batch < 0 ? 0 : batch), 1e3 * kernel, 1e3 * total,
                static_cast<unsigned long long>(now.bytes - before_.bytes),
                peak_rss_kb());
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
