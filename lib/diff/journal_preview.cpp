// load_preview.h's first way: the input parsed as a restore with --test
// would parse it, each table's batch compared with the journal's record
// (journal_changes.h), and both sides printed in save form from the
// batch's messages and the few chains read from the kernel.
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

#include "fastrestore/diagnostic.h"
#include "fastrestore/load_preview.h"
#include "fastrestore/restore.h"
#include "fastrestore/text_save.h"
#include "fastrestore/unified_diff.h"
#include "incremental/journal_changes.h"

namespace fastrestore {
namespace {

// The text of line n of `input` ("" when it has none).
std::string line_of(const std::vector<std::string_view> &lines, int n) {
  if (n < 1 || static_cast<size_t>(n) > lines.size())
    return {};
  std::string_view l = lines[n - 1];
  if (!l.empty() && l.back() == '\n')
    l.remove_suffix(1);
  return std::string(l);
}

} // namespace

std::optional<LoadPreview> journal_preview(std::string_view input,
                                           const RestoreConfig &cfg,
                                           std::string *why) {
  if (cfg.backend != Backend::nft || cfg.family == Family::bridge ||
      cfg.noflush || cfg.counters || cfg.optimize) {
    *why = cfg.counters   ? "counters are not in the journal"
           : cfg.noflush  ? "--noflush input adds to what the journal "
                            "does not hold as text"
           : cfg.optimize ? "--optimize loads are not in the journal"
                          : "the journal is not kept for these tables";
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::unique_ptr<nft::Batch>>> batches;
  const nft::BatchObserver take = [&](const std::string &table,
                                      std::unique_ptr<nft::Batch> batch) {
    batches.emplace_back(table, std::move(batch));
  };
  const RestoreConfig test = preview_config(cfg, true);
  LoadPreview out;
  std::ostringstream errors;
  const int parsed = run_restore_text(input, test, nullptr, errors, &take);
  if (parsed < 0) {
    *why = "the input could not be held in memory";
    return std::nullopt;
  }
  if (parsed != 0) {
    std::cerr << errors.str();
    out.status = parsed;
    return out;
  }
  for (size_t i = 0; i < batches.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (batches[k].first == batches[i].first) {
        *why = "the input loads table `" + batches[i].first + "' twice";
        return std::nullopt;
      }
  try {
    std::unique_ptr<nft::Transport> transport = nft::make_netlink_transport();
    std::vector<nft::JournalChanges> changes;
    for (const auto &[table, batch] : batches) {
      std::optional<nft::JournalChanges> c =
          nft::journal_changes(*batch, table, cfg.family, *transport, why);
      if (!c)
        return std::nullopt;
      changes.push_back(std::move(*c));
    }
    // Nothing changes: nothing to print. Otherwise every table prints,
    // the ones that stay the same too (their lines are the diff's context).
    bool any = false;
    for (const nft::JournalChanges &c : changes)
      any = any || c.changes;
    TextSaveOptions opts;
    opts.family = cfg.family;
    for (nft::JournalChanges &c : changes) {
      TableTexts &t = out.tables.emplace_back();
      t.table = c.after.name;
      if (!any)
        continue;
      // The chains the load leaves as they are print once, for both sides.
      ChainTexts texts;
      std::string error;
      int rc = table_save_text(opts, c.after, t.after, &error, &texts);
      for (const std::string &chain : c.changed)
        texts.erase(chain);
      if (rc == 0 && c.changes)
        rc = table_save_text(opts, c.before, t.before, &error, &texts);
      else
        t.before = t.after;
      if (rc != 0) {
        out.status = 2;
        out.error = "cannot print table `" + t.table + "': " + error;
        return out;
      }
    }
  } catch (const Error &e) {
    const std::vector<std::string_view> lines = split_lines(input);
    print_restore_error(
        e, [&](int n) { return line_of(lines, n); }, cfg, std::cerr);
    out.status = static_cast<int>(e.diag().code);
    out.tables.clear();
    return out;
  }
  return out;
}

} // namespace fastrestore
