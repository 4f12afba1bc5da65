// ipsets.h through libipset's own command parser: each call runs its
// commands in a session of its own (a session keeps options and messages
// from one command to the next), with its output and errors caught.
#include "fastrestore/ipsets.h"

#include <libipset/data.h>
#include <libipset/ipset.h>
#include <libipset/nf_inet_addr.h>
#include <libipset/types.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include "ipset/address_less.h"
#include "sys/hash64.h"
#include "sys/nfnl_header.h"
#include "sys/shared_library.h"

namespace fastrestore::ipset {
namespace {

// The libipset functions used, by their name less "ipset_" (the library
// is opened on first use: sys/shared_library.h).
// clang-format off
#define FR_IPSET_CALLS(X)                                                      \
  X(load_types) X(init) X(fini) X(custom_printf) X(parse_line) X(session)     \
  X(session_report_msg) X(session_report_reset) X(session_data)              \
  X(data_reset) X(data_set) X(type_get) X(cmd) X(commit)
// clang-format on

struct Calls {
#define FR_FIELD(name) decltype(&ipset_##name) name = nullptr;
  FR_IPSET_CALLS(FR_FIELD)
#undef FR_FIELD
};

// libipset's functions, its set types loaded on first use.
const Calls &lib() {
  static const Calls calls = [] {
    Calls c;
#define FR_LOAD(name)                                                          \
  c.name = reinterpret_cast<decltype(c.name)>(                                 \
      library_function(FASTRESTORE_LIBIPSET_SONAME, "ipset_" #name));
    FR_IPSET_CALLS(FR_LOAD)
#undef FR_LOAD
    c.load_types();
    return c;
  }();
  return calls;
}

// What a session printed, and the last error it reported.
struct Caught {
  std::string out;
  std::string error;
};

// Appends what printf(fmt, ap) prints to `out` (a set's save calls this
// for each part of each member: a stack buffer first).
void append_vformat(std::string &out, const char *fmt, va_list ap) {
  char buf[512];
  va_list copy;
  va_copy(copy, ap);
  const int n = vsnprintf(buf, sizeof(buf), fmt, copy);
  va_end(copy);
  if (n <= 0)
    return;
  if (static_cast<size_t>(n) < sizeof(buf)) {
    out.append(buf, static_cast<size_t>(n));
    return;
  }
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  vsnprintf(out.data() + at, static_cast<size_t>(n) + 1, fmt, ap);
  out.resize(at + static_cast<size_t>(n));
}

std::string vformat(const char *fmt, va_list ap) {
  std::string s;
  append_vformat(s, fmt, ap);
  return s;
}

// libipset's messages end in a newline.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

int print_out(struct ipset_session *, void *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  append_vformat(static_cast<Caught *>(p)->out, fmt, ap);
  va_end(ap);
  return 0;
}

int custom_error(struct ipset *, void *p, int status, const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  static_cast<Caught *>(p)->error = trimmed(vformat(msg, ap));
  va_end(ap);
  return status;
}

int standard_error(struct ipset *set, void *p) {
  struct ipset_session *s = lib().session(set);
  const char *msg = lib().session_report_msg(s);
  static_cast<Caught *>(p)->error =
      trimmed(msg != nullptr ? msg : "ipset failed");
  lib().session_report_reset(s);
  return -1;
}

struct SessionFree {
  void operator()(struct ipset *s) const { lib().fini(s); }
};
using Session = std::unique_ptr<struct ipset, SessionFree>;

Session open_session(Caught &caught) {
  Session s(lib().init());
  if (s != nullptr)
    lib().custom_printf(s.get(), custom_error, standard_error, print_out,
                        &caught);
  return s;
}

// One command line through the session (libipset edits the line).
bool run_line(struct ipset *s, std::string line) {
  return lib().parse_line(s, line.data()) >= 0;
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

// A member from its `ipset save` line: "add NAME ADDR[/P] [packets P bytes
// B] [comment "TEXT"]" (the comment is the line's last field).
std::optional<Member> decode_member(const std::string &line, bool ipv6) {
  const size_t comment = line.find(" comment \"");
  const std::string head = line.substr(0, comment);
  std::vector<std::string> words;
  for (size_t at = 0; at < head.size();) {
    const size_t end = std::min(head.find(' ', at), head.size());
    if (end > at)
      words.push_back(head.substr(at, end - at));
    at = end + 1;
  }
  if (words.size() < 3)
    return std::nullopt;
  Member m;
  std::string address = words[2];
  m.prefix = ipv6 ? 128 : 32;
  if (const size_t slash = address.find('/'); slash != std::string::npos) {
    const std::string p = address.substr(slash + 1);
    if (p.empty() || p.size() > 3 ||
        p.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    m.prefix = static_cast<unsigned>(std::stoul(p));
    address.resize(slash);
  }
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, address.c_str(), m.address.data()) !=
      1)
    return std::nullopt;
  auto number = [](const std::string &w) -> std::optional<uint64_t> {
    if (w.empty() || w.size() > 20 ||
        w.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoull(w);
  };
  for (size_t i = 3; i + 1 < words.size(); i += 2) {
    std::optional<uint64_t> n = number(words[i + 1]);
    if (!n)
      return std::nullopt;
    if (words[i] == "packets")
      m.packets = *n;
    else if (words[i] == "bytes")
      m.bytes = *n;
  }
  if (comment != std::string::npos) {
    const size_t open = comment + 10, close = line.rfind('"');
    if (close == std::string::npos || close < open)
      return std::nullopt;
    m.comment = line.substr(open, close - open);
  }
  return m;
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
  // One command at a time, as `ipset` runs it, so that each refusal is
  // reported (make_set fills a set in bulk).
  for (size_t i = 0; i < commands.size(); ++i)
    if (!run_line(s.get(), commands[i]))
      return CommandError{i, caught.error};
  return std::nullopt;
}

namespace {

// Sends `cmd` (add or delete) for each member to the set `spec.name`, in
// one batch; CommandError::index is index_base + k for member k.
std::optional<CommandError> send_members(struct ipset_session *session,
                                         const SetSpec &spec,
                                         enum ipset_cmd cmd,
                                         const std::vector<Member> &members,
                                         size_t index_base) {
  const uint8_t family = spec.ipv6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
  auto refused = [&](size_t index) {
    const char *msg = lib().session_report_msg(session);
    return CommandError{index, trimmed(msg != nullptr && *msg != '\0'
                                           ? msg
                                           : "ipset refused a member")};
  };
  for (size_t k = 0; k < members.size(); ++k) {
    const Member &m = members[k];
    struct ipset_data *d = lib().session_data(session);
    lib().data_reset(d);
    lib().data_set(d, IPSET_SETNAME, spec.name.c_str());
    // (The type: the one a create left in the session, or the kernel's.)
    if (lib().type_get(session, cmd) == nullptr)
      return refused(index_base + k);
    lib().data_set(d, IPSET_OPT_FAMILY, &family);
    union nf_inet_addr address;
    std::memset(&address, 0, sizeof(address));
    std::memcpy(&address, m.address.data(), spec.ipv6 ? 16 : 4);
    lib().data_set(d, IPSET_OPT_IP, &address);
    if (spec.net) {
      const uint8_t cidr = static_cast<uint8_t>(m.prefix);
      lib().data_set(d, IPSET_OPT_CIDR, &cidr);
    }
    if (cmd == IPSET_CMD_ADD) {
      lib().data_set(d, IPSET_OPT_PACKETS, &m.packets);
      lib().data_set(d, IPSET_OPT_BYTES, &m.bytes);
      if (m.comment && spec.comments)
        lib().data_set(d, IPSET_OPT_ADT_COMMENT, m.comment->c_str());
    }
    // A line number lets the session gather consecutive commands into one
    // message, as `ipset restore` does.
    if (lib().cmd(session, cmd, static_cast<uint32_t>(k + 1)) < 0)
      return refused(index_base + k);
  }
  if (lib().commit(session) < 0)
    return refused(index_base + (members.empty() ? 0 : members.size() - 1));
  return std::nullopt;
}

} // namespace

std::optional<CommandError> make_set(const SetSpec &spec,
                                     const std::vector<Member> &members) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr)
    return CommandError{0, "cannot start an ipset session"};
  const std::string create =
      "create " + spec.name + (spec.net ? " hash:net" : " hash:ip") +
      " family " + (spec.ipv6 ? "inet6" : "inet") + " maxelem " +
      std::to_string(std::max<size_t>(spec.maxelem, 1)) + " counters" +
      (spec.comments ? " comment" : "");
  if (!run_line(s.get(), create))
    return CommandError{0, caught.error};
  return send_members(lib().session(s.get()), spec, IPSET_CMD_ADD, members, 1);
}

std::optional<CommandError> edit_set(const SetSpec &spec,
                                     const std::vector<Member> &removed,
                                     const std::vector<Member> &added) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr)
    return CommandError{0, "cannot start an ipset session"};
  struct ipset_session *session = lib().session(s.get());
  if (auto refused = send_members(session, spec, IPSET_CMD_DEL, removed, 0))
    return refused;
  return send_members(session, spec, IPSET_CMD_ADD, added, removed.size());
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

std::optional<std::vector<Member>> read_members(const std::string &name,
                                                bool ipv6, std::string *error) {
  std::optional<std::vector<std::string>> lines = set_members(name, error);
  if (!lines)
    return std::nullopt;
  std::vector<Member> out;
  out.reserve(lines->size());
  for (const std::string &l : *lines) {
    std::optional<Member> m = decode_member(l, ipv6);
    if (!m) {
      *error = "cannot read set " + name + "'s member: " + l;
      return std::nullopt;
    }
    out.push_back(std::move(*m));
  }
  std::sort(out.begin(), out.end(), address_order);
  return out;
}

std::optional<std::vector<SetHeader>> set_headers(std::string *error) {
  Caught caught;
  Session s = open_session(caught);
  if (s == nullptr || !run_line(s.get(), "list -t")) {
    *error = s == nullptr ? "cannot start an ipset session" : caught.error;
    return std::nullopt;
  }
  std::vector<SetHeader> out;
  constexpr std::string_view kName = "Name: ", kHeader = "Header: ",
                             kEntries = "Number of entries: ";
  for (const std::string &line : lines_of(caught.out)) {
    if (line.rfind(kName, 0) == 0) {
      out.emplace_back().name = line.substr(kName.size());
    } else if (out.empty()) {
      continue;
    } else if (line.rfind(kEntries, 0) == 0) {
      out.back().entries =
          static_cast<size_t>(std::stoull(line.substr(kEntries.size())));
    } else if (line.rfind(kHeader, 0) == 0) {
      const std::string header = " " + line.substr(kHeader.size()) + " ";
      out.back().ipv6 = header.find(" family inet6 ") != std::string::npos;
      if (const size_t at = header.find(" maxelem "); at != std::string::npos)
        out.back().maxelem =
            static_cast<size_t>(std::stoull(header.substr(at + 9)));
      out.back().comments = header.find(" comment ") != std::string::npos;
    }
  }
  return out;
}

bool address_order(const Member &a, const Member &b) {
  const AddressLess less;
  if (less(a.address, b.address))
    return true;
  if (less(b.address, a.address))
    return false;
  return a.prefix < b.prefix;
}

uint64_t members_digest(const std::vector<Member> &members, bool ipv6) {
  std::vector<const Member *> order;
  order.reserve(members.size());
  for (const Member &m : members)
    order.push_back(&m);
  const auto by_address = [](const Member *a, const Member *b) {
    return address_order(*a, *b);
  };
  if (!std::is_sorted(order.begin(), order.end(), by_address))
    std::sort(order.begin(), order.end(), by_address);
  uint64_t h = hash64_seed ^ (ipv6 ? 6 : 4);
  for (const Member *m : order) {
    std::string key(reinterpret_cast<const char *>(m->address.data()),
                    ipv6 ? 16 : 4);
    key += static_cast<char>(m->prefix);
    key += m->comment ? '\1' : '\0';
    h = hash64(key, h);
    if (m->comment)
      h = hash64(*m->comment, h);
  }
  return h;
}

Lock::Lock() {
  fd_ = open("/run/fastrestore-optimize.lock", O_RDWR | O_CREAT | O_CLOEXEC,
             0600);
  if (fd_ >= 0)
    while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
}

Lock::~Lock() {
  if (fd_ >= 0)
    close(fd_);
}

void destroy_unused(const std::set<std::string> &keep, bool ipv6) {
  std::string error;
  const auto headers = set_headers(&error);
  if (!headers)
    return;
  std::vector<std::string> left;
  for (const SetHeader &h : *headers)
    if (owned(h.name) && h.ipv6 == ipv6 && !keep.count(h.name))
      left.push_back(h.name);
  for (int attempt = 0; !left.empty(); ++attempt) {
    std::vector<std::string> refused;
    for (const std::string &n : left)
      if (run_commands({"destroy " + n}))
        refused.push_back(n);
    if (refused.empty() || attempt == 5)
      break;
    left = std::move(refused);
    usleep(1000u << attempt); // 1, 2, 4, 8, 16 ms
  }
}

std::optional<bool> any_owned_set() {
  using Socket = std::unique_ptr<mnl_socket, decltype(&mnl_socket_close)>;
  Socket nl(mnl_socket_open(NETLINK_NETFILTER), &mnl_socket_close);
  if (nl == nullptr || mnl_socket_bind(nl.get(), 0, MNL_SOCKET_AUTOPID) < 0)
    return std::nullopt;
  // The names alone, as `ipset list -name` asks for them.
  std::vector<char> buf(1 << 16);
  const uint32_t seq = 1;
  nlmsghdr *nlh =
      put_nfnl_header(buf.data(), (NFNL_SUBSYS_IPSET << 8) | IPSET_CMD_LIST,
                      NLM_F_ACK | NLM_F_DUMP, seq, AF_INET);
  mnl_attr_put_u8(nlh, IPSET_ATTR_PROTOCOL, IPSET_PROTOCOL);
  mnl_attr_put_u32(nlh, IPSET_ATTR_FLAGS | NLA_F_NET_BYTEORDER,
                   htonl(IPSET_FLAG_LIST_SETNAME));
  if (mnl_socket_sendto(nl.get(), nlh, nlh->nlmsg_len) < 0)
    return std::nullopt;
  const uint32_t portid = mnl_socket_get_portid(nl.get());
  bool found = false;
  auto on_set = [](const nlmsghdr *m, void *data) {
    mnl_attr_parse(
        m, sizeof(nfgenmsg),
        [](const nlattr *a, void *found) {
          if ((mnl_attr_get_type(a) & NLA_TYPE_MASK) == IPSET_ATTR_SETNAME &&
              mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 &&
              owned(mnl_attr_get_str(a)))
            *static_cast<bool *>(found) = true;
          return MNL_CB_OK;
        },
        data);
    return MNL_CB_OK;
  };
  for (;;) {
    const ssize_t n = mnl_socket_recvfrom(nl.get(), buf.data(), buf.size());
    if (n <= 0)
      return std::nullopt;
    const int ret = mnl_cb_run(buf.data(), static_cast<size_t>(n), seq, portid,
                               on_set, &found);
    if (ret == MNL_CB_STOP)
      return found;
    if (ret < 0)
      return std::nullopt; // (an error: libipset asks again)
  }
}

void tidy(bool ipv6) {
  // (ip_set, built in or loaded, is in /sys/module: without it no set
  // exists, and asking would load the module.)
  if (access("/sys/module/ip_set", F_OK) != 0)
    return;
  // The kernel asked directly first: most loads find no set of
  // fastrestore's, and then need no libipset (nor its start).
  if (any_owned_set() == std::optional<bool>(false))
    return;
  std::string error;
  const auto names = set_names(&error);
  if (!names || std::none_of(names->begin(), names->end(),
                             [](const std::string &n) { return owned(n); }))
    return;
  Lock lock;
  destroy_unused({}, ipv6);
}

} // namespace fastrestore::ipset
