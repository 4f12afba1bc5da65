// The libiptc calls of one family (libiptc for IPv4, libip6tc for IPv6)
// behind one table of functions, entries passed as `const void *`
// (ipt_entry or ip6t_entry): the one place that picks the family's
// library, for the legacy restore writer and the legacy text save.
// Implemented in lib/backend/legacy/iptc.cpp.
#pragma once

#include "fastrestore/ir.h"

struct xtc_handle;
struct xt_counters;

namespace fastrestore::legacy {

struct Iptc {
  xtc_handle *(*init)(const char *table);
  void (*free)(xtc_handle *);
  int (*commit)(xtc_handle *);
  const char *(*strerror)(int);
  // Chains.
  int (*is_chain)(const char *, xtc_handle *);
  int (*builtin)(const char *, xtc_handle *);
  const char *(*first_chain)(xtc_handle *);
  const char *(*next_chain)(xtc_handle *);
  int (*flush)(const char *, xtc_handle *);
  int (*zero)(const char *, xtc_handle *);
  int (*zero_rule)(const char *, unsigned, xtc_handle *);
  int (*create)(const char *, xtc_handle *);
  int (*remove)(const char *, xtc_handle *);
  int (*rename)(const char *, const char *, xtc_handle *);
  int (*set_policy)(const char *, const char *, xt_counters *, xtc_handle *);
  const char *(*get_policy)(const char *, xt_counters *, xtc_handle *);
  // Rules.
  const void *(*first_rule)(const char *, xtc_handle *);
  const void *(*next_rule)(const void *, xtc_handle *);
  const char *(*target)(const void *, xtc_handle *);
  int (*append)(const char *, const void *, xtc_handle *);
  int (*insert)(const char *, const void *, unsigned, xtc_handle *);
  int (*replace)(const char *, const void *, unsigned, xtc_handle *);
  int (*delete_num)(const char *, unsigned, xtc_handle *);
  int (*delete_entry)(const char *, const void *, unsigned char *,
                      xtc_handle *);
  int (*check)(const char *, const void *, unsigned char *, xtc_handle *);
};

// The calls of `family`: IPv4's for ipv4, IPv6's otherwise.
const Iptc &iptc_of(Family family);

} // namespace fastrestore::legacy
