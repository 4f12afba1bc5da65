#include "xt_state.h"

#include "plugin_guards.h"

#include <getopt.h>
#include <xtables.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "parse/protocols.h"

namespace fastrestore {
namespace {

constexpr uint16_t kInverseFor[kNumOpts] = {0,
                                            IPT_INV_SRCIP,
                                            IPT_INV_DSTIP,
                                            XT_INV_PROTO,
                                            0,
                                            0,
                                            0,
                                            IPT_INV_VIA_IN,
                                            IPT_INV_VIA_OUT,
                                            0,
                                            0,
                                            IPT_INV_FRAG};

constexpr char kCmdFlags[] = {'I', 'D', 'D', 'R', 'A', 'L', 'F', 'Z',
                              'N', 'X', 'P', 'E', 'S', 'Z', 'C'};
constexpr int kNumCmds = sizeof(kCmdFlags);

char opt2char(unsigned opt) {
  int i = 0;
  for (; opt > 1; opt >>= 1)
    ++i;
  return i < kNumOpts ? kOptFlags[i] : '?';
}

const char *parse_target_name(const char *name) {
  size_t len = strlen(name);
  if (len < 1)
    xtables_error(PARAMETER_PROBLEM, "Invalid target name (too short)");
  if (len >= XT_EXTENSION_MAXNAMELEN)
    xtables_error(PARAMETER_PROBLEM, "Invalid target name `%s' (%u chars max)",
                  name, XT_EXTENSION_MAXNAMELEN - 1);
  for (const char *p = name; *p; ++p)
    if (isspace(static_cast<unsigned char>(*p)))
      xtables_error(PARAMETER_PROBLEM, "Invalid target name `%s'", name);
  return name;
}

void init_match(xtables_match *m) {
  if (m->udata_size != 0) {
    free(m->udata);
    m->udata = xtables_calloc(1, m->udata_size);
  }
  if (m->init != nullptr)
    m->init(m->m);
}

void init_target(xtables_target *t) {
  if (t->udata_size != 0) {
    free(t->udata);
    t->udata = xtables_calloc(1, t->udata_size);
  }
  if (t->init != nullptr)
    t->init(t->t);
}

void merge_options(const xt_option_entry *x6, const struct option *old,
                   unsigned *offset) {
  struct option *opts =
      x6 != nullptr ? xtables_options_xfrm(xt_params->orig_opts,
                                           xt_params->opts, x6, offset)
                    : xtables_merge_options(xt_params->orig_opts,
                                            xt_params->opts, old, offset);
  if (opts == nullptr)
    xtables_error(OTHER_PROBLEM, "can't alloc memory!");
  xt_params->opts = opts;
}

// iptables-restore's MAX_ARGC.
constexpr size_t kMaxArgs = 255;

} // namespace

char cmd2char(unsigned cmd) {
  int i = 0;
  for (; cmd > 1; cmd >>= 1)
    ++i;
  return i < kNumCmds ? kCmdFlags[i] : '?';
}

XtRuleState::XtRuleState(Family family, const std::string &table,
                         std::vector<Token> &words,
                         const std::pair<uint64_t, uint64_t> *counters,
                         const NameSet *chains)
    : family_(family), chains_(chains), table_(table), words_(words) {
  store_.reserve(6);
  argv_.reserve(words.size() + 8);
  store_.push_back("fastrestore");
  store_.push_back("-t");
  store_.push_back(table);
  if (counters != nullptr) {
    store_.push_back("--set-counters");
    store_.push_back(std::to_string(counters->first));
    store_.push_back(std::to_string(counters->second));
  }
  prefix_ = static_cast<int>(store_.size());
  too_many_args_ = store_.size() + words.size() + 1 >= kMaxArgs;
  for (auto &s : store_)
    argv_.push_back(s.data());
  // getopt and the plugins may write into the words (-p lowercases them).
  for (auto &w : words)
    argv_.push_back(w.text.data());
  argv_.push_back(nullptr);
  if (family_ == Family::ipv6)
    e6().ipv6.flags = 0;
}

XtRuleState::~XtRuleState() {
  // A match used twice in the rule is a clone, which
  // xtables_rule_matches_free frees without its udata.
  for (auto *mp = matches_; mp != nullptr; mp = mp->next)
    if (mp->match != nullptr && mp->match == mp->match->next) {
      free(mp->match->udata);
      mp->match->udata = nullptr;
    }
  xtables_rule_matches_free(&matches_);
  if (target_ != nullptr) {
    free(target_->t);
    target_->t = nullptr;
    free(target_->udata);
    target_->udata = nullptr;
    if (target_ == target_->next)
      free(target_);
  }
  xtables_free_opts(1);
  free(saddrs_);
  free(smasks_);
  free(daddrs_);
  free(dmasks_);
}

void XtRuleState::focus_word(int argv_index) {
  cur_first_ = cur_last_ = argv_index;
}

void XtRuleState::focus_words(std::pair<int, int> range) {
  cur_first_ = range.first;
  cur_last_ = range.second;
}

int XtRuleState::word_of(const void *ext) const {
  for (const auto &[e, w] : ext_words_)
    if (e == ext)
      return w;
  return -1;
}

Location XtRuleState::error_location(int line) const {
  Location loc{line, 0, 0};
  int first = cur_first_ - prefix_, last = cur_last_ - prefix_;
  int n = static_cast<int>(words_.size());
  if (first < 0 && last >= 0)
    first = 0;
  if (last >= n)
    last = n - 1;
  if (first >= 0 && first < n && last >= first) {
    loc.col_begin = words_[first].col_begin;
    loc.col_end = words_[last].col_end;
  }
  return loc;
}

bool XtRuleState::has_arg() const {
  int argc = static_cast<int>(argv_.size()) - 1;
  return optind < argc && argv_[optind][0] != '-' && argv_[optind][0] != '!';
}

void XtRuleState::set_option(unsigned option, bool invert) {
  if (options_ & option)
    xtables_error(PARAMETER_PROBLEM, "multiple -%c flags not allowed",
                  opt2char(option));
  options_ |= option;
  if (invert) {
    int i = 0;
    while ((1u << i) != option)
      ++i;
    if (!kInverseFor[i])
      xtables_error(PARAMETER_PROBLEM, "cannot have ! before -%c",
                    opt2char(option));
    invflags_ |= kInverseFor[i];
  }
}

void XtRuleState::add_command(unsigned cmd, unsigned others, bool invert) {
  if (invert)
    xtables_error(PARAMETER_PROBLEM, "unexpected '!' flag");
  if (command_ & ~others)
    xtables_error(PARAMETER_PROBLEM, "Cannot use -%c with -%c", cmd2char(cmd),
                  cmd2char(command_ & ~others));
  command_ |= cmd;
}

xtables_match *XtRuleState::find_proto(int tryload,
                                       xtables_rule_match **matches) {
  auto load = static_cast<xtables_tryload>(tryload);
  unsigned num;
  if (xtables_strtoui(protocol_, nullptr, &num, 0, UINT8_MAX)) {
    const char *name = builtin_protocol_name(static_cast<int>(num));
    if (name != nullptr && num != 0)
      return xtables_find_match(name, load, matches);
    return nullptr;
  }
  return xtables_find_match(protocol_, load, matches);
}

xtables_match *XtRuleState::load_proto() {
  if (protocol_ == nullptr)
    return nullptr;
  // iptables asks whether the protocol's match is loaded before checking
  // proto_used; that probe hands back an untracked copy of a match already
  // in use (a leak), and a match is in use whenever proto_used is set.
  if (proto_used_)
    return nullptr;
  return find_proto(XTF_TRY_LOAD, &matches_);
}

void XtRuleState::command_match(bool invert) {
  if (invert)
    xtables_error(PARAMETER_PROBLEM, "unexpected ! flag before --match");
  xtables_match *m =
      xtables_find_match(optarg, XTF_LOAD_MUST_SUCCEED, &matches_);
  size_t size = XT_ALIGN(sizeof(xt_entry_match)) + m->size;
  m->m = static_cast<xt_entry_match *>(xtables_calloc(1, size));
  m->m->u.match_size = size;
  if (m->real_name == nullptr) {
    strcpy(m->m->u.user.name, m->name);
  } else {
    strcpy(m->m->u.user.name, m->real_name);
    if (!(m->ext_flags & XTABLES_EXT_ALIAS))
      fprintf(stderr,
              "Notice: the %s match is converted into %s match "
              "in rule listing and saving.\n",
              m->name, m->real_name);
  }
  m->m->u.user.revision = m->revision;
  init_match(m);
  ext_words_.emplace_back(m, cur_first_);
  if (m == m->next)
    return;
  merge_options(m->x6_options, m->extra_opts, &m->option_offset);
}

void XtRuleState::command_jump(const char *name) {
  jumpto_ = parse_target_name(name);
  // A declared chain shadows any plugin of its name, as an announced
  // chain does in libxtables.
  if (chains_ != nullptr && chains_->contains(jumpto_))
    return;
  target_ = xtables_find_target(jumpto_.c_str(), XTF_TRY_LOAD);
  if (target_ == nullptr)
    return;
  size_t size = XT_ALIGN(sizeof(xt_entry_target)) + target_->size;
  target_->t = static_cast<xt_entry_target *>(xtables_calloc(1, size));
  target_->t->u.target_size = size;
  if (target_->real_name == nullptr) {
    strcpy(target_->t->u.user.name, jumpto_.c_str());
  } else {
    strcpy(target_->t->u.user.name, target_->real_name);
    if (!(target_->ext_flags & XTABLES_EXT_ALIAS))
      fprintf(stderr,
              "Notice: The %s target is converted into %s target "
              "in rule listing and saving.\n",
              jumpto_.c_str(), target_->real_name);
  }
  target_->t->u.user.revision = target_->revision;
  init_target(target_);
  ext_words_.emplace_back(target_, cur_first_);
  merge_options(target_->x6_options, target_->extra_opts,
                &target_->option_offset);
}

// Returns true when the option must be parsed again (a protocol match was
// just loaded and its options merged).
bool XtRuleState::command_default(bool invert) {
  int c = last_opt_;
  if (target_ != nullptr &&
      (target_->parse != nullptr || target_->x6_parse != nullptr) &&
      c >= static_cast<int>(target_->option_offset) &&
      c < static_cast<int>(target_->option_offset + kOptionOffsetScale)) {
    xtables_option_tpcall(c, argv_.data(), invert, target_, &fw_);
    return false;
  }
  for (auto *mp = matches_; mp != nullptr; mp = mp->next) {
    xtables_match *m = mp->match;
    if (mp->completed || (m->x6_parse == nullptr && m->parse == nullptr))
      continue;
    if (c < static_cast<int>(m->option_offset) ||
        c >= static_cast<int>(m->option_offset + kOptionOffsetScale))
      continue;
    guard_match_option(m, static_cast<unsigned>(c) - m->option_offset, optarg);
    xtables_option_mpcall(c, argv_.data(), invert, m, &fw_);
    return false;
  }
  if (xtables_match *m = load_proto()) {
    proto_used_ = true;
    size_t size = XT_ALIGN(sizeof(xt_entry_match)) + m->size;
    m->m = static_cast<xt_entry_match *>(xtables_calloc(1, size));
    m->m->u.match_size = size;
    strcpy(m->m->u.user.name, m->name);
    m->m->u.user.revision = m->revision;
    init_match(m);
    ext_words_.emplace_back(m, cur_first_);
    merge_options(m->x6_options, m->extra_opts, &m->option_offset);
    optind--;
    return true;
  }
  if (c == ':')
    xtables_error(PARAMETER_PROBLEM, "option \"%s\" requires an argument",
                  argv_[optind - 1]);
  if (c == '?')
    xtables_error(PARAMETER_PROBLEM, "unknown option \"%s\"",
                  argv_[optind - 1]);
  xtables_error(PARAMETER_PROBLEM, "Unknown arg \"%s\"", optarg);
}

} // namespace fastrestore
