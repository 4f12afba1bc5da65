// XtRuleState after the option loop: the final checks iptables makes, the
// address expansion, and the conversion of the libxtables state to IR.
#include <arpa/inet.h>
#include <getopt.h>
#include <xtables.h>

#include <cstring>

#include "plugin_guards.h"
#include "xt_state.h"

namespace fastrestore {
namespace {

// Which options each command allows: 'x' illegal, ' ' optional. Rows in
// command-bit order, columns in option-bit order (see kOptFlags).
constexpr const char *kCmdVsOpt[] = {
    "x     x  x  ", // INSERT
    "x     x  xx ", // DELETE
    "xxxxx xxxxxx", // DELETE_NUM
    "x     x  x  ", // REPLACE
    "x     x  x  ", // APPEND
    " xxxx  xx xx", // LIST
    "xxxxx xxxxxx", // FLUSH
    "xxxxx xxxxxx", // ZERO
    "xxxxx xxxxxx", // NEW_CHAIN
    "xxxxx xxxxxx", // DELETE_CHAIN
    "xxxxx xxxx x", // SET_POLICY
    "xxxxx xxxxxx", // RENAME
    "xxxxx xxxxxx", // LIST_RULES
    "xxxxx xxxxxx", // ZERO_NUM
    "x     x  xx ", // CHECK
};
constexpr int kNumCmds = sizeof(kCmdVsOpt) / sizeof(kCmdVsOpt[0]);

XtBlob blob(const char *name, uint8_t rev, const unsigned char *data,
            size_t len) {
  XtBlob b;
  b.name = name;
  b.revision = rev;
  b.data.assign(data, data + len);
  return b;
}

} // namespace

void XtRuleState::generic_opt_check() const {
  // An option is legal when any of the given commands allows it.
  for (int i = 0; i < kNumOpts; ++i) {
    if (!(options_ & (1u << i)))
      continue;
    int legal = 0;
    for (int j = 0; j < kNumCmds; ++j) {
      if (!(command_ & (1u << j)))
        continue;
      if (kCmdVsOpt[j][i] != 'x')
        legal = 1;
      else if (legal == 0)
        legal = -1;
    }
    if (legal == -1)
      xtables_error(PARAMETER_PROBLEM, "Illegal option `-%c' with this command",
                    kOptFlags[i]);
  }
}

void XtRuleState::post_parse() {
  const bool v4 = family_ == Family::ipv4;
  if (command_ &
      (CMD_REPLACE | CMD_INSERT | CMD_DELETE | CMD_APPEND | CMD_CHECK)) {
    if (!(options_ & OPT_DESTINATION))
      dhost_ = v4 ? "0.0.0.0/0" : "::0/0";
    if (!(options_ & OPT_SOURCE))
      shost_ = v4 ? "0.0.0.0/0" : "::0/0";
  }
  auto parse = [&](const char *spec, std::pair<int, int> words, void **addrs,
                   void **masks, unsigned *n) {
    if (spec == nullptr)
      return;
    focus_words(words);
    if (v4)
      xtables_ipparse_multiple(spec, reinterpret_cast<in_addr **>(addrs),
                               reinterpret_cast<in_addr **>(masks), n);
    else
      xtables_ip6parse_multiple(spec, reinterpret_cast<in6_addr **>(addrs),
                                reinterpret_cast<in6_addr **>(masks), n);
  };
  parse(shost_, shost_words_, &saddrs_, &smasks_, &nsaddrs_);
  parse(dhost_, dhost_words_, &daddrs_, &dmasks_, &ndaddrs_);
  if ((nsaddrs_ > 1 || ndaddrs_ > 1) &&
      (invflags_ & (IPT_INV_SRCIP | IPT_INV_DSTIP)))
    xtables_error(PARAMETER_PROBLEM,
                  "! not allowed with multiple source or destination IP "
                  "addresses");
}

Rule XtRuleState::base_rule(int line) const {
  Rule r;
  r.loc = Location{line, words_.empty() ? 0 : words_.front().col_begin,
                   words_.empty() ? 0 : words_.back().col_end};
  r.iniface = iniface_;
  r.outiface = outiface_;
  r.inv_iniface = invflags_ & IPT_INV_VIA_IN;
  r.inv_outiface = invflags_ & IPT_INV_VIA_OUT;
  r.proto = proto_;
  r.inv_proto = invflags_ & XT_INV_PROTO;
  r.proto_set = options_ & OPT_PROTOCOL;
  r.inv_src = invflags_ & IPT_INV_SRCIP;
  r.inv_dst = invflags_ & IPT_INV_DSTIP;
  r.frag = frag_;
  r.inv_frag = invflags_ & IPT_INV_FRAG;
  r.packets = pcnt_;
  r.bytes = bcnt_;
  r.counters_set = options_ & OPT_COUNTERS;
  for (auto *mp = matches_; mp != nullptr; mp = mp->next) {
    const xt_entry_match *m = mp->match->m;
    r.matches.push_back(blob(m->u.user.name, m->u.user.revision, m->data,
                             m->u.match_size - sizeof(*m)));
  }
  if (target_ != nullptr) {
    if (jumpto_ == "ACCEPT") {
      r.verdict = Verdict::accept;
    } else if (jumpto_ == "DROP") {
      r.verdict = Verdict::drop;
    } else if (jumpto_ == "RETURN") {
      r.verdict = Verdict::ret;
    } else {
      const xt_entry_target *t = target_->t;
      r.verdict = Verdict::target;
      r.target = blob(t->u.user.name, t->u.user.revision, t->data,
                      t->u.target_size - sizeof(*t));
      if (target_->udata != nullptr && target_->udata_size != 0 &&
          strcmp(t->u.user.name, "NFLOG") == 0)
        r.target->udata = static_cast<const char *>(target_->udata);
    }
  } else if (!jumpto_.empty()) {
    r.verdict = goto_ ? Verdict::go : Verdict::jump;
    r.jump_chain = jumpto_;
  }
  return r;
}

Command XtRuleState::finish(int line) {
  Command cmd;
  cmd.loc = error_location(line);
  if (skip_line_) {
    cmd.kind = CommandKind::none;
    return cmd;
  }
  focus_word(static_cast<int>(argv_.size()) - 2);
  if (table_ == "nat" && (policy_ == "DROP" || jumpto_ == "DROP"))
    xtables_error(PARAMETER_PROBLEM,
                  "\nThe \"nat\" table is not intended for filtering, the use "
                  "of DROP is therefore inhibited.\n\n");
  for (auto *mp = matches_; mp != nullptr; mp = mp->next) {
    focus_word(word_of(mp->match));
    guard_match_check(mp->match);
    xtables_option_mfcall(mp->match);
  }
  if (target_ != nullptr) {
    focus_word(word_of(target_));
    xtables_option_tfcall(target_);
  }
  focus_word(optind);
  if (optind < static_cast<int>(argv_.size()) - 1)
    xtables_error(PARAMETER_PROBLEM, "unknown arguments found on commandline");
  if (!command_)
    xtables_error(PARAMETER_PROBLEM, "no command specified");
  if (invert_)
    xtables_error(PARAMETER_PROBLEM, "nothing appropriate following !");
  post_parse();
  focus_word(prefix_);
  if (command_ == CMD_REPLACE && (nsaddrs_ != 1 || ndaddrs_ != 1))
    xtables_error(PARAMETER_PROBLEM,
                  "Replacement rule does not specify a unique address");
  generic_opt_check();
  if (chain_.size() >= XT_EXTENSION_MAXNAMELEN)
    xtables_error(PARAMETER_PROBLEM,
                  "chain name `%s' too long (must be under %u chars)",
                  chain_.c_str(), XT_EXTENSION_MAXNAMELEN);
  if (command_ & (CMD_APPEND | CMD_DELETE | CMD_DELETE_NUM | CMD_CHECK |
                  CMD_INSERT | CMD_REPLACE)) {
    if ((chain_ == "PREROUTING" || chain_ == "INPUT") &&
        (options_ & OPT_VIANAMEOUT))
      xtables_error(PARAMETER_PROBLEM, "Can't use -%c with %s\n", 'o',
                    chain_.c_str());
    if ((chain_ == "POSTROUTING" || chain_ == "OUTPUT") &&
        (options_ & OPT_VIANAMEIN))
      xtables_error(PARAMETER_PROBLEM, "Can't use -%c with %s\n", 'i',
                    chain_.c_str());
  }

  if (command_ & (CMD_LIST | CMD_LIST_RULES)) {
    cmd.kind = CommandKind::none; // (checked only: see allow_listing)
    return cmd;
  }
  cmd.chain = chain_;
  cmd.rulenum = rulenum_;
  switch (command_) {
  case CMD_APPEND:
    cmd.kind = CommandKind::append;
    break;
  case CMD_INSERT:
    cmd.kind = CommandKind::insert;
    break;
  case CMD_DELETE:
    cmd.kind = CommandKind::remove;
    break;
  case CMD_DELETE_NUM:
    cmd.kind = CommandKind::remove_num;
    break;
  case CMD_REPLACE:
    cmd.kind = CommandKind::replace;
    break;
  case CMD_CHECK:
    cmd.kind = CommandKind::check;
    break;
  case CMD_FLUSH:
    cmd.kind = CommandKind::flush;
    break;
  case CMD_ZERO:
  case CMD_ZERO_NUM: // rulenum: one rule's counters
    cmd.kind = CommandKind::zero;
    break;
  case CMD_NEW_CHAIN:
    cmd.kind = CommandKind::new_chain;
    break;
  case CMD_DELETE_CHAIN:
    cmd.kind = CommandKind::delete_chain;
    break;
  case CMD_RENAME_CHAIN:
    cmd.kind = CommandKind::rename_chain;
    cmd.arg = newname_;
    break;
  case CMD_SET_POLICY:
    cmd.kind = CommandKind::policy;
    cmd.arg = policy_;
    break;
  default:
    xtables_error(PARAMETER_PROBLEM,
                  "this command is not supported in restore input");
  }

  if (command_ &
      (CMD_APPEND | CMD_INSERT | CMD_DELETE | CMD_REPLACE | CMD_CHECK)) {
    const size_t alen = family_ == Family::ipv4 ? 4 : 16;
    Rule proto = base_rule(line);
    auto bytes = [&](void *arr, unsigned i) {
      return static_cast<const uint8_t *>(arr) + i * alen;
    };
    cmd.rules.reserve(size_t(nsaddrs_) * ndaddrs_);
    for (unsigned i = 0; i < nsaddrs_; ++i) {
      for (unsigned j = 0; j < ndaddrs_; ++j) {
        // The last pair takes the prototype itself.
        const bool last = i + 1 == nsaddrs_ && j + 1 == ndaddrs_;
        Rule r = last ? std::move(proto) : proto;
        const uint8_t *sa = bytes(saddrs_, i), *sm = bytes(smasks_, i);
        const uint8_t *da = bytes(daddrs_, j), *dm = bytes(dmasks_, j);
        std::memcpy(r.src.data(), sa, alen);
        std::memcpy(r.smsk.data(), sm, alen);
        std::memcpy(r.dst.data(), da, alen);
        std::memcpy(r.dmsk.data(), dm, alen);
        cmd.rules.push_back(std::move(r));
      }
    }
  }
  return cmd;
}

} // namespace fastrestore
