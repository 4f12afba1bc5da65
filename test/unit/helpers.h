// Shared helpers for unit tests: parse rule lines through libxtables with
// every revision assumed supported (no kernel needed), lower them, and
// render the nf_tables expressions as libnftnl prints them.
#pragma once

#include <string>
#include <vector>

#include "check/plan.h"
#include "fastrestore/ir.h"
#include "fastrestore/restore_options.h"
#include "nft/nft_transport.h"
#include "parse/xt_parser.h"

namespace fastrestore::test {

// The XtParser shared by all tests of one family (libxtables is global).
XtParser &xt_parser(Family family);
// The same made anew: without the chains an earlier restore announced
// (a declared chain shadows a target of its name).
XtParser &fresh_xt_parser(Family family);
// For a test that announces chains: the shared parser made anew now and
// again when it ends, so that no other test sees them.
class ParserOfItsOwn {
public:
  explicit ParserOfItsOwn(Family family) : family_(family) {}
  ~ParserOfItsOwn() { fresh_xt_parser(family_); }
  XtParser &get() { return fresh_xt_parser(family_); }

private:
  Family family_;
};

// Parses one rule line (without counters) for `table`.
Command parse_line(const std::string &line, Family family = Family::ipv4,
                   const std::string &table = "filter");

// The expressions of the first rule of `line`, one "[ ... ]" per line.
std::string render_rule(const std::string &line, Family family = Family::ipv4,
                        const std::string &table = "filter");

// A replace plan of the filter table: INPUT (line 2) with the rule
// "-A INPUT -j ACCEPT" (line 3).
Plan one_rule_plan();

// The diagnostic a line produces (empty when it parses).
Diagnostic parse_error(const std::string &line, Family family = Family::ipv4,
                       const std::string &table = "filter");

// The filter table as a kernel holds it, reached through KernelAccess:
// INPUT, FORWARD and OUTPUT, then `user`. `reads` (when given) counts the
// table's reads.
KernelAccess kernel_with(const KernelChain &user, int *reads = nullptr);

// A fresh --incremental journal directory (FASTRESTORE_JOURNAL_DIR) for
// the test's life, removed after it.
struct JournalDir {
  std::string path;
  JournalDir();
  ~JournalDir();
};

// A file descriptor reading `text` from its start (a memfd).
int input_fd(const std::string &text);

// run_restore of `text` into `transport`; its messages go to *err.
int restore_text(nft::Transport &transport, const std::string &text,
                 const RestoreConfig &cfg, std::string *err);

} // namespace fastrestore::test
