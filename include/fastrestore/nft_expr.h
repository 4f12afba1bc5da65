// Small builders for the nf_tables expressions iptables-nft emits.
//
// Each appends one expression to a libnftnl rule, with the same attribute
// set and register use as iptables-nft 1.8.9 (all loads into NFT_REG_1,
// the verdict register for verdicts), so the kernel ends up with the same
// rule whichever tool loaded it.
#pragma once

#include <cstdio> // libnftnl headers need FILE
#include <libnftnl/rule.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace fastrestore::nft {

void add_meta(nftnl_rule *r, uint32_t key);
void add_payload(nftnl_rule *r, uint32_t base, uint32_t offset, uint32_t len);
void add_bitwise(nftnl_rule *r, const void *mask, uint32_t len);
void add_cmp(nftnl_rule *r, uint32_t op, const void *data, uint32_t len);
// A 16-bit port range in host order, lowered as iptables-nft does: one value
// as cmp eq/neq, [0, hi] as cmp lte/gt, anything else as a range expression.
void add_port_range(nftnl_rule *r, uint16_t lo, uint16_t hi, bool invert);
void add_counter(nftnl_rule *r, uint64_t packets, uint64_t bytes);
void add_verdict(nftnl_rule *r, int verdict);
void add_jump(nftnl_rule *r, int verdict, const std::string &chain);
// Compat expressions carrying an x_tables extension's binary.
void add_xt_match(nftnl_rule *r, const std::string &name, uint8_t rev,
                  const void *info, size_t len);
void add_xt_target(nftnl_rule *r, const std::string &name, uint8_t rev,
                   const void *info, size_t len);

} // namespace fastrestore::nft
