// The struct ipt_entry / ip6t_entry a libxtables plugin's save and print
// functions read a rule's base fields from, filled from a SavedRule.
#pragma once

// glibc's network headers before the kernel's, or they collide.
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "print/saved_rule.h"

namespace fastrestore::save {

class IpEntry {
public:
  IpEntry(const SavedRule &r, Family family);
  IpEntry(const IpEntry &) = delete;
  IpEntry &operator=(const IpEntry &) = delete;

  // What the plugins take as their `ip` argument.
  const void *fw() const { return buf_; }

private:
  // (Either entry ends in a flexible array: held as bytes.)
  alignas(ip6t_entry) unsigned char buf_[sizeof(ip6t_entry) > sizeof(ipt_entry)
                                             ? sizeof(ip6t_entry)
                                             : sizeof(ipt_entry)]{};
};

} // namespace fastrestore::save
