// The iptables command line's words, read as iptables-nft 1.8.9 reads
// them: the options of the command line itself (-t, -4/-6, -w, -W,
// --modprobe, -v, -n, -x, --line-numbers, -V, -h), the one command with
// its chain and numbers, and every other word, in order, for the rule
// (parsed later as the restore parses a line: by the libxtables plugins).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

struct IptablesArgs {
  std::string table = "filter";
  char command = 0;     // 'A', 'C', 'D', 'I', 'R', 'L', 'S', 'F', 'Z', 'N',
                        // 'X', 'P', 'E'; 0: none
  std::string chain;    // "" where the command takes every chain
  std::string number;   // -D/-I/-R/-L/-S/-Z's rule number, as given
  unsigned rulenum = 0; // ... and its value
  std::string second;   // -P's policy, -E's new name
  std::vector<std::string> rule; // the rest, in order
  bool list_zero = false;        // -L or -S with -Z
  bool zero_rule = false;        // the number came with -Z (one rule's)
  int verbose = 0;
  bool numeric = false, exact = false, line_numbers = false;
  bool version = false, help = false;
  bool wait = false;          // -w given (nf_tables takes no lock)
  bool wait_interval = false; // -W given (iptables-nft says it ignores it)
};

// A command line iptables refuses before it reads the kernel: its message
// ("" when it prints only the hint), with the exit status 2.
struct IptablesArgsError {
  std::string message;
  bool bare = false; // printed without the "iptables vVERSION: " prefix
};

// Reads `args` (after the program's name) for `family` (ipv4 or ipv6);
// the error iptables-nft prints otherwise.
std::optional<IptablesArgsError>
read_iptables_args(const std::vector<std::string> &args, Family family,
                   IptablesArgs &out);

// The restore line that carries out the command (-A, -C, -D, -I, -R, -F,
// -Z, -N, -X, -P, -E), each word quoted as the restore lexer reads it.
std::string iptables_restore_line(const IptablesArgs &a);

} // namespace fastrestore
