// Per-line parsing state for XtParser (private to lib/parse).
//
// Owns the libxtables per-rule state (loaded match instances, the target
// instance, merged option tables, parsed address arrays) for one line and
// releases it in its destructor, also when a plugin reports an error.
#pragma once

// glibc's network headers before the kernel's, or they collide.
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include <string>
#include <utility>
#include <vector>

#include "fastrestore/ir.h"
#include "lex/lexer.h"
#include "sys/name_set.h"

struct xtables_match;
struct xtables_target;
struct xtables_rule_match;

namespace fastrestore {

// The letter of a command bit (CMD_APPEND: 'A'), as iptables names it.
char cmd2char(unsigned cmd);

// Option and command bits, in iptables' order (the order matters for the
// legality table and for the letters in error messages).
enum : unsigned {
  OPT_NUMERIC = 1 << 0,
  OPT_SOURCE = 1 << 1,
  OPT_DESTINATION = 1 << 2,
  OPT_PROTOCOL = 1 << 3,
  OPT_JUMP = 1 << 4,
  OPT_VERBOSE = 1 << 5,
  OPT_EXPANDED = 1 << 6,
  OPT_VIANAMEIN = 1 << 7,
  OPT_VIANAMEOUT = 1 << 8,
  OPT_LINENUMBERS = 1 << 9,
  OPT_COUNTERS = 1 << 10,
  OPT_FRAGMENT = 1 << 11,
};
enum : unsigned {
  CMD_NONE = 0,
  CMD_INSERT = 1 << 0,
  CMD_DELETE = 1 << 1,
  CMD_DELETE_NUM = 1 << 2,
  CMD_REPLACE = 1 << 3,
  CMD_APPEND = 1 << 4,
  CMD_LIST = 1 << 5,
  CMD_FLUSH = 1 << 6,
  CMD_ZERO = 1 << 7,
  CMD_NEW_CHAIN = 1 << 8,
  CMD_DELETE_CHAIN = 1 << 9,
  CMD_SET_POLICY = 1 << 10,
  CMD_RENAME_CHAIN = 1 << 11,
  CMD_LIST_RULES = 1 << 12,
  CMD_ZERO_NUM = 1 << 13,
  CMD_CHECK = 1 << 14,
};

// libxtables numbers each extension's options from option_offset up, in
// steps of this size (XT_OPTION_OFFSET_SCALE, internal to libxtables).
inline constexpr unsigned kOptionOffsetScale = 256;

// Option letters, indexed by option bit.
inline constexpr char kOptFlags[] = {'n', 's', 'd', 'p', 'j', 'v',
                                     'x', 'i', 'o', '0', 'c', 'f'};
inline constexpr int kNumOpts = sizeof(kOptFlags);

// getopt_long's short-option string for a rule line.
const char *kOptString();

class XtRuleState {
public:
  // `chains`: the names "-j NAME" jumps to instead of loading a target.
  XtRuleState(Family family, const std::string &table,
              std::vector<Token> &words,
              const std::pair<uint64_t, uint64_t> *counters,
              const NameSet *chains = nullptr);
  ~XtRuleState();
  XtRuleState(const XtRuleState &) = delete;
  XtRuleState &operator=(const XtRuleState &) = delete;

  // -L and -S are read as the iptables command line reads them (their
  // chain, number and options checked; the line then does nothing):
  // the command line checks a listing's words so.
  void allow_listing() { listing_ = true; }

  // The option loop; throws through the libxtables error callback.
  void run();
  // Checks after the loop and conversion to IR.
  Command finish(int line);
  // Location of the word being parsed when an error occurred.
  Location error_location(int line) const;

private:
  void set_option(unsigned option, bool invert);
  void add_command(unsigned cmd, unsigned others, bool invert);
  bool has_arg() const;
  void command_match(bool invert);
  void command_jump(const char *name);
  bool command_default(bool invert);
  xtables_match *load_proto();
  xtables_match *find_proto(int tryload, xtables_rule_match **matches);
  void post_parse();
  void generic_opt_check() const;
  Rule base_rule(int line) const;
  void focus_word(int argv_index);
  void focus_words(std::pair<int, int> range);
  int word_of(const void *ext) const;

  Family family_;
  const NameSet *chains_ = nullptr;
  std::string table_;
  std::vector<Token> &words_;
  std::vector<std::string> store_;
  std::vector<char *> argv_;
  int prefix_ = 0; // argv entries before the first word

  // Parse results, as iptables' xt_cmd_parse / iptables_command_state.
  unsigned command_ = 0;
  bool listing_ = false; // allow_listing()
  unsigned options_ = 0;
  uint16_t invflags_ = 0;
  bool invert_ = false;
  std::string chain_, newname_, policy_;
  unsigned rulenum_ = 0;
  const char *protocol_ = nullptr;
  bool proto_used_ = false;
  uint8_t proto_ = 0;
  const char *shost_ = nullptr, *dhost_ = nullptr;
  // argv ranges of -s / -d and their argument, for address errors.
  std::pair<int, int> shost_words_{-1, -1}, dhost_words_{-1, -1};
  bool goto_ = false;
  std::string jumpto_;
  bool frag_ = false;
  bool skip_line_ = false; // -4 / -6 for the other family
  bool too_many_args_ = false;
  xtables_target *target_ = nullptr;
  xtables_rule_match *matches_ = nullptr;
  std::vector<std::pair<const void *, int>> ext_words_;
  char iniface_[IFNAMSIZ] = {}, outiface_[IFNAMSIZ] = {};
  unsigned char inmask_[IFNAMSIZ] = {}, outmask_[IFNAMSIZ] = {};
  unsigned long long pcnt_ = 0, bcnt_ = 0;
  // The rule's ipt_entry / ip6t_entry, which plugins inspect (for -p).
  alignas(ip6t_entry) unsigned char fw_[sizeof(ip6t_entry) > sizeof(ipt_entry)
                                            ? sizeof(ip6t_entry)
                                            : sizeof(ipt_entry)]{};
  ipt_entry &e4() { return *reinterpret_cast<ipt_entry *>(fw_); }
  ip6t_entry &e6() { return *reinterpret_cast<ip6t_entry *>(fw_); }
  // Parsed addresses (malloc'd by libxtables).
  void *saddrs_ = nullptr, *smasks_ = nullptr, *daddrs_ = nullptr,
       *dmasks_ = nullptr;
  unsigned nsaddrs_ = 0, ndaddrs_ = 0;
  int cur_first_ = -1, cur_last_ = -1; // argv range of the current option
  int last_opt_ = 0;                   // what getopt_long returned
};

} // namespace fastrestore
