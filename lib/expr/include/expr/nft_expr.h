// Writers for the nf_tables expressions iptables-nft emits, straight into a
// netlink message (no per-expression allocation): lib/expr, below the
// extension units and the nf_tables backend, which both write through it.
//
// Each call appends one NFTA_LIST_ELEM to the rule's NFTA_RULE_EXPRESSIONS
// nest, with the attributes, register use and attribute order libnftnl 1.2
// produces for iptables-nft 1.8.9 (all loads into NFT_REG_1, verdicts into
// the verdict register), so the kernel ends up with the same rule whichever
// tool loaded it. test/unit/expr_test.cpp checks the bytes against
// libnftnl's own encoding.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace fastrestore::nft {

class ExprWriter {
public:
  explicit ExprWriter(nlmsghdr *nlh) : nlh_(nlh) {}

  void meta_load(uint32_t key);
  void meta_set(uint32_t key, uint32_t sreg);
  void payload(uint32_t base, uint32_t offset, uint32_t len,
               uint32_t dreg = 1 /* NFT_REG_1 */);
  void bitwise(const void *mask, uint32_t len);
  void cmp(uint32_t op, const void *data, uint32_t len);
  void range(uint32_t op, const void *from, const void *to, uint32_t len);
  // A 16-bit port range in host order, lowered as iptables-nft does: one
  // value as cmp eq/neq, [0, hi] as cmp lte/gt, anything else as a range.
  void port_range(uint16_t lo, uint16_t hi, bool invert);
  void counter(uint64_t packets, uint64_t bytes);
  // A set lookup from register 1 (the set by name and transaction id).
  void lookup(const std::string &set, uint32_t set_id, uint32_t flags);
  void verdict(int code, const std::string *chain = nullptr);
  void immediate_u8(uint32_t dreg, uint8_t value);
  void limit(uint64_t rate, uint64_t unit, uint32_t burst, uint32_t type,
             uint32_t flags);
  void log(const std::string *prefix, uint16_t group, const uint32_t *snaplen,
           const uint16_t *qthreshold);
  // Compat expressions carrying an x_tables extension's binary.
  void xt(bool target, const std::string &name, uint32_t rev, const void *info,
          size_t len);

private:
  struct nlattr *begin(const char *name);
  void end(struct nlattr *elem, struct nlattr *data);

  nlmsghdr *nlh_;
};

} // namespace fastrestore::nft
