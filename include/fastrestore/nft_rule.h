// Lowering of one IR rule to a libnftnl rule, expression for expression as
// iptables-nft 1.8.9 builds it: interfaces, protocol, addresses, fragment
// test, matches, the counter, then the verdict or target.
#pragma once

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/rule.h>

#include <memory>
#include <string>

#include "fastrestore/ir.h"

namespace fastrestore::nft {

struct RuleDeleter {
  void operator()(nftnl_rule *r) const { nftnl_rule_free(r); }
};
using RulePtr = std::unique_ptr<nftnl_rule, RuleDeleter>;

// Throws Error (at rule.loc) for combinations iptables-nft refuses, such as
// "-m tcp" without "-p tcp".
RulePtr lower_rule(const Rule &rule, Family family, const std::string &table,
                   const std::string &chain);

} // namespace fastrestore::nft
