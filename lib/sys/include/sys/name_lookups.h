// How many lookups this process has made, while a rule line was parsed,
// whose answer can change between two loads of the same text: host names
// (getaddrinfo, gethostbyname*), users and groups (getpw*, getgr*),
// protocol and service names (getprotobyname*, getservbyname*), ipset
// names (the SO_IP_SET socket option), and any file a plugin opens
// (/etc/iproute2/*, /etc/xtables/connlabel.conf, ebtables' among files,
// bpf objects). A rule line whose parsing made one may mean something
// else the next time it is read, so the incremental restore never takes
// such a line as unchanged without parsing it.
//
// Counted by definitions of those functions in front of libc's, which
// libxtables, its plugins and their libraries reach through the dynamic
// linker, and only on a thread inside a LookupWatch (a rule line being
// parsed): fastrestore's own reads of its journal and configuration are
// not lookups.
#pragma once

#include <cstdint>

namespace fastrestore {

uint64_t name_lookups();

// Counts the lookups this thread makes while it lives.
class LookupWatch {
public:
  LookupWatch();
  ~LookupWatch();
  LookupWatch(const LookupWatch &) = delete;
  LookupWatch &operator=(const LookupWatch &) = delete;

private:
  bool was_;
};

} // namespace fastrestore
