// The xtables lock (/run/xtables.lock, or $XTABLES_LOCKFILE), held from a
// table's "*table" line to its COMMIT as iptables-legacy-restore holds it,
// so fastrestore --legacy and iptables-legacy never interleave.
#pragma once

namespace fastrestore::legacy {

class XtablesLock {
public:
  // wait_seconds > 0: give up after that long (status 4, iptables'
  // messages); otherwise wait as long as it takes, as iptables 1.8.9 does.
  explicit XtablesLock(int wait_seconds);
  ~XtablesLock();
  XtablesLock(const XtablesLock &) = delete;
  XtablesLock &operator=(const XtablesLock &) = delete;

private:
  int fd_ = -1;
};

} // namespace fastrestore::legacy
