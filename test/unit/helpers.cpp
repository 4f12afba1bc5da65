#include "helpers.h"

#include <cstdio>
#include <libnftnl/rule.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <sys/mman.h>
#include <unistd.h>

#include "fastrestore/restore.h"
#include "fastrestore/tables.h"
#include "lex/lexer.h"
#include "nft/nft_rule.h"

namespace fastrestore::test {
namespace {

class AllRevisions : public RevisionProbe {
public:
  bool supported(const char *, uint8_t, int) override { return true; }
};

} // namespace

namespace {

std::unique_ptr<XtParser> &shared_parser() {
  static std::unique_ptr<XtParser> parser;
  return parser;
}

} // namespace

XtParser &xt_parser(Family family) {
  auto &parser = shared_parser();
  if (!parser || parser->family() != family) {
    parser.reset();
    parser =
        std::make_unique<XtParser>(family, std::make_unique<AllRevisions>());
  }
  return *parser;
}

XtParser &fresh_xt_parser(Family family) {
  shared_parser().reset();
  return xt_parser(family);
}

Command parse_line(const std::string &line, Family family,
                   const std::string &table) {
  LexResult lex = split_words(line);
  return xt_parser(family).parse(lex.tokens, table, 1, line, nullptr);
}

std::string render_rule(const std::string &line, Family family,
                        const std::string &table) {
  Command cmd = parse_line(line, family, table);
  if (cmd.rules.empty())
    return "<no rule>";
  // Render what would be sent: parse the encoded message back with
  // libnftnl and print it.
  std::string msg =
      nft::rule_message(cmd.rules.front(), family, table, cmd.chain);
  nftnl_rule *r = nftnl_rule_alloc();
  nftnl_rule_nlmsg_parse(reinterpret_cast<const nlmsghdr *>(msg.data()), r);
  char buf[8192];
  nftnl_rule_snprintf(buf, sizeof(buf), r, NFTNL_OUTPUT_DEFAULT, 0);
  nftnl_rule_free(r);
  // Keep only the expressions, one per line.
  std::string text(buf), out;
  size_t pos = 0;
  while ((pos = text.find("  [ ", pos)) != std::string::npos) {
    size_t end = text.find(" ]", pos);
    out += text.substr(pos + 2, end + 2 - pos - 2) + "\n";
    pos = end;
  }
  return out;
}

KernelAccess kernel_with(const KernelChain &user, int *reads) {
  KernelAccess k;
  auto t = std::make_shared<KernelTable>();
  t->exists = true;
  for (const char *n : {"INPUT", "FORWARD", "OUTPUT"}) {
    KernelChain c;
    c.name = n;
    c.base = true;
    t->chains.push_back(c);
  }
  t->chains.push_back(user);
  k.read = [=]() -> const KernelTable & {
    if (reads != nullptr)
      ++*reads;
    return *t;
  };
  k.chain_exists = [name = user.name](const std::string &chain) {
    return chain == name || chain == "INPUT" || chain == "FORWARD" ||
           chain == "OUTPUT";
  };
  return k;
}

int input_fd(const std::string &text) {
  int fd = memfd_create("input", 0);
  if (fd < 0 ||
      write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("input_fd: no memfd");
  lseek(fd, 0, SEEK_SET);
  return fd;
}

JournalDir::JournalDir() {
  char t[] = "/tmp/fastrestore-journal-test-XXXXXX";
  path = mkdtemp(t);
  setenv("FASTRESTORE_JOURNAL_DIR", path.c_str(), 1);
}

JournalDir::~JournalDir() {
  unsetenv("FASTRESTORE_JOURNAL_DIR");
  std::filesystem::remove_all(path);
}

int restore_text(nft::Transport &transport, const std::string &text,
                 const RestoreConfig &cfg, std::string *err) {
  const int fd = input_fd(text);
  std::ostringstream out;
  const int rc = run_restore(fd, cfg, &transport, out);
  close(fd);
  *err = out.str();
  return rc;
}

Diagnostic parse_error(const std::string &line, Family family,
                       const std::string &table) {
  try {
    parse_line(line, family, table);
  } catch (const Error &e) {
    return e.diag();
  }
  return {};
}

Plan one_rule_plan() {
  Plan p;
  p.table = "filter";
  p.loc.line = 1;
  p.replace = true;
  PlannedChain in;
  in.name = "INPUT";
  in.loc.line = 2;
  in.builtin = find_builtin_chain(*find_builtin_table("filter"), "INPUT");
  Command c = parse_line("-A INPUT -j ACCEPT");
  c.rules[0].loc.line = 3;
  in.rules = c.rules;
  p.chains.push_back(in);
  return p;
}

} // namespace fastrestore::test
