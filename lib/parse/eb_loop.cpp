// The option loop of EbParser's Line: one getopt_long pass over a rule
// line, as ebtables-nft 1.8.9's do_commandeb() makes it (see eb_state.h).
// glibc's network headers (and xtables.h) before the kernel's.
#include <netinet/ether.h>
#include <xtables.h>

#include <linux/netfilter_bridge.h>
#include <linux/netfilter_bridge/ebtables.h>

#include <cerrno>
#include <cstring>

#include "eb_state.h"
#include "fastrestore/xt_lookup.h"
#include "xtables/plugin_failure.h"

namespace fastrestore::eb {

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
  for (xtables_match *m : loaded()->matches) {
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
    const auto &ws = loaded()->watchers;
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

void Line::need_rule_command() const {
  if (command_ == 0)
    xtables_error(PARAMETER_PROBLEM, "No command specified");
  if (command_ != 'A' && command_ != 'D' && command_ != 'I' && command_ != 14)
    xtables_error(PARAMETER_PROBLEM, "Command and option do not match");
}

// -A -I -D -N -P -X -E -F -Z --check, with what follows each.
void Line::command_option(int c, Command &cmd) {
  if (command_ != 0)
    xtables_error(PARAMETER_PROBLEM, "Multiple commands are not allowed");
  command_ = static_cast<char>(c);
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
}

// -i, --logical-in, -o, --logical-out.
void Line::interface_option(int c, Rule &r, const std::string &chain) {
  const bool in = c == 'i' || c == 2;
  const bool logical = c == 2 || c == 3;
  check_once(1u << (c == 'i' ? 0 : c == 2 ? 1 : c == 'o' ? 2 : 3));
  const std::string &ch = chain;
  const bool out_chain = ch == "OUTPUT" || ch == "POSTROUTING";
  const bool in_chain = ch == "PREROUTING" || ch == "INPUT" || ch == "FORWARD";
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
    xtables_error(PARAMETER_PROBLEM, "Spurious characters after '+' wildcard");
  (c == 'i'   ? r.iniface
   : c == 2   ? r.eb.logical_in
   : c == 'o' ? r.outiface
              : r.eb.logical_out) = name;
}

// -j: a verdict, a chain, or a target extension, whose options then join
// the table for this line (`opts`).
void Line::jump_option(struct option *&opts) {
  check_once(1u << 4);
  if (std::strcmp(optarg, "CONTINUE") != 0) {
    jumpto_ = optarg;
    // A preloaded target is used as it is: asking libxtables again
    // would hand out a fresh copy of it each time.
    xtables_target *t = nullptr;
    for (auto *k : loaded()->targets)
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
      for (auto *k : loaded()->targets)
        known = known || k == t;
      if (!known) // its options join the table for this line
        opts = merge(opts, t);
    }
  }
}

// -s and -d: a MAC address with an optional mask.
void Line::mac_option(int c, Rule &r) {
  check_once(1u << (c == 's' ? 5 : 6));
  if (inverse(optarg))
    r.eb.invflags |= c == 's' ? EBT_ISOURCE : EBT_IDEST;
  auto &mac = c == 's' ? r.eb.smac : r.eb.dmac;
  auto &msk = c == 's' ? r.eb.smsk : r.eb.dmsk;
  if (xtables_parse_mac_and_mask(optarg, mac.data(), msk.data()))
    xtables_error(PARAMETER_PROBLEM, "Problem with specified %s mac '%s'",
                  c == 's' ? "source" : "destination", optarg);
  r.eb.bitmask |= c == 's' ? EBT_SOURCEMAC : EBT_DESTMAC;
}

// -c PACKETS BYTES.
void Line::counters_option(Rule &r) {
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
  r.counters_set = true;
  ++optind;
}

// -p: an ethertype by number or name, or LENGTH.
void Line::proto_option(Rule &r) {
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
      return;
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
}

Command Line::run(int line) {
  Command cmd;
  Rule r;
  command_ = 0;
  optind = 0;
  opterr = 0;
  struct option *opts = loaded()->opts;
  // A target's options merged for this line only go with the line.
  struct FreeLineOpts {
    struct option *&opts;
    ~FreeLineOpts() {
      if (opts != loaded()->opts)
        free(opts);
    }
  } free_line_opts{opts};
  for (;;) {
    last_word_ = optind == 0 ? 1 : optind;
    const int c = getopt_long(argc(), argv_.data(), kOptString, opts, nullptr);
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
      command_option(c, cmd);
      break;
    case 't':
      xtables_error(PARAMETER_PROBLEM,
                    "The -t option cannot be used in ebtables-restore.");
    case 13: // --concurrent: ebtables-nft takes no lock, nor does this
      break;
    case 'i':
    case 2:
    case 'o':
    case 3:
      need_rule_command();
      interface_option(c, r, cmd.chain);
      break;
    case 'j':
      need_rule_command();
      jump_option(opts);
      break;
    case 's':
    case 'd':
      need_rule_command();
      mac_option(c, r);
      break;
    case 'c':
      need_rule_command();
      counters_option(r);
      break;
    case 'p':
      need_rule_command();
      proto_option(r);
      break;
    case 1:
      if (std::strcmp(optarg, "!") != 0)
        xtables_error(PARAMETER_PROBLEM, "Bad argument : '%s'", optarg);
      inverse(optarg);
      --optind;
      continue;
    case ':': {
      // (ebtables' getopt reports it as an unknown argument, without one.)
      const std::string ours = std::string("Option \"") + argv_[optind - 1] +
                               "\" requires an argument";
      throw PluginFailure{PARAMETER_PROBLEM, ours,
                          "Unknown argument: '(null)'"};
    }
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
      // ebtables names the word after the option it could not place;
      // after the last word it prints '(null)', where this names the
      // option (CONFORMANCE), keeping ebtables' words for comparison.
      if (!extension_option(c)) {
        if (optind < argc())
          xtables_error(PARAMETER_PROBLEM, "Unknown argument: '%s'",
                        argv_[optind]);
        throw PluginFailure{PARAMETER_PROBLEM,
                            std::string("Unknown argument: '") +
                                argv_[optind - 1] + "'",
                            "Unknown argument: '(null)'"};
      }
      if (command_ != 'A' && command_ != 'I' && command_ != 'D' &&
          command_ != 14)
        xtables_error(PARAMETER_PROBLEM,
                      "Extensions only for -A, -I, -D and -C");
    }
    invert_ = 0;
  }
  return finish(std::move(cmd), r, line);
}

} // namespace fastrestore::eb
