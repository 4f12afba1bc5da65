#include "fastrestore/text_save.h"

#include <cstdio>
#include <string>

#include "capture.h"
#include "expand.h"
#include "fastrestore/diagnostic.h"
#include "save.h"
#include "xtables/plugin_failure.h"

namespace fastrestore {

namespace {

// The save into memory, its set rules expanded, then printed.
int save_expanded(const TextSaveOptions &opts) {
  TextSaveOptions plain = opts;
  plain.expand = false;
  std::string text;
  int rc;
  {
    save::Capture capture;
    rc = plain.backend == Backend::legacy ? save::save_legacy(plain)
                                          : save::save_nft(plain);
    capture.finish(&text);
  }
  std::string error;
  const std::string expanded =
      save::expand_sets(text, opts.family, opts.counters, &error);
  if (!error.empty()) {
    fprintf(stderr, "fastrestore save: --expand: %s\n", error.c_str());
    return 1;
  }
  fwrite(expanded.data(), 1, expanded.size(), stdout);
  fflush(stdout);
  return rc;
}

} // namespace

int text_save(const TextSaveOptions &opts) {
  // The plugins print with stdio: one large buffer instead of a write per
  // 4 KiB.
  static char buf[1 << 20];
  setvbuf(stdout, buf, _IOFBF, sizeof(buf));
  try {
    if (opts.expand)
      return save_expanded(opts);
    if (opts.backend == Backend::legacy)
      return save::save_legacy(opts);
    return save::save_nft(opts);
  } catch (const Error &e) {
    fflush(stdout);
    fprintf(stderr, "fastrestore save: %s\n", e.diag().message.c_str());
    return e.diag().code == ExitCode::ok ? 1 : static_cast<int>(e.diag().code);
  } catch (const PluginFailure &f) {
    // A plugin refused to print what the kernel holds (iptables-save
    // exits the same way).
    fflush(stdout);
    fprintf(stderr, "fastrestore save: %s\n", f.message.c_str());
    return static_cast<int>(f.status);
  }
}

int table_save_text(const TextSaveOptions &opts, KernelTable &table,
                    std::string &out, std::string *error, ChainTexts *texts) {
  try {
    const std::vector<std::string> errors =
        save::save_nft_given(opts, table, out, texts);
    if (errors.empty())
      return 0;
    *error = errors.front() + " (Parsing nftables rule failed)";
    return 3;
  } catch (const Error &e) {
    *error = e.diag().message;
    return e.diag().code == ExitCode::ok ? 1 : static_cast<int>(e.diag().code);
  } catch (const PluginFailure &f) {
    fflush(stdout);
    *error = f.message;
    return static_cast<int>(f.status);
  }
}

} // namespace fastrestore
