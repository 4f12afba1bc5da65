// The x_tables socket options of one family (IPv4 ip_tables, IPv6
// ip6_tables) behind one set of names, and reading a whole table.
#pragma once

// glibc's network headers before the kernel's, or they collide.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace fastrestore::legacy {

struct V4 {
  using Entry = ipt_entry;
  using Info = ipt_getinfo;
  using Entries = ipt_get_entries;
  using Replace = ipt_replace;
  static constexpr int af = AF_INET, level = IPPROTO_IP;
  static constexpr int get_info = IPT_SO_GET_INFO;
  static constexpr int get_entries = IPT_SO_GET_ENTRIES;
  static constexpr int set_replace = IPT_SO_SET_REPLACE;
  static constexpr int add_counters = IPT_SO_SET_ADD_COUNTERS;
  static const unsigned char *table_of(const Entries *e) {
    return reinterpret_cast<const unsigned char *>(e->entrytable);
  }
};

struct V6 {
  using Entry = ip6t_entry;
  using Info = ip6t_getinfo;
  using Entries = ip6t_get_entries;
  using Replace = ip6t_replace;
  static constexpr int af = AF_INET6, level = IPPROTO_IPV6;
  static constexpr int get_info = IP6T_SO_GET_INFO;
  static constexpr int get_entries = IP6T_SO_GET_ENTRIES;
  static constexpr int set_replace = IP6T_SO_SET_REPLACE;
  static constexpr int add_counters = IP6T_SO_SET_ADD_COUNTERS;
  static const unsigned char *table_of(const Entries *e) {
    return reinterpret_cast<const unsigned char *>(e->entrytable);
  }
};

// Reads table `name` through `fd` (a raw socket of T's family): its info
// and its entries (the `Entries` header followed by info.size bytes).
// False with errno set when the kernel refuses.
template <class T>
bool read_table(int fd, const std::string &name, typename T::Info &info,
                std::vector<unsigned char> &buf) {
  if (name.size() >= XT_TABLE_MAXNAMELEN) {
    errno = EINVAL;
    return false;
  }
  for (;;) { // EAGAIN: the table changed between the two reads
    std::memset(&info, 0, sizeof(info));
    std::strcpy(info.name, name.c_str());
    socklen_t len = sizeof(info);
    if (getsockopt(fd, T::level, T::get_info, &info, &len) < 0)
      return false;
    buf.assign(sizeof(typename T::Entries) + info.size, 0);
    auto *ge = reinterpret_cast<typename T::Entries *>(buf.data());
    std::strcpy(ge->name, name.c_str());
    ge->size = info.size;
    len = static_cast<socklen_t>(buf.size());
    if (getsockopt(fd, T::level, T::get_entries, ge, &len) < 0) {
      if (errno == EAGAIN)
        continue;
      return false;
    }
    return true;
  }
}

} // namespace fastrestore::legacy
