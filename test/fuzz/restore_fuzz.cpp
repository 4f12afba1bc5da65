// libFuzzer target: iptables-restore text through everything before the
// kernel. The input's first byte picks the family (bit 0: IPv6), -c
// (bit 1) and whether lines come with a scan made ahead of their turn, as
// the reading thread makes them (bit 2); the rest is the file. Every block that
// parses is planned and built into an nf_tables batch, as a restore without
// --noflush does.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "check/plan.h"
#include "fastrestore/diagnostic.h"
#include "nft/nft_backend.h"
#include "parse/restore_parser.h"
#include "parse/xt_parser.h"

#include "parse/fast_rule.h"

using namespace fastrestore;

namespace {

class AllRevisions : public RevisionProbe {
public:
  bool supported(const char *, uint8_t, int) override { return true; }
};

// libxtables is process-global: one parser per family, made on first use
// and kept while inputs keep to that family.
XtParser &parser(Family family) {
  static std::unique_ptr<XtParser> p;
  if (!p || p->family() != family) {
    p.reset();
    p = std::make_unique<XtParser>(family, std::make_unique<AllRevisions>());
  }
  return *p;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const Family family = (data[0] & 1) ? Family::ipv6 : Family::ipv4;
  ParseOptions opts;
  opts.counters = (data[0] & 2) != 0;
  const bool prescan = (data[0] & 4) != 0;
  std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
  BlockCollector sink([&](Block &&b) {
    Plan plan = plan_block(b, false, opts.counters);
    nft::build_batch(plan, family);
  });
  try {
    RestoreParser p(parser(family), opts, sink);
    int n = 0;
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      // As PreScanner: lines starting with '-', without a NUL.
      BasicAppend scan;
      const bool scanned = prescan && !line.empty() && line[0] == '-' &&
                           line.find('\0') == std::string_view::npos &&
                           FastRuleParser::prescan(family, line, scan);
      p.feed(line, ++n, scanned ? &scan : nullptr);
      text = nl == std::string_view::npos ? std::string_view{}
                                          : text.substr(nl + 1);
    }
    p.finish(n);
  } catch (const Error &) {
    // Refused input is the expected outcome for most inputs.
  }
  return 0;
}
