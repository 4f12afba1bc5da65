// ebtables rule lines through libxtables; see eb_parser.h. The option loop
// follows ebtables-nft 1.8.9's do_commandeb() for the commands a restore
// file holds, written for fastrestore with word positions in errors.
#include "eb_parser.h"

#include "fastrestore/plugin_failure.h"
#include "fastrestore/stats.h"
#include "fastrestore/xt_lookup.h"

#include <getopt.h>
#include <netinet/ether.h>
#include <xtables.h>

#include <linux/netfilter_bridge.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace fastrestore {
namespace {

// The declared chains: "-j NAME" jumps to one of them without asking
// libxtables for a target of that name.
std::unordered_set<std::string> g_chains;

__attribute__((noreturn)) void eb_exit_err(enum xtables_exittype status,
                                           const char *msg, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, msg);
  vsnprintf(buf, sizeof(buf), msg, ap);
  va_end(ap);
  std::string s = buf;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  throw PluginFailure{static_cast<int>(status), s};
}

// ebtables' own option table (the names getopt_long resolves).
struct option kEbOptions[] = {
    {"append", 1, nullptr, 'A'},
    {"insert", 1, nullptr, 'I'},
    {"delete", 1, nullptr, 'D'},
    {"list", 2, nullptr, 'L'},
    {"Lc", 0, nullptr, 4},
    {"Ln", 0, nullptr, 5},
    {"Lx", 0, nullptr, 6},
    {"Lmac2", 0, nullptr, 12},
    {"zero", 2, nullptr, 'Z'},
    {"flush", 2, nullptr, 'F'},
    {"policy", 1, nullptr, 'P'},
    {"in-interface", 1, nullptr, 'i'},
    {"in-if", 1, nullptr, 'i'},
    {"logical-in", 1, nullptr, 2},
    {"logical-out", 1, nullptr, 3},
    {"out-interface", 1, nullptr, 'o'},
    {"out-if", 1, nullptr, 'o'},
    {"version", 0, nullptr, 'V'},
    {"verbose", 0, nullptr, 'v'},
    {"help", 0, nullptr, 'h'},
    {"jump", 1, nullptr, 'j'},
    {"set-counters", 1, nullptr, 'c'},
    {"change-counters", 1, nullptr, 'C'},
    {"proto", 1, nullptr, 'p'},
    {"protocol", 1, nullptr, 'p'},
    {"db", 1, nullptr, 'b'},
    {"source", 1, nullptr, 's'},
    {"src", 1, nullptr, 's'},
    {"destination", 1, nullptr, 'd'},
    {"dst", 1, nullptr, 'd'},
    {"table", 1, nullptr, 't'},
    {"modprobe", 1, nullptr, 'M'},
    {"new-chain", 1, nullptr, 'N'},
    {"rename-chain", 1, nullptr, 'E'},
    {"delete-chain", 2, nullptr, 'X'},
    {"init-table", 0, nullptr, 11},
    {"concurrent", 0, nullptr, 13},
    {"check", 1, nullptr, 14},
    {nullptr, 0, nullptr, 0},
};

} // namespace

std::string ebtables_long_option(const std::string &name) {
  std::string found;
  for (const struct option *o = kEbOptions; o->name != nullptr; ++o) {
    if (name == o->name)
      return name;
    if (!name.empty() &&
        std::strncmp(o->name, name.c_str(), name.size()) == 0) {
      // Two names for one option (in-if, in-interface) are no ambiguity.
      if (!found.empty() && found != o->name) {
        const struct option *f = kEbOptions;
        while (found != f->name)
          ++f;
        if (f->val != o->val)
          return "";
        continue;
      }
      found = o->name;
    }
  }
  return found;
}

namespace {

const char kOptString[] = "-:A:C:D:E:F::I:L::M:N:P:VX::Z::c:d:i:j:o:p:s:t:hv";

// ebtables extensions have no revisions to ask the kernel about (as in
// ebtables-nft, the latest is taken).
int eb_compat_rev(const char *, uint8_t, int) {
  return 1;
}

xtables_globals g_eb = {
    0,       "ebtables",  "1.8.9 (nf_tables)", kEbOptions,
    nullptr, eb_exit_err, eb_compat_rev,
};

// The extensions ebtables loads up front, in its order, and the option
// table they make together.
struct Loaded {
  std::vector<xtables_match *> matches;
  std::vector<xtables_target *> watchers, targets;
  struct option *opts = nullptr;
};
Loaded *g_loaded = nullptr;

void reset_match(xtables_match *m) {
  std::memset(m->m->data, 0, m->size);
  if (m->init != nullptr)
    m->init(m->m);
  m->mflags = 0;
}

void reset_target(xtables_target *t) {
  std::memset(t->t->data, 0, t->size);
  if (t->init != nullptr)
    t->init(t->t);
  t->tflags = 0;
}

// libxtables returns a new merged table (or the old one when there is
// nothing to add) and leaves the old one to the caller.
struct option *replaced(struct option *old, struct option *merged) {
  if (merged != old && old != kEbOptions)
    free(old);
  return merged;
}
struct option *merge(struct option *opts, xtables_match *m) {
  return m->x6_options != nullptr
             ? xtables_options_xfrm(g_eb.orig_opts, opts, m->x6_options,
                                    &m->option_offset)
             : xtables_merge_options(g_eb.orig_opts, opts, m->extra_opts,
                                     &m->option_offset);
}
struct option *merge(struct option *opts, xtables_target *t) {
  return t->x6_options != nullptr
             ? xtables_options_xfrm(g_eb.orig_opts, opts, t->x6_options,
                                    &t->option_offset)
             : xtables_merge_options(g_eb.orig_opts, opts, t->extra_opts,
                                     &t->option_offset);
}

void load_all() {
  if (g_loaded != nullptr)
    return;
  auto *l = new Loaded;
  struct option *opts = kEbOptions;
  for (const char *name : {"802_3", "arp", "ip", "ip6", "mark_m", "limit",
                           "pkttype", "vlan", "stp", "among"}) {
    xtables_match *m = xtables_find_match(name, XTF_TRY_LOAD, nullptr);
    if (m == nullptr)
      continue;
    size_t size = XT_ALIGN(sizeof(xt_entry_match)) + m->size;
    m->m = static_cast<xt_entry_match *>(xtables_calloc(1, size));
    m->m->u.match_size = static_cast<uint16_t>(size);
    std::strcpy(m->m->u.user.name, m->name);
    m->m->u.user.revision = m->revision;
    reset_match(m);
    opts = replaced(opts, merge(opts, m));
    l->matches.push_back(m);
  }
  auto load_target = [&](const char *name, std::vector<xtables_target *> &to) {
    xtables_target *t = xtables_find_target(name, XTF_TRY_LOAD);
    if (t == nullptr)
      return;
    size_t size = XT_ALIGN(sizeof(xt_entry_target)) + t->size;
    t->t = static_cast<xt_entry_target *>(xtables_calloc(1, size));
    t->t->u.target_size = static_cast<uint16_t>(size);
    std::snprintf(t->t->u.user.name, sizeof(t->t->u.user.name), "%s", name);
    t->t->u.user.revision = t->revision;
    reset_target(t);
    opts = replaced(opts, merge(opts, t));
    to.push_back(t);
  };
  for (const char *name : {"log", "nflog"})
    load_target(name, l->watchers);
  for (const char *name : {"mark", "dnat", "snat", "arpreply", "redirect"})
    load_target(name, l->targets);
  l->opts = opts;
  g_loaded = l;
}

// One match or watcher of the rule being parsed, with its own copy of the
// extension's data (the extension object is shared by every rule).
struct Item {
  xtables_match *match = nullptr;
  xtables_target *watcher = nullptr;
  xt_entry_match *m = nullptr;
  xt_entry_target *t = nullptr;
  unsigned flags = 0;
};

class Line {
public:
  explicit Line(std::vector<Token> &words) : words_(words) {
    argv_.push_back(const_cast<char *>("ebtables"));
    for (auto &w : words_)
      argv_.push_back(w.text.data());
    argv_.push_back(nullptr);
  }
  ~Line() {
    for (auto &it : items_) {
      free(it.m);
      free(it.t);
    }
    if (target_ != nullptr)
      reset_target(target_);
  }

  Command run(int line);
  Location where(int line) const {
    int i = std::min<int>(last_word_, static_cast<int>(words_.size())) - 1;
    if (i < 0 || words_.empty())
      return {line, 0, 0};
    int j = std::min<int>(i + (has_arg_ ? 1 : 0),
                          static_cast<int>(words_.size()) - 1);
    return {line, words_[i].col_begin, words_[j].col_end};
  }

private:
  int argc() const { return static_cast<int>(argv_.size()) - 1; }
  bool inverse(const char *option);
  void check_once(unsigned bit) {
    if (flags_ & bit)
      xtables_error(PARAMETER_PROBLEM, "Multiple use of same option not "
                                       "allowed");
    flags_ |= bit;
  }
  bool extension_option(int c);

  std::vector<Token> &words_;
  std::vector<char *> argv_;
  std::vector<Item> items_;
  xtables_target *target_ = nullptr;
  std::string jumpto_;
  int invert_ = 0;
  unsigned flags_ = 0;
  int last_word_ = 0;
  bool has_arg_ = false;
};

// ebtables' "!": before an option's argument, or as a word of its own.
bool Line::inverse(const char *option) {
  if (option == nullptr)
    return invert_;
  if (std::strcmp(option, "!") == 0) {
    if (invert_ == 1)
      xtables_error(PARAMETER_PROBLEM, "Double use of '!' not allowed");
    // ebtables-nft goes on with no argument here and crashes.
    if (optind >= argc())
      xtables_error(PARAMETER_PROBLEM, "No argument after '!'");
    optarg = argv_[optind];
    ++optind;
    invert_ = 1;
    return true;
  }
  return invert_;
}

// An option of the target, of a match or watcher already in the rule, or
// of the first extension that takes it (which then joins the rule).
bool Line::extension_option(int c) {
  if (target_ != nullptr && target_->parse != nullptr &&
      target_->parse(c - target_->option_offset, argv_.data(), invert_,
                     &target_->tflags, nullptr, &target_->t))
    return true;
  for (auto &it : items_) {
    if (it.match != nullptr && it.match->parse != nullptr &&
        it.match->parse(c - it.match->option_offset, argv_.data(), invert_,
                        &it.flags, nullptr, &it.m))
      return true;
    if (it.watcher != nullptr && it.watcher->parse != nullptr &&
        it.watcher->parse(c - it.watcher->option_offset, argv_.data(), invert_,
                          &it.flags, nullptr, &it.t))
      return true;
  }
  for (xtables_match *m : g_loaded->matches) {
    if (m->parse == nullptr)
      continue;
    Item it;
    it.match = m;
    it.m = static_cast<xt_entry_match *>(malloc(m->m->u.match_size));
    std::memcpy(it.m, m->m, m->m->u.match_size);
    bool taken;
    try {
      taken = m->parse(c - m->option_offset, argv_.data(), invert_, &it.flags,
                       nullptr, &it.m);
    } catch (...) { // a bad value: the copy is not the rule's yet
      free(it.m);
      throw;
    }
    if (taken) {
      items_.push_back(it);
      return true;
    }
    free(it.m);
  }
  // ebtables tries them in libxtables' list order, where nflog (which
  // refuses a '!' before it looks at the option) comes before log.
  for (xtables_target *t = xtables_targets; t != nullptr; t = t->next) {
    const auto &ws = g_loaded->watchers;
    if (t->parse == nullptr || std::find(ws.begin(), ws.end(), t) == ws.end())
      continue;
    Item it;
    it.watcher = t;
    it.t = static_cast<xt_entry_target *>(malloc(t->t->u.target_size));
    std::memcpy(it.t, t->t, t->t->u.target_size);
    bool taken;
    try {
      taken = t->parse(c - t->option_offset, argv_.data(), invert_, &it.flags,
                       nullptr, &it.t);
    } catch (...) {
      free(it.t);
      throw;
    }
    if (taken) {
      items_.push_back(it);
      return true;
    }
    free(it.t);
  }
  return false;
}

Command Line::run(int line) {
  Command cmd;
  Rule r;
  char command = 0;
  optind = 0;
  opterr = 0;
  struct option *opts = g_loaded->opts;
  // A target's options merged for this line only go with the line.
  struct FreeLineOpts {
    struct option *&opts;
    ~FreeLineOpts() {
      if (opts != g_loaded->opts)
        free(opts);
    }
  } free_line_opts{opts};
  int c;
  auto need_rule_command = [&] {
    if (command == 0)
      xtables_error(PARAMETER_PROBLEM, "No command specified");
    if (command != 'A' && command != 'D' && command != 'I' && command != 14)
      xtables_error(PARAMETER_PROBLEM, "Command and option do not match");
  };
  for (;;) {
    last_word_ = optind == 0 ? 1 : optind;
    c = getopt_long(argc(), argv_.data(), kOptString, opts, nullptr);
    if (c == -1)
      break;
    has_arg_ = optarg != nullptr && c != 1;
    switch (c) {
    case 'A':
    case 'I':
    case 'D':
    case 'N':
    case 'P':
    case 'X':
    case 'E':
    case 'F':
    case 'Z':
    case 14: // --check
      if (command != 0)
        xtables_error(PARAMETER_PROBLEM, "Multiple commands are not allowed");
      command = static_cast<char>(c);
      if (optarg != nullptr && (optarg[0] == '-' || !strcmp(optarg, "!")))
        xtables_error(PARAMETER_PROBLEM, "No chain name specified");
      if (optarg == nullptr && (c == 'X' || c == 'F' || c == 'Z') &&
          optind < argc() && argv_[optind][0] != '-')
        optarg = argv_[optind++];
      cmd.chain = optarg != nullptr ? optarg : "";
      if (c == 'I') {
        cmd.rulenum = 1;
        if (optind < argc() &&
            !(argv_[optind][0] == '-' &&
              (argv_[optind][1] < '0' || argv_[optind][1] > '9'))) {
          unsigned n;
          if (!xtables_strtoui(argv_[optind], nullptr, &n, 1, INT32_MAX))
            xtables_error(PARAMETER_PROBLEM, "Invalid rule number `%s'",
                          argv_[optind]);
          cmd.rulenum = n;
          ++optind;
        }
      } else if (c == 'P') {
        if (optind >= argc())
          xtables_error(PARAMETER_PROBLEM, "No policy specified");
        std::string p = argv_[optind];
        if (p == "CONTINUE")
          xtables_error(PARAMETER_PROBLEM, "Wrong policy '%s'", p.c_str());
        if (p != "ACCEPT" && p != "DROP" && p != "RETURN")
          xtables_error(PARAMETER_PROBLEM, "Unknown policy '%s'", p.c_str());
        cmd.arg = p;
        ++optind;
      } else if (c == 'E') {
        if (optind >= argc())
          xtables_error(PARAMETER_PROBLEM, "No new chain name specified");
        cmd.arg = argv_[optind++];
      } else if (c == 'D' && optind < argc() &&
                 (argv_[optind][0] != '-' ||
                  (argv_[optind][1] >= '0' && argv_[optind][1] <= '9'))) {
        if (optind != argc() - 1)
          xtables_error(PARAMETER_PROBLEM,
                        "No extra options allowed with -D start_nr[:end_nr]");
        // ebtables reads the number in base 10 (0x10 is no number).
        char *end = nullptr;
        errno = 0;
        long n = std::strtol(argv_[optind], &end, 10);
        if (*end != '\0' || n <= 0 || n > INT32_MAX || errno != 0)
          xtables_error(PARAMETER_PROBLEM,
                        "Problem with the specified rule number(s) '%s'",
                        argv_[optind]);
        cmd.rulenum = static_cast<unsigned>(n);
        ++optind;
      }
      break;
    case 't':
      xtables_error(PARAMETER_PROBLEM,
                    "The -t option cannot be used in ebtables-restore.");
    case 13: // --concurrent: ebtables-nft takes no lock, nor does this
      break;
    case 'i':
    case 2:
    case 'o':
    case 3: {
      need_rule_command();
      const bool in = c == 'i' || c == 2;
      const bool logical = c == 2 || c == 3;
      check_once(1u << (c == 'i' ? 0 : c == 2 ? 1 : c == 'o' ? 2 : 3));
      const std::string &ch = cmd.chain;
      const bool out_chain = ch == "OUTPUT" || ch == "POSTROUTING";
      const bool in_chain =
          ch == "PREROUTING" || ch == "INPUT" || ch == "FORWARD";
      if (in && out_chain)
        xtables_error(PARAMETER_PROBLEM,
                      logical ? "Use --logical-in only in INPUT, FORWARD, "
                                "PREROUTING and BROUTING chains"
                              : "Use -i only in INPUT, FORWARD, PREROUTING "
                                "and BROUTING chains");
      if (!in && (in_chain && ch != "FORWARD"))
        xtables_error(PARAMETER_PROBLEM,
                      logical ? "Use --logical-out only in OUTPUT, FORWARD "
                                "and POSTROUTING chains"
                              : "Use -o only in OUTPUT, FORWARD and "
                                "POSTROUTING chains");
      const unsigned inv = c == 'i'   ? EBT_IIN
                           : c == 2   ? EBT_ILOGICALIN
                           : c == 'o' ? EBT_IOUT
                                      : EBT_ILOGICALOUT;
      if (inverse(optarg))
        r.eb.invflags |= inv;
      char name[IFNAMSIZ];
      unsigned char mask[IFNAMSIZ];
      xtables_parse_interface(optarg, name, mask);
      if (const char *plus = std::strchr(name, '+'); plus && plus[1] != '\0')
        xtables_error(PARAMETER_PROBLEM,
                      "Spurious characters after '+' wildcard");
      (c == 'i'   ? r.iniface
       : c == 2   ? r.eb.logical_in
       : c == 'o' ? r.outiface
                  : r.eb.logical_out) = name;
      break;
    }
    case 'j':
      need_rule_command();
      check_once(1u << 4);
      if (std::strcmp(optarg, "CONTINUE") != 0) {
        jumpto_ = optarg;
        // A preloaded target is used as it is: asking libxtables again
        // would hand out a fresh copy of it each time.
        xtables_target *t = nullptr;
        for (auto *k : g_loaded->targets)
          if (std::strcmp(k->name, optarg) == 0)
            t = k;
        // Any other target plugin (an xt one such as CT: the kernel
        // decides) gets its entry on first use, as ebtables-nft does;
        // peek_target keeps one entry per plugin instead of a fresh copy
        // per line.
        if (t == nullptr && g_chains.count(optarg) == 0)
          t = peek_target(optarg);
        if (t != nullptr && std::strcmp(t->name, "standard") != 0) {
          target_ = t;
          if (t->t == nullptr) {
            size_t size = XT_ALIGN(sizeof(xt_entry_target)) + t->size;
            t->t = static_cast<xt_entry_target *>(xtables_calloc(1, size));
            t->t->u.target_size = static_cast<uint16_t>(size);
          }
          reset_target(t);
          std::snprintf(t->t->u.user.name, sizeof(t->t->u.user.name), "%s",
                        t->real_name != nullptr ? t->real_name : optarg);
          t->t->u.user.revision = t->revision;
          bool known = false;
          for (auto *k : g_loaded->targets)
            known = known || k == t;
          if (!known) // its options join the table for this line
            opts = merge(opts, t);
        }
      }
      break;
    case 's':
    case 'd': {
      need_rule_command();
      check_once(1u << (c == 's' ? 5 : 6));
      if (inverse(optarg))
        r.eb.invflags |= c == 's' ? EBT_ISOURCE : EBT_IDEST;
      auto &mac = c == 's' ? r.eb.smac : r.eb.dmac;
      auto &msk = c == 's' ? r.eb.smsk : r.eb.dmsk;
      if (xtables_parse_mac_and_mask(optarg, mac.data(), msk.data()))
        xtables_error(PARAMETER_PROBLEM, "Problem with specified %s mac '%s'",
                      c == 's' ? "source" : "destination", optarg);
      r.eb.bitmask |= c == 's' ? EBT_SOURCEMAC : EBT_DESTMAC;
      break;
    }
    case 'c': {
      need_rule_command();
      check_once(1u << 7);
      if (inverse(optarg))
        xtables_error(PARAMETER_PROBLEM, "Unexpected '!' after -c");
      if (optind >= argc() || optarg[0] == '-' || argv_[optind][0] == '-')
        xtables_error(PARAMETER_PROBLEM, "Option -c needs 2 arguments");
      char *end;
      r.packets = strtoull(optarg, &end, 10);
      if (*end != '\0')
        xtables_error(PARAMETER_PROBLEM, "Packet counter '%s' invalid", optarg);
      r.bytes = strtoull(argv_[optind], &end, 10);
      if (*end != '\0')
        xtables_error(PARAMETER_PROBLEM, "Packet counter '%s' invalid",
                      argv_[optind]);
      ++optind;
      break;
    }
    case 'p': {
      need_rule_command();
      check_once(1u << 8);
      if (inverse(optarg))
        r.eb.invflags |= EBT_IPROTO;
      r.eb.bitmask &= ~static_cast<uint32_t>(EBT_NOPROTO);
      char *end;
      long v = strtol(optarg, &end, 16);
      if (*end == '\0' && (v < 0 || v > 0xFFFF))
        xtables_error(PARAMETER_PROBLEM, "Problem with the specified protocol");
      unsigned proto;
      if (*end != '\0') {
        if (strcasecmp(optarg, "LENGTH") == 0) {
          r.eb.bitmask |= EBT_802_3;
          break;
        }
        xt_ethertypeent *ent = xtables_getethertypebyname(optarg);
        if (ent == nullptr)
          xtables_error(PARAMETER_PROBLEM,
                        "Problem with the specified Ethernet protocol '%s', "
                        "perhaps " XT_PATH_ETHERTYPES " is missing",
                        optarg);
        proto = static_cast<unsigned>(ent->e_ethertype);
      } else {
        proto = static_cast<unsigned>(v);
      }
      if (proto < 0x0600)
        xtables_error(PARAMETER_PROBLEM,
                      "Sorry, protocols have values above or equal to 0x0600");
      r.eb.ethproto = htons(static_cast<uint16_t>(proto));
      break;
    }
    case 1:
      if (std::strcmp(optarg, "!") != 0)
        xtables_error(PARAMETER_PROBLEM, "Bad argument : '%s'", optarg);
      inverse(optarg);
      --optind;
      continue;
    case ':':
      xtables_error(PARAMETER_PROBLEM, "Option \"%s\" requires an argument",
                    argv_[optind - 1]);
    case '?':
    case 'L':
    case 'V':
    case 'h':
    case 'v':
    case 'M':
    case 'C':
    case 4:
    case 5:
    case 6:
    case 11:
    case 12:
      if (c != '?' || optopt != 0)
        xtables_error(PARAMETER_PROBLEM,
                      "Option \"%s\" is not supported in restore input",
                      argv_[optind - 1]);
      [[fallthrough]];
    default:
      inverse(optarg);
      // ebtables names the word after the option it could not place.
      if (!extension_option(c))
        xtables_error(PARAMETER_PROBLEM, "Unknown argument: '%s'",
                      optind < argc() ? argv_[optind] : "(null)");
      if (command != 'A' && command != 'I' && command != 'D' && command != 14)
        xtables_error(PARAMETER_PROBLEM,
                      "Extensions only for -A, -I, -D and -C");
    }
    invert_ = 0;
  }
  // ebtables reads a line with no command as a request for its help text
  // (which it prints) and goes on.
  if (command == 0)
    return cmd;

  switch (command) {
  case 'A':
    cmd.kind = CommandKind::append;
    break;
  case 'I':
    cmd.kind = CommandKind::insert;
    break;
  case 'D':
    cmd.kind = cmd.rulenum ? CommandKind::remove_num : CommandKind::remove;
    break;
  case 'N':
    cmd.kind = CommandKind::new_chain;
    break;
  case 'P':
    cmd.kind = CommandKind::policy;
    if (cmd.arg == "RETURN" &&
        (cmd.chain == "INPUT" || cmd.chain == "FORWARD" ||
         cmd.chain == "OUTPUT" || cmd.chain == "PREROUTING" ||
         cmd.chain == "POSTROUTING"))
      xtables_error(PARAMETER_PROBLEM,
                    "Policy RETURN only allowed for user defined chains");
    break;
  case 'X':
    cmd.kind = CommandKind::delete_chain;
    break;
  case 'E':
    cmd.kind = CommandKind::rename_chain;
    break;
  case 'F':
    cmd.kind = CommandKind::flush;
    break;
  case 'Z':
    cmd.kind = CommandKind::zero;
    break;
  case 14:
    cmd.kind = CommandKind::check;
    break;
  }
  if (cmd.kind != CommandKind::append && cmd.kind != CommandKind::insert &&
      cmd.kind != CommandKind::remove && cmd.kind != CommandKind::check)
    return cmd;

  // The extensions' final checks, then the rule.
  for (auto &it : items_) {
    if (it.match != nullptr) {
      xt_entry_match *keep = it.match->m;
      unsigned kf = it.match->mflags;
      it.match->m = it.m;
      it.match->mflags = it.flags;
      xtables_option_mfcall(it.match);
      it.match->m = keep;
      it.match->mflags = kf;
    } else {
      xt_entry_target *keep = it.watcher->t;
      unsigned kf = it.watcher->tflags;
      it.watcher->t = it.t;
      it.watcher->tflags = it.flags;
      xtables_option_tfcall(it.watcher);
      it.watcher->t = keep;
      it.watcher->tflags = kf;
    }
  }
  if (target_ != nullptr)
    xtables_option_tfcall(target_);

  r.loc = Location{line, words_.empty() ? 0 : words_.front().col_begin,
                   words_.empty() ? 0 : words_.back().col_end};
  for (auto &it : items_) {
    XtBlob b;
    if (it.match != nullptr) {
      b.name = it.m->u.user.name;
      b.revision = it.m->u.user.revision;
      b.data.assign(it.m->data,
                    it.m->data + it.m->u.match_size - sizeof(xt_entry_match));
    } else {
      b.name = it.t->u.user.name;
      b.revision = it.t->u.user.revision;
      b.data.assign(it.t->data,
                    it.t->data + it.t->u.target_size - sizeof(xt_entry_target));
      b.watcher = true;
    }
    r.matches.push_back(std::move(b));
  }
  if (target_ != nullptr) {
    XtBlob b;
    b.name = target_->t->u.user.name;
    b.revision = target_->t->u.user.revision;
    b.data.assign(target_->t->data, target_->t->data +
                                        target_->t->u.target_size -
                                        sizeof(xt_entry_target));
    r.verdict = Verdict::target;
    r.target = std::move(b);
  } else if (jumpto_ == "ACCEPT") {
    r.verdict = Verdict::accept;
  } else if (jumpto_ == "DROP") {
    r.verdict = Verdict::drop;
  } else if (jumpto_ == "RETURN") {
    r.verdict = Verdict::ret;
  } else if (!jumpto_.empty()) {
    r.verdict = Verdict::jump;
    r.jump_chain = jumpto_;
  }
  cmd.rules.push_back(std::move(r));
  return cmd;
}

} // namespace

EbParser::EbParser() {
  xtables_init_all(&g_eb, NFPROTO_BRIDGE);
  load_all();
}

EbParser::~EbParser() = default;

// Kept here rather than announced to libxtables, whose 512-bucket hash of
// chain names grows quadratic with many chains.
void EbParser::announce_chain(const std::string &name) {
  g_chains.insert(name);
}

// The table does not change how an ebtables line parses (the chain checks
// are by name); counters come with -c in the line.
Command EbParser::parse(std::vector<Token> &words, const std::string &,
                        int line, std::string_view source,
                        const std::pair<uint64_t, uint64_t> *) {
  PhaseTimer timer(phase_stats().extensions_s);
  xtables_set_params(&g_eb);
  xtables_set_nfproto(NFPROTO_BRIDGE);
  Line l(words);
  try {
    Command c = l.run(line);
    c.loc = l.where(line);
    return c;
  } catch (PluginFailure &f) {
    Diagnostic d;
    d.loc = l.where(line);
    d.message = f.message;
    d.code = static_cast<ExitCode>(static_cast<int>(f.status));
    d.source = std::string(source);
    throw Error(std::move(d));
  }
}

} // namespace fastrestore
