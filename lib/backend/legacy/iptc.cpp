#include "legacy/iptc.h"

#include <mutex>
#include <string>

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

// libip6tc.h declares its functions without C linkage.
extern "C" {
#include <libiptc/libip6tc.h>
}
#include <libiptc/libiptc.h>

#include "sys/shared_library.h"

namespace fastrestore::legacy {
namespace {

// The libiptc functions used, by their name less the family's prefix
// (the libraries are opened on first use: sys/shared_library.h).
// clang-format off
#define FR_IPTC_CALLS(X)                                                       \
  X(init) X(free) X(commit) X(strerror) X(is_chain) X(builtin)                \
  X(first_chain) X(next_chain) X(flush_entries) X(zero_entries)              \
  X(zero_counter) X(create_chain) X(delete_chain) X(rename_chain)            \
  X(set_policy) X(get_policy) X(first_rule) X(next_rule) X(get_target)       \
  X(append_entry) X(insert_entry) X(replace_entry) X(delete_num_entry)       \
  X(delete_entry) X(check_entry)
// clang-format on

struct Ipv4Calls {
#define FR_FIELD(name) decltype(&iptc_##name) name = nullptr;
  FR_IPTC_CALLS(FR_FIELD)
#undef FR_FIELD
};

struct Ipv6Calls {
#define FR_FIELD(name) decltype(&ip6tc_##name) name = nullptr;
  FR_IPTC_CALLS(FR_FIELD)
#undef FR_FIELD
};

// `calls` filled from the library `soname` (functions `prefix`NAME).
template <typename Calls>
void open_library(const char *soname, const char *prefix, Calls &calls) {
#define FR_LOAD(name)                                                          \
  calls.name = reinterpret_cast<decltype(calls.name)>(                         \
      library_function(soname, (std::string(prefix) + #name).c_str()));
  FR_IPTC_CALLS(FR_LOAD)
#undef FR_LOAD
}

Ipv4Calls v4;
Ipv6Calls v6;

const Iptc kIpv4 = {
    [](const char *t) { return v4.init(t); },
    [](xtc_handle *h) { v4.free(h); },
    [](xtc_handle *h) { return v4.commit(h); },
    [](int e) { return v4.strerror(e); },
    [](const char *c, xtc_handle *h) { return v4.is_chain(c, h); },
    [](const char *c, xtc_handle *h) { return v4.builtin(c, h); },
    [](xtc_handle *h) { return v4.first_chain(h); },
    [](xtc_handle *h) { return v4.next_chain(h); },
    [](const char *c, xtc_handle *h) { return v4.flush_entries(c, h); },
    [](const char *c, xtc_handle *h) { return v4.zero_entries(c, h); },
    [](const char *c, unsigned n, xtc_handle *h) {
      return v4.zero_counter(c, n, h);
    },
    [](const char *c, xtc_handle *h) { return v4.create_chain(c, h); },
    [](const char *c, xtc_handle *h) { return v4.delete_chain(c, h); },
    [](const char *a, const char *b, xtc_handle *h) {
      return v4.rename_chain(a, b, h);
    },
    [](const char *c, const char *p, xt_counters *n, xtc_handle *h) {
      return v4.set_policy(c, p, n, h);
    },
    [](const char *c, xt_counters *n, xtc_handle *h) {
      return v4.get_policy(c, n, h);
    },
    [](const char *c, xtc_handle *h) -> const void * {
      return v4.first_rule(c, h);
    },
    [](const void *e, xtc_handle *h) -> const void * {
      return v4.next_rule(static_cast<const ipt_entry *>(e), h);
    },
    [](const void *e, xtc_handle *h) {
      return v4.get_target(static_cast<const ipt_entry *>(e), h);
    },
    [](const char *c, const void *e, xtc_handle *h) {
      return v4.append_entry(c, static_cast<const ipt_entry *>(e), h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return v4.insert_entry(c, static_cast<const ipt_entry *>(e), n, h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return v4.replace_entry(c, static_cast<const ipt_entry *>(e), n, h);
    },
    [](const char *c, unsigned n, xtc_handle *h) {
      return v4.delete_num_entry(c, n, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return v4.delete_entry(c, static_cast<const ipt_entry *>(e), m, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return v4.check_entry(c, static_cast<const ipt_entry *>(e), m, h);
    },
};

const Iptc kIpv6 = {
    [](const char *t) { return v6.init(t); },
    [](xtc_handle *h) { v6.free(h); },
    [](xtc_handle *h) { return v6.commit(h); },
    [](int e) { return v6.strerror(e); },
    [](const char *c, xtc_handle *h) { return v6.is_chain(c, h); },
    [](const char *c, xtc_handle *h) { return v6.builtin(c, h); },
    [](xtc_handle *h) { return v6.first_chain(h); },
    [](xtc_handle *h) { return v6.next_chain(h); },
    [](const char *c, xtc_handle *h) { return v6.flush_entries(c, h); },
    [](const char *c, xtc_handle *h) { return v6.zero_entries(c, h); },
    [](const char *c, unsigned n, xtc_handle *h) {
      return v6.zero_counter(c, n, h);
    },
    [](const char *c, xtc_handle *h) { return v6.create_chain(c, h); },
    [](const char *c, xtc_handle *h) { return v6.delete_chain(c, h); },
    [](const char *a, const char *b, xtc_handle *h) {
      return v6.rename_chain(a, b, h);
    },
    [](const char *c, const char *p, xt_counters *n, xtc_handle *h) {
      return v6.set_policy(c, p, n, h);
    },
    [](const char *c, xt_counters *n, xtc_handle *h) {
      return v6.get_policy(c, n, h);
    },
    [](const char *c, xtc_handle *h) -> const void * {
      return v6.first_rule(c, h);
    },
    [](const void *e, xtc_handle *h) -> const void * {
      return v6.next_rule(static_cast<const ip6t_entry *>(e), h);
    },
    [](const void *e, xtc_handle *h) {
      return v6.get_target(static_cast<const ip6t_entry *>(e), h);
    },
    [](const char *c, const void *e, xtc_handle *h) {
      return v6.append_entry(c, static_cast<const ip6t_entry *>(e), h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return v6.insert_entry(c, static_cast<const ip6t_entry *>(e), n, h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return v6.replace_entry(c, static_cast<const ip6t_entry *>(e), n, h);
    },
    [](const char *c, unsigned n, xtc_handle *h) {
      return v6.delete_num_entry(c, n, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return v6.delete_entry(c, static_cast<const ip6t_entry *>(e), m, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return v6.check_entry(c, static_cast<const ip6t_entry *>(e), m, h);
    },
};

} // namespace

const Iptc &iptc_of(Family family) {
  static std::once_flag ipv4, ipv6;
  if (family == Family::ipv4) {
    std::call_once(ipv4, [] { open_library("libip4tc.so.2", "iptc_", v4); });
    return kIpv4;
  }
  std::call_once(ipv6, [] { open_library("libip6tc.so.2", "ip6tc_", v6); });
  return kIpv6;
}

} // namespace fastrestore::legacy
