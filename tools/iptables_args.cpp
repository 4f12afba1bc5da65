#include "iptables_args.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fastrestore/restore_word.h"
#include "parse/rule_number.h"

namespace fastrestore {
namespace {

struct CommandName {
  char letter;
  const char *name; // the long option
};

constexpr CommandName kCommands[] = {
    {'A', "append"},       {'C', "check"},        {'D', "delete"},
    {'I', "insert"},       {'R', "replace"},      {'L', "list"},
    {'S', "list-rules"},   {'F', "flush"},        {'Z', "zero"},
    {'N', "new-chain"},    {'X', "delete-chain"}, {'P', "policy"},
    {'E', "rename-chain"},
};

// The command a word names (-A, --append), or 0.
char command_of(const std::string &w) {
  for (const auto &c : kCommands)
    if ((w.size() == 2 && w[0] == '-' && w[1] == c.letter) ||
        w == std::string("--") + c.name)
      return c.letter;
  return 0;
}

// The long options the command line reads itself; a flag `f` stands for
// its short form.
struct OwnOption {
  const char *name;
  char flag;
  bool value; // takes a value
};

constexpr OwnOption kOwn[] = {
    {"table", 't', true},         {"ipv4", '4', false},
    {"ipv6", '6', false},         {"wait", 'w', false},
    {"wait-interval", 'W', true}, {"modprobe", 'M', true},
    {"verbose", 'v', false},      {"numeric", 'n', false},
    {"exact", 'x', false},        {"line-numbers", 'l', false},
    {"version", 'V', false},      {"help", 'h', false},
};

// Flags that may be bundled in one word (-nvL), a command last.
bool bundle(const std::string &w) {
  if (w.size() < 3 || w[0] != '-' || w[1] == '-')
    return false;
  for (size_t i = 1; i < w.size(); ++i) {
    const char c = w[i];
    const bool flag = std::strchr("vnx46Vh", c) != nullptr;
    const bool cmd = std::strchr("LSFZX", c) != nullptr;
    if (!flag && !(cmd && i + 1 == w.size()))
      return false;
  }
  return true;
}

class Reader {
public:
  Reader(const std::vector<std::string> &args, Family family, IptablesArgs &out)
      : args_(args), family_(family), out_(out) {}

  std::optional<IptablesArgsError> run() {
    for (i_ = 0; i_ < args_.size(); ++i_) {
      const std::string w = args_[i_];
      // A word that is no option, right after a command's arguments or
      // an option of the command line's own: no option's argument, so a
      // stray one (iptables' getopt returns it alone).
      const bool own_before = own_before_;
      own_before_ = true;
      if (own_before && !w.empty() && w[0] != '-' && w != "!")
        return IptablesArgsError{"Bad argument `" + w + "'", true};
      if (bundle(w)) {
        for (size_t k = 1; k < w.size(); ++k) {
          if (auto e = word(std::string("-") + w[k]))
            return e;
          if (out_.version || out_.help)
            return std::nullopt;
        }
        continue;
      }
      if (auto e = word(w))
        return e;
      // -V and -h answer as soon as they are read.
      if (out_.version || out_.help)
        return std::nullopt;
      if (stop_) {
        out_.rule.insert(out_.rule.end(), args_.begin() + i_ + 1, args_.end());
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

private:
  // Whether a next word may be taken as an optional argument: it is
  // there, and starts with neither '-' nor '!' (xs_has_arg).
  bool has_arg() const {
    return i_ + 1 < args_.size() && !args_[i_ + 1].empty() &&
           args_[i_ + 1][0] != '-' && args_[i_ + 1][0] != '!';
  }

  static IptablesArgsError error(std::string m) {
    return IptablesArgsError{std::move(m)};
  }

  std::optional<IptablesArgsError> word(const std::string &w) {
    if (char c = command_of(w))
      return command(c, w, std::nullopt);
    // -AINPUT: a command with its chain in the same word.
    if (w.size() > 2 && w[0] == '-' && w[1] != '-' &&
        std::strchr("ACDIRNEP", w[1]) != nullptr)
      return command(w[1], w.substr(0, 2), w.substr(2));
    std::string name, value;
    bool has_value = false;
    if (w.size() > 2 && w.compare(0, 2, "--") == 0) {
      const size_t eq = w.find('=');
      name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) {
        value = w.substr(eq + 1);
        has_value = true;
      }
    } else if (w.size() >= 2 && w[0] == '-') {
      for (const auto &o : kOwn)
        if (o.flag == w[1] && std::strchr("t46wWvnxVh", w[1]) != nullptr) {
          name = o.name;
          if (w.size() > 2) {
            if (!o.value && w[1] != 'w')
              return rule_word(w);
            value = w.substr(2);
            has_value = true;
          }
        }
    }
    const OwnOption *own = nullptr;
    for (const auto &o : kOwn)
      if (name == o.name)
        own = &o;
    if (own == nullptr)
      return rule_word(w);
    if (own->value && !has_value) {
      if (i_ + 1 >= args_.size())
        return error("option \"" + w + "\" requires an argument");
      value = args_[++i_];
    }
    switch (own->flag) {
    case 't':
      out_.table = value;
      break;
    case '4':
      if (family_ == Family::ipv6)
        return error("");
      break;
    case '6':
      if (family_ == Family::ipv4)
        return error("");
      break;
    case 'w':
      out_.wait = true;
      // An optional number of seconds, in the same word or the next
      // (nf_tables takes no lock: nothing waits).
      if (!has_value && has_arg()) {
        value = args_[++i_];
        has_value = true;
      }
      if (unsigned seconds = 0;
          has_value && std::sscanf(value.c_str(), "%u", &seconds) != 1)
        return error("wait seconds not numeric");
      break;
    case 'W':
      out_.wait_interval = true;
      break;
    case 'M':
      break; // nf_tables loads no module through it
    case 'v':
      ++out_.verbose;
      break;
    // -n, -x and --line-numbers shape a listing; any other command's
    // line carries them, for the rule parser to refuse them in turn
    // with the rule's own options, as iptables does.
    case 'n':
      return listing_option(out_.numeric, "-n", 'n');
    case 'x':
      return listing_option(out_.exact, "-x", 'x');
    case 'l':
      return listing_option(out_.line_numbers, "--line-numbers", '0');
    case 'V':
      out_.version = true;
      break;
    case 'h':
      out_.help = true;
      break;
    }
    return std::nullopt;
  }

  // -n, -x or --line-numbers (`letter` as iptables names it) sets `flag`
  // and goes in the line. Given twice, iptables refuses it there: here
  // too, unless a rule word before it is still to be checked (then the
  // rule parser says which comes first).
  std::optional<IptablesArgsError> listing_option(bool &flag, const char *as,
                                                  char letter) {
    if (flag) {
      const bool pending =
          std::any_of(out_.rule.begin(), out_.rule.end(), [](const auto &w) {
            return w != "-n" && w != "-x" && w != "--line-numbers";
          });
      if (!pending)
        return error(std::string("multiple -") + letter + " flags not allowed");
      stop_ = true;
    }
    flag = true;
    out_.rule.push_back(as);
    return std::nullopt;
  }

  // The command's rule number, the next word.
  std::optional<IptablesArgsError> number() {
    out_.number = args_[++i_];
    const std::optional<unsigned> n = rule_number(out_.number.c_str());
    if (!n)
      return error("Invalid rule number `" + out_.number + "'");
    out_.rulenum = *n;
    return std::nullopt;
  }

  std::optional<IptablesArgsError> rule_word(const std::string &w) {
    own_before_ = false;
    out_.rule.push_back(w);
    return std::nullopt;
  }

  // Command `c`, given as `as`, with its chain in the same word when
  // `attached`.
  std::optional<IptablesArgsError>
  command(char c, const std::string &as, std::optional<std::string> attached) {
    // (getopt takes a required argument before iptables looks at the
    // command.)
    const bool required = std::strchr("ACDIRNEP", c) != nullptr;
    if (required && !attached && i_ + 1 >= args_.size())
      return error("option \"" + as + "\" requires an argument");
    // -Z goes with -L or -S (the listing, then the counters zeroed).
    auto listing = [](char x) { return x == 'L' || x == 'S'; };
    const bool with_list =
        !out_.list_zero && ((c == 'Z' && listing(out_.command)) ||
                            (listing(c) && out_.command == 'Z'));
    if (out_.command != 0 && !with_list) {
      // A second command: the rule parser refuses it in its turn, after
      // what the words before it hold (-S and -L have no rule: here).
      // iptables names the highest command given that does not go with
      // it.
      if (listing(out_.command)) {
        // (Bits: -Z N's above -S's above -Z's above -L's.)
        char other = out_.command;
        if (out_.list_zero && c == 'Z')
          other = 'Z';
        else if (out_.list_zero && !listing(c))
          other = out_.command == 'S' && !out_.zero_rule ? 'S' : 'Z';
        return error(std::string("Cannot use -") + c + " with -" + other);
      }
      // (The words after it go to the rule parser as they are: iptables
      // stops there, once the command has its argument.)
      stop_ = true;
      return rule_word(as + attached.value_or(""));
    }
    if (with_list)
      out_.command = listing(c) ? c : out_.command, out_.list_zero = true;
    else
      out_.command = c;
    if (required) {
      out_.chain = attached ? *attached : args_[++i_];
      // -N's name is checked as it is read, before the words after it.
      if (c == 'N') {
        if (out_.chain.size() >= 29)
          return error("chain name `" + out_.chain +
                       "' too long (must be under 29 chars)");
        if (out_.chain[0] == '-' || out_.chain[0] == '!')
          return error(std::string("chain name not allowed to start with `") +
                       out_.chain[0] + "'");
      }
    } else if (attached) {
      out_.chain = *attached;
    } else if (has_arg()) {
      out_.chain = args_[++i_];
    }
    switch (c) {
    case 'D':
    case 'I':
    case 'L':
    case 'S':
    case 'Z':
      if (has_arg()) {
        if (auto e = number())
          return e;
        out_.zero_rule = c == 'Z';
        // (iptables sets -Z N's command over -L's: no listing then.)
        if (c == 'Z' && with_list)
          out_.command = 'Z', out_.list_zero = false;
      }
      break;
    case 'R':
      if (!has_arg())
        return error("-R requires a rule number");
      return number();
    case 'E':
      if (!has_arg())
        return error("-E requires old-chain-name and new-chain-name");
      out_.second = args_[++i_];
      break;
    case 'P':
      if (!has_arg())
        return error("-P requires a chain and a policy");
      out_.second = args_[++i_];
      break;
    default:
      break;
    }
    return std::nullopt;
  }

  const std::vector<std::string> &args_;
  Family family_;
  IptablesArgs &out_;
  size_t i_ = 0;
  bool own_before_ = true; // no rule option before the word
  bool stop_ = false;      // a second command, for the rule parser to refuse
};

} // namespace

std::optional<IptablesArgsError>
read_iptables_args(const std::vector<std::string> &args, Family family,
                   IptablesArgs &out) {
  if (auto e = Reader(args, family, out).run())
    return e;
  if (out.version || out.help)
    return std::nullopt;
  if (out.wait_interval && !out.wait)
    return IptablesArgsError{"--wait-interval only makes sense with --wait\n"};
  // -S takes none of -n, -x and --line-numbers (naming --line-numbers by
  // its internal "-0"); -L takes them all.
  if (out.command == 'S') {
    const char *illegal = out.numeric        ? "-n"
                          : out.exact        ? "-x"
                          : out.line_numbers ? "-0"
                                             : nullptr;
    if (illegal != nullptr)
      return IptablesArgsError{std::string("Illegal option `") + illegal +
                               "' with this command"};
  }
  return std::nullopt;
}

std::string iptables_restore_line(const IptablesArgs &a) {
  std::string line = std::string("-") + a.command;
  if (!a.chain.empty())
    line += " " + restore_word(a.chain);
  if (!a.number.empty())
    line += " " + a.number;
  if (!a.second.empty())
    line += " " + restore_word(a.second);
  for (const auto &w : a.rule)
    line += " " + restore_word(w);
  return line;
}

} // namespace fastrestore
