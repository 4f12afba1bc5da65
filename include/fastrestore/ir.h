// The intermediate representation between the parser and the backends.
//
// Passive structs with public fields. A Rule is fully resolved: the base
// fields (-p -s -d -i -o -f) are decoded to bytes, and every match and
// target is an XtBlob holding the binary its libxtables plugin produced, so a
// backend never calls back into libxtables. Each node carries the Location
// of the input it came from, first.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/diagnostic.h"

namespace fastrestore {

enum class Family { ipv4, ipv6, bridge };

// One match or target as its plugin encoded it (the payload of
// xt_entry_match / xt_entry_target, without that header).
struct XtBlob {
  std::string name;
  uint8_t revision = 0;
  std::vector<uint8_t> data;
  // Plugin-private state some lowerings need (NFLOG keeps the full prefix
  // here, longer than the 64 bytes of its kernel struct).
  std::string udata;
  // ebtables: a watcher (log, nflog), a target placed among the matches.
  bool watcher = false;
};

// The base fields of an ebtables rule (struct ebt_entry's), for the bridge
// family; interfaces are Rule::iniface / outiface.
struct EbFields {
  std::string logical_in, logical_out;
  uint32_t bitmask = 0x02; // EBT_NOPROTO unless -p
  uint32_t invflags = 0;   // EBT_I*
  uint16_t ethproto = 0;   // network order
  std::array<uint8_t, 6> smac{}, smsk{}, dmac{}, dmsk{};
  // The rule ebtables-nft appends to a user chain for its ACCEPT or DROP
  // policy (marked in the rule's user data).
  bool policy_rule = false;
};

enum class Verdict {
  none, // no -j: the rule only counts
  accept,
  drop,
  ret,    // RETURN
  jump,   // -j user-chain
  go,     // -g user-chain
  target, // an extension target (LOG, DNAT, ...)
};

struct Rule {
  Location loc;
  std::string iniface, outiface; // as given, may end in '+'
  bool inv_iniface = false, inv_outiface = false;
  uint8_t proto = 0; // 0: any
  bool inv_proto = false;
  bool proto_set = false; // -p was given (legacy IPv6 records it)
  // 4 bytes used for IPv4, 16 for IPv6; masks in network order.
  std::array<uint8_t, 16> src{}, smsk{}, dst{}, dmsk{};
  bool inv_src = false, inv_dst = false;
  bool frag = false, inv_frag = false; // -f (IPv4 only)
  std::vector<XtBlob> matches;
  Verdict verdict = Verdict::none;
  std::string jump_chain; // for jump / go
  std::optional<XtBlob> target;
  uint64_t packets = 0, bytes = 0; // -c / [p:b]; used with --counters
  bool counters_set = false;       // the line gave them (-c, or [p:b] with -c)
  EbFields eb;                     // Family::bridge only
};

enum class CommandKind {
  append,       // -A
  insert,       // -I chain [num]
  remove,       // -D chain rule-spec
  remove_num,   // -D chain num
  replace,      // -R chain num rule-spec
  check,        // -C
  flush,        // -F [chain]
  zero,         // -Z [chain]
  new_chain,    // -N
  delete_chain, // -X [chain]
  rename_chain, // -E old new
  policy,       // -P chain policy
  none,         // a line skipped on purpose (-6 rule in IPv4 input)
};

struct Command {
  Location loc;
  CommandKind kind = CommandKind::none;
  std::string chain;    // empty: all chains (for -F, -Z, -X)
  std::string arg;      // new name (-E) or policy (-P)
  unsigned rulenum = 0; // -I, -D, -R; with -Z: one rule's counters (0: all)
  // One rule per source/destination address pair (-s a,b expands).
  std::vector<Rule> rules;
};

// The commonest rule line, "-A CHAIN" with numeric addresses, interfaces,
// tcp or udp ports and a standard verdict or a jump (see
// include/fastrestore/fast_rule.h), in a form that needs no allocation: a
// backend can encode it straight from here. The views point into the line being
// parsed and are valid only while the sink handles it. to_command() gives
// the general form.
struct BasicAppend {
  Location loc;      // the command, as Command::loc
  Location rule_loc; // as Rule::loc
  std::string_view chain;
  std::string_view iniface, outiface; // as given, may end in '+'
  uint8_t proto = 0;                  // 0, IPPROTO_TCP or IPPROTO_UDP
  bool proto_set = false;
  // 4 bytes used for IPv4, 16 for IPv6; addresses already masked.
  std::array<uint8_t, 16> src{}, smsk{}, dst{}, dmsk{};
  bool port_match = false; // a tcp / udp match (-m, --sport or --dport)
  uint16_t spts[2] = {0, 0xffff}, dpts[2] = {0, 0xffff};
  Verdict verdict = Verdict::none; // none, accept, drop, ret or jump
  std::string_view jump_chain;
  uint64_t packets = 0, bytes = 0;
  bool counters_set = false; // as Rule::counters_set
};

Command to_command(const BasicAppend &a);

// ":NAME POLICY [p:b]" in a table block.
struct ChainDecl {
  Location loc;
  std::string name;
  std::string policy; // "ACCEPT", "DROP" or "-"
  uint64_t packets = 0, bytes = 0;
  bool builtin = false;
};

// Everything between "*table" and "COMMIT", in input order.
struct Block {
  Location loc; // the *table line
  Location commit_loc;
  std::string table;
  Family family = Family::ipv4; // which tables `table` names
  // Declarations and commands interleaved as read; exactly one of the two
  // is set per entry.
  struct Entry {
    std::optional<ChainDecl> decl;
    std::optional<Command> cmd;
  };
  std::vector<Entry> entries;
};

} // namespace fastrestore
