// Parsing of one ebtables rule line (ebtables-save / ebtables-restore
// syntax) through the installed libxtables bridge plugins, as
// ebtables-nft 1.8.9's do_commandeb() parses it: the base options (-p -s -d
// -i -o --logical-in --logical-out -j -c) here, every other option offered
// to the rule's target, then to the matches and watchers already in the
// rule, then to every ebtables match (802_3 arp ip ip6 mark_m limit pkttype
// vlan stp among) and watcher (log nflog) in that order, the first that
// takes it joining the rule. The result is a Command whose rules carry
// EbFields and the plugins' blobs (watchers flagged), in rule order.
//
// libxtables is process-global: an EbParser must not be used while an
// XtParser parses (the two take turns; each sets its family per call).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/ir.h"
#include "lex/lexer.h"
#include "parse/rule_parser.h"

namespace fastrestore {

class EbParser : public RuleParser {
public:
  EbParser();
  ~EbParser();
  EbParser(const EbParser &) = delete;
  EbParser &operator=(const EbParser &) = delete;

  // ebtables rules take counters with -c, never from a [p:b] prefix.
  Command parse(std::vector<Token> &words, const std::string &table, int line,
                std::string_view source,
                const std::pair<uint64_t, uint64_t> *counters) override;
  void announce_chain(std::string_view name) override;
  Family family() const override { return Family::bridge; }
};

} // namespace fastrestore
