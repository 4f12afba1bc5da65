// The option loop of XtRuleState: one getopt_long pass over a rule line.
#include <getopt.h>
#include <xtables.h>

#include <cctype>
#include <cstdio>
#include <cstring>

#include "fastrestore/xt_lookup.h"
#include "parse/chain_names.h"
#include "parse/protocols.h"
#include "parse/rule_number.h"
#include "xt_state.h"
#include "xtables/plugin_failure.h"

namespace fastrestore {

namespace {

unsigned parse_rulenum(const char *s) {
  const std::optional<unsigned> n = rule_number(s);
  if (!n)
    xtables_error(PARAMETER_PROBLEM, "Invalid rule number `%s'", s);
  return *n;
}

// -N NAME. `announced`: the chains declared so far, which iptables no
// longer takes for targets; any other name a target plugin has clashes.
void assert_valid_chain_name(const char *name, const NameSet *announced) {
  if (strlen(name) >= XT_EXTENSION_MAXNAMELEN)
    xtables_error(PARAMETER_PROBLEM,
                  "chain name `%s' too long (must be under %u chars)", name,
                  XT_EXTENSION_MAXNAMELEN);
  if (*name == '-' || *name == '!')
    xtables_error(PARAMETER_PROBLEM,
                  "chain name not allowed to start with `%c'", *name);
  if (is_verdict_name(name) ||
      ((announced == nullptr || !announced->contains(name)) &&
       peek_target(name) != nullptr))
    xtables_error(PARAMETER_PROBLEM,
                  "chain name may not clash with target name");
  for (const char *p = name; *p; ++p)
    if (isspace(static_cast<unsigned char>(*p)))
      xtables_error(PARAMETER_PROBLEM, "Invalid chain name `%s'", name);
}
} // namespace

void XtRuleState::run() {
  int argc = static_cast<int>(argv_.size()) - 1;
  char **argv = argv_.data();
  bool table_set = false;

  if (too_many_args_) {
    focus_word(argc - 1);
    xtables_error(PARAMETER_PROBLEM, "Parser cannot handle more arguments");
  }

  for (xtables_match *m = xtables_matches; m != nullptr; m = m->next)
    m->mflags = 0;
  for (xtables_target *t = xtables_targets; t != nullptr; t = t->next) {
    t->tflags = 0;
    t->used = 0;
  }
  optind = 0;
  opterr = 0;
  xt_params->opts = xt_params->orig_opts;

  for (;;) {
    int start = optind == 0 ? 1 : optind;
    int c = getopt_long(argc, argv, kOptString(), xt_params->opts, nullptr);
    if (c == -1)
      break;
    last_opt_ = c;
    cur_first_ = start;
    cur_last_ = optind - 1;
    switch (c) {
    case 'A':
      add_command(CMD_APPEND, CMD_NONE, invert_);
      chain_ = optarg;
      break;
    case 'C':
      add_command(CMD_CHECK, CMD_NONE, invert_);
      chain_ = optarg;
      break;
    case 'D':
      add_command(CMD_DELETE, CMD_NONE, invert_);
      chain_ = optarg;
      if (has_arg()) {
        rulenum_ = parse_rulenum(argv[optind++]);
        command_ = CMD_DELETE_NUM;
      }
      break;
    case 'R':
      add_command(CMD_REPLACE, CMD_NONE, invert_);
      chain_ = optarg;
      if (has_arg())
        rulenum_ = parse_rulenum(argv[optind++]);
      else
        xtables_error(PARAMETER_PROBLEM, "-%c requires a rule number", 'R');
      break;
    case 'I':
      add_command(CMD_INSERT, CMD_NONE, invert_);
      chain_ = optarg;
      rulenum_ = has_arg() ? parse_rulenum(argv[optind++]) : 1;
      break;
    case 'L':
    case 'S': {
      if (listing_) {
        add_command(c == 'L' ? CMD_LIST : CMD_LIST_RULES,
                    CMD_ZERO | CMD_ZERO_NUM, invert_);
        if (optarg)
          chain_ = optarg;
        else if (has_arg())
          chain_ = argv[optind++];
        if (has_arg())
          rulenum_ = parse_rulenum(argv[optind++]);
        break;
      }
      const std::string ours = std::string("-") + static_cast<char>(c) +
                               " (listing) is not a restore command";
      // iptables-restore takes it for a second command when a line has one
      // already ("Cannot use -S with -A"; its first command is refused
      // only later).
      if (command_ != 0)
        throw PluginFailure{PARAMETER_PROBLEM, ours,
                            std::string("Cannot use -") + static_cast<char>(c) +
                                " with -" + cmd2char(command_)};
      xtables_error(PARAMETER_PROBLEM, "%s", ours.c_str());
    }
    case 'F':
      add_command(CMD_FLUSH, CMD_NONE, invert_);
      if (optarg)
        chain_ = optarg;
      else if (has_arg())
        chain_ = argv[optind++];
      break;
    case 'Z':
      add_command(CMD_ZERO, CMD_LIST | CMD_LIST_RULES, invert_);
      if (optarg)
        chain_ = optarg;
      else if (has_arg())
        chain_ = argv[optind++];
      if (has_arg()) {
        rulenum_ = parse_rulenum(argv[optind++]);
        command_ = CMD_ZERO_NUM;
      }
      break;
    case 'N':
      assert_valid_chain_name(optarg, chains_);
      add_command(CMD_NEW_CHAIN, CMD_NONE, invert_);
      chain_ = optarg;
      break;
    case 'X':
      add_command(CMD_DELETE_CHAIN, CMD_NONE, invert_);
      if (optarg)
        chain_ = optarg;
      else if (has_arg())
        chain_ = argv[optind++];
      break;
    case 'E':
      add_command(CMD_RENAME_CHAIN, CMD_NONE, invert_);
      chain_ = optarg;
      if (has_arg())
        newname_ = argv[optind++];
      else
        xtables_error(PARAMETER_PROBLEM,
                      "-%c requires old-chain-name and new-chain-name", 'E');
      break;
    case 'P':
      add_command(CMD_SET_POLICY, CMD_NONE, invert_);
      chain_ = optarg;
      if (has_arg())
        policy_ = argv[optind++];
      else
        xtables_error(PARAMETER_PROBLEM, "-%c requires a chain and a policy",
                      'P');
      break;
    case 'h':
    case 'V':
      xtables_error(PARAMETER_PROBLEM, "-%c is not a restore command", c);
    case 'p': {
      set_option(OPT_PROTOCOL, invert_);
      char *p = argv[optind - 1];
      for (char *q = p; *q; ++q)
        *q = static_cast<char>(tolower(static_cast<unsigned char>(*q)));
      protocol_ = p;
      auto num = protocol_number(p);
      if (!num)
        xtables_error(PARAMETER_PROBLEM, "unknown protocol \"%s\" specified",
                      p);
      proto_ = static_cast<uint8_t>(*num);
      if (proto_ == 0 && (invflags_ & XT_INV_PROTO))
        xtables_error(PARAMETER_PROBLEM, "rule would never match protocol");
      if (family_ == Family::ipv4) {
        e4().ip.proto = proto_;
        e4().ip.invflags = static_cast<uint8_t>(invflags_);
      } else {
        e6().ipv6.proto = proto_;
        e6().ipv6.invflags = static_cast<uint8_t>(invflags_);
        e6().ipv6.flags |= IP6T_F_PROTO;
        if ((proto_ == IPPROTO_ROUTING || proto_ == IPPROTO_FRAGMENT ||
             proto_ == IPPROTO_AH || proto_ == IPPROTO_DSTOPTS) &&
            !(invflags_ & XT_INV_PROTO))
          fprintf(stderr,
                  "Warning: never matched protocol: %s. "
                  "use extension match instead.\n",
                  p);
      }
      break;
    }
    case 's':
      set_option(OPT_SOURCE, invert_);
      shost_ = argv[optind - 1];
      shost_words_ = {cur_first_, cur_last_};
      break;
    case 'd':
      set_option(OPT_DESTINATION, invert_);
      dhost_ = argv[optind - 1];
      dhost_words_ = {cur_first_, cur_last_};
      break;
    case 'g':
      set_option(OPT_JUMP, invert_);
      goto_ = true;
      jumpto_ = optarg;
      if (jumpto_.empty())
        xtables_error(PARAMETER_PROBLEM, "Invalid target name (too short)");
      if (jumpto_.size() >= XT_EXTENSION_MAXNAMELEN)
        xtables_error(PARAMETER_PROBLEM,
                      "Invalid target name `%s' (%u chars max)", optarg,
                      XT_EXTENSION_MAXNAMELEN - 1);
      break;
    case 'j':
      set_option(OPT_JUMP, invert_);
      command_jump(argv[optind - 1]);
      break;
    case 'i':
    case 'o': {
      if (*optarg == '\0')
        xtables_error(PARAMETER_PROBLEM,
                      "Empty interface is likely to be undesired");
      bool in = c == 'i';
      set_option(in ? OPT_VIANAMEIN : OPT_VIANAMEOUT, invert_);
      xtables_parse_interface(argv[optind - 1], in ? iniface_ : outiface_,
                              in ? inmask_ : outmask_);
      break;
    }
    case 'f':
      if (family_ == Family::ipv6)
        xtables_error(PARAMETER_PROBLEM,
                      "`-f' is not supported in IPv6, use -m frag instead");
      set_option(OPT_FRAGMENT, invert_);
      frag_ = true;
      break;
    case 'v':
      if (!(options_ & OPT_VERBOSE))
        set_option(OPT_VERBOSE, invert_);
      break;
    case 'm':
      command_match(invert_);
      break;
    case 'n':
      set_option(OPT_NUMERIC, invert_);
      break;
    case 't':
      if (invert_)
        xtables_error(PARAMETER_PROBLEM, "unexpected ! flag before --table");
      if (table_set)
        xtables_error(PARAMETER_PROBLEM,
                      "The -t option cannot be used in %s.\n",
                      xt_params->program_name);
      table_set = true;
      break;
    case 'x':
      set_option(OPT_EXPANDED, invert_);
      break;
    case 'w':
      xtables_error(PARAMETER_PROBLEM,
                    "You cannot use `-w' from iptables-restore");
    case 'W':
      xtables_error(PARAMETER_PROBLEM,
                    "You cannot use `-W' from iptables-restore");
    case '0':
      set_option(OPT_LINENUMBERS, invert_);
      break;
    case 'M':
      break;
    case 'c': {
      set_option(OPT_COUNTERS, invert_);
      const char *pcnt = optarg;
      const char *bcnt = strchr(pcnt + 1, ',');
      if (bcnt)
        bcnt++;
      if (!bcnt && has_arg())
        bcnt = argv[optind++];
      if (!bcnt)
        xtables_error(PARAMETER_PROBLEM, "-%c requires packet and byte counter",
                      'c');
      if (sscanf(pcnt, "%llu", &pcnt_) != 1)
        xtables_error(PARAMETER_PROBLEM, "-%c packet counter not numeric", 'c');
      if (sscanf(bcnt, "%llu", &bcnt_) != 1)
        xtables_error(PARAMETER_PROBLEM, "-%c byte counter not numeric", 'c');
      break;
    }
    case '4':
      if (family_ == Family::ipv4)
        break;
      skip_line_ = true;
      return;
    case '6':
      if (family_ == Family::ipv6)
        break;
      skip_line_ = true;
      return;
    case 1:
      if (optarg[0] == '!' && optarg[1] == '\0') {
        if (invert_)
          xtables_error(PARAMETER_PROBLEM,
                        "multiple consecutive ! not allowed");
        invert_ = true;
        optarg[0] = '\0';
        continue;
      }
      {
        // (iptables prints it itself, without its name: bare.)
        const std::string bad = std::string("Bad argument `") + optarg + "'";
        throw PluginFailure{PARAMETER_PROBLEM, bad, bad, true};
      }
    default:
      if (command_default(invert_))
        continue;
      break;
    }
    invert_ = false;
  }
}

} // namespace fastrestore
