// A rule read back from the kernel in the form iptables-nft-save prints it
// from (iptables' iptables_command_state): the base fields, the matches and
// the target as their libxtables plugins store them, and the counters. The
// save's decoders make it, the printers (save_print.h) print it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fastrestore/ir.h"
#include "xtables/plugin_entry.h"

namespace fastrestore::save {

struct SavedRule {
  // The ip / ipv6 base fields of struct ipt_entry / ip6t_entry.
  std::array<char, 16> iniface{}, outiface{};
  std::array<unsigned char, 16> inmask{}, outmask{};
  uint8_t proto = 0;
  uint8_t invflags = 0; // IPT_INV_* (the same bits for IPv6)
  bool frag = false;    // IPv4 -f
  bool go = false;      // -g rather than -j
  std::array<uint8_t, 16> src{}, smsk{}, dst{}, dmsk{};
  // The bridge family's struct ebt_entry fields (interfaces are iniface
  // and outiface, without masks).
  struct Eb {
    uint32_t bitmask = 0x02; // EBT_NOPROTO
    uint32_t invflags = 0;
    uint16_t ethproto = 0; // network order
    std::array<char, 16> logical_in{}, logical_out{};
    std::array<uint8_t, 6> smac{}, smsk{}, dmac{}, dmsk{};
  } eb;
  // The matches as printed: for ip and ip6 each in turn; for the bridge
  // family ebtables-nft's match list, matches and watchers mixed (which
  // keeps only the first and the last).
  std::vector<PluginEntry> matches;
  PluginEntry target; // plugin set for extension and standard targets
  std::string jumpto; // the target's or chain's name; "" for none
  uint64_t packets = 0, bytes = 0;
  // False when an expression is one iptables-nft does not read at all
  // (the rule's table is then "incompatible"); decoding stops there.
  bool compatible = true;
  // Why iptables-nft could not read the rule, one line per expression
  // ("Error: ..." each); empty when it reads.
  std::vector<std::string> errors;
};

} // namespace fastrestore::save
