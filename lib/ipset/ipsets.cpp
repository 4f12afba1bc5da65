// ipsets.h through libipset's own command parser: each call runs its
// commands in a session of its own (a session keeps options and messages
// from one command to the next), with its output and errors caught.
#include "fastrestore/ipsets.h"

#include <libipset/ipset.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <memory>

namespace fastrestore::ipset {
namespace {

// What a session printed, and the last error it reported.
struct Caught {
  std::string out;
  std::string error;
};

std::string vformat(const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int n = vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n <= 0)
    return {};
  std::string s(static_cast<size_t>(n) + 1, '\0');
  vsnprintf(s.data(), s.size(), fmt, ap);
  s.resize(static_cast<size_t>(n));
  return s;
}

int print_out(struct ipset_session *, void *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  static_cast<Caught *>(p)->out += vformat(fmt, ap);
  va_end(ap);
  return 0;
}

int custom_error(struct ipset *, void *p, int status, const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  static_cast<Caught *>(p)->error = vformat(msg, ap);
  va_end(ap);
  return status;
}

int standard_error(struct ipset *set, void *p) {
  struct ipset_session *s = ipset_session(set);
  const char *msg = ipset_session_report_msg(s);
  static_cast<Caught *>(p)->error = msg != nullptr ? msg : "ipset failed";
  ipset_session_report_reset(s);
  return -1;
}

struct SessionFree {
  void operator()(struct ipset *s) const { ipset_fini(s); }
};
using Session = std::unique_ptr<struct ipset, SessionFree>;

Session open_session(Caught &caught) {
  static const bool loaded = [] {
    ipset_load_types();
    return true;
  }();
  (void)loaded;
  Session s(ipset_init());
  if (s != nullptr)
    ipset_custom_printf(s.get(), custom_error, standard_error, print_out,
                        &caught);
  return s;
}

// One command line through the session (libipset edits the line).
bool run_line(struct ipset *s, std::string line) {
  return ipset_parse_line(s, line.data()) >= 0;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos)
      nl = text.size();
    if (nl > at)
      out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

} // namespace

std::string set_name(uint64_t key) {
  char hex[17];
  snprintf(hex, sizeof(hex), "%016" PRIx64, key);
  return std::string(kPrefix) + hex;
}

std::string fresh_name(uint64_t key) {
  return set_name(key) + "-n";
}

bool owned(std::string_view name) {
  return name.substr(0, kPrefix.size()) == kPrefix;
}

std::optional<CommandError>
run_commands(const std::vector<std::string> &commands) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr)
    return CommandError{0, "cannot start an ipset session"};
  for (size_t i = 0; i < commands.size(); ++i)
    if (!run_line(s.get(), commands[i]))
      return CommandError{i, caught.error};
  // Adds are gathered into messages; the last of them goes now.
  if (ipset_commit(ipset_session(s.get())) < 0) {
    if (caught.error.empty())
      caught.error = "ipset failed";
    return CommandError{commands.empty() ? 0 : commands.size() - 1,
                        caught.error};
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> set_names(std::string *error) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr || !run_line(s.get(), "list -name")) {
    *error = s == nullptr ? "cannot start an ipset session" : caught.error;
    return std::nullopt;
  }
  return lines_of(caught.out);
}

std::optional<std::vector<std::string>> set_members(const std::string &name,
                                                    std::string *error) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr || !run_line(s.get(), "save " + name)) {
    *error = s == nullptr ? "cannot start an ipset session" : caught.error;
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (std::string &line : lines_of(caught.out))
    if (line.rfind("add ", 0) == 0)
      out.push_back(std::move(line));
  return out;
}

} // namespace fastrestore::ipset
