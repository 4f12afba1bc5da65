#include "legacy/iptc.h"

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

// libip6tc.h declares its functions without C linkage.
extern "C" {
#include <libiptc/libip6tc.h>
}
#include <libiptc/libiptc.h>

namespace fastrestore::legacy {
namespace {

const Iptc kIpv4 = {
    iptc_init,
    iptc_free,
    iptc_commit,
    iptc_strerror,
    [](const char *c, xtc_handle *h) { return iptc_is_chain(c, h); },
    [](const char *c, xtc_handle *h) { return iptc_builtin(c, h); },
    iptc_first_chain,
    iptc_next_chain,
    [](const char *c, xtc_handle *h) { return iptc_flush_entries(c, h); },
    [](const char *c, xtc_handle *h) { return iptc_zero_entries(c, h); },
    [](const char *c, unsigned n, xtc_handle *h) {
      return iptc_zero_counter(c, n, h);
    },
    [](const char *c, xtc_handle *h) { return iptc_create_chain(c, h); },
    [](const char *c, xtc_handle *h) { return iptc_delete_chain(c, h); },
    [](const char *a, const char *b, xtc_handle *h) {
      return iptc_rename_chain(a, b, h);
    },
    [](const char *c, const char *p, xt_counters *n, xtc_handle *h) {
      return iptc_set_policy(c, p, n, h);
    },
    [](const char *c, xt_counters *n, xtc_handle *h) {
      return iptc_get_policy(c, n, h);
    },
    [](const char *c, xtc_handle *h) -> const void * {
      return iptc_first_rule(c, h);
    },
    [](const void *e, xtc_handle *h) -> const void * {
      return iptc_next_rule(static_cast<const ipt_entry *>(e), h);
    },
    [](const void *e, xtc_handle *h) {
      return iptc_get_target(static_cast<const ipt_entry *>(e), h);
    },
    [](const char *c, const void *e, xtc_handle *h) {
      return iptc_append_entry(c, static_cast<const ipt_entry *>(e), h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return iptc_insert_entry(c, static_cast<const ipt_entry *>(e), n, h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return iptc_replace_entry(c, static_cast<const ipt_entry *>(e), n, h);
    },
    [](const char *c, unsigned n, xtc_handle *h) {
      return iptc_delete_num_entry(c, n, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return iptc_delete_entry(c, static_cast<const ipt_entry *>(e), m, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return iptc_check_entry(c, static_cast<const ipt_entry *>(e), m, h);
    },
};

const Iptc kIpv6 = {
    ip6tc_init,
    ip6tc_free,
    ip6tc_commit,
    ip6tc_strerror,
    [](const char *c, xtc_handle *h) { return ip6tc_is_chain(c, h); },
    [](const char *c, xtc_handle *h) { return ip6tc_builtin(c, h); },
    ip6tc_first_chain,
    ip6tc_next_chain,
    [](const char *c, xtc_handle *h) { return ip6tc_flush_entries(c, h); },
    [](const char *c, xtc_handle *h) { return ip6tc_zero_entries(c, h); },
    [](const char *c, unsigned n, xtc_handle *h) {
      return ip6tc_zero_counter(c, n, h);
    },
    [](const char *c, xtc_handle *h) { return ip6tc_create_chain(c, h); },
    [](const char *c, xtc_handle *h) { return ip6tc_delete_chain(c, h); },
    [](const char *a, const char *b, xtc_handle *h) {
      return ip6tc_rename_chain(a, b, h);
    },
    [](const char *c, const char *p, xt_counters *n, xtc_handle *h) {
      return ip6tc_set_policy(c, p, n, h);
    },
    [](const char *c, xt_counters *n, xtc_handle *h) {
      return ip6tc_get_policy(c, n, h);
    },
    [](const char *c, xtc_handle *h) -> const void * {
      return ip6tc_first_rule(c, h);
    },
    [](const void *e, xtc_handle *h) -> const void * {
      return ip6tc_next_rule(static_cast<const ip6t_entry *>(e), h);
    },
    [](const void *e, xtc_handle *h) {
      return ip6tc_get_target(static_cast<const ip6t_entry *>(e), h);
    },
    [](const char *c, const void *e, xtc_handle *h) {
      return ip6tc_append_entry(c, static_cast<const ip6t_entry *>(e), h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return ip6tc_insert_entry(c, static_cast<const ip6t_entry *>(e), n, h);
    },
    [](const char *c, const void *e, unsigned n, xtc_handle *h) {
      return ip6tc_replace_entry(c, static_cast<const ip6t_entry *>(e), n, h);
    },
    [](const char *c, unsigned n, xtc_handle *h) {
      return ip6tc_delete_num_entry(c, n, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return ip6tc_delete_entry(c, static_cast<const ip6t_entry *>(e), m, h);
    },
    [](const char *c, const void *e, unsigned char *m, xtc_handle *h) {
      return ip6tc_check_entry(c, static_cast<const ip6t_entry *>(e), m, h);
    },
};

} // namespace

const Iptc &iptc_of(Family family) {
  return family == Family::ipv4 ? kIpv4 : kIpv6;
}

} // namespace fastrestore::legacy
