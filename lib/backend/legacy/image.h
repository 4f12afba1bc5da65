// A table replacement built directly, without libiptc's rule cache.
//
// When a block replaces a whole table (no --noflush) and uses only chain
// declarations, -N, -P and -A, its entries go straight into one arena in
// input order; COMMIT lays the chains out as libiptc would (built-in
// chains in hook order, then user chains sorted by name, each user chain
// behind its ERROR header, each chain closed by its policy or RETURN
// entry, a final ERROR entry), resolves jumps to offsets, and sends one
// IPT_SO_SET_REPLACE followed by the counters, as libiptc's commit does.
// Copying the arena into the replacement releases the arena as it goes, so
// a restore holds about one copy of its entries instead of libiptc's two.
//
// Every operation that libiptc would refuse, and every other command,
// returns false: the writer then replays the image into a libiptc handle
// and carries on there, so errors and their wording stay libiptc's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastrestore/ir.h"

struct xt_counters;

namespace fastrestore::legacy {

class TableImage {
public:
  virtual ~TableImage() = default;

  // Reads the kernel's current table `name` (its chains, and each
  // built-in chain's policy and counter position). Null when it cannot be
  // read this way; the caller then uses libiptc, which reports why.
  static std::unique_ptr<TableImage> open(Family family,
                                          const std::string &name);

  // An image of a table given rather than read: `info` is its ipt_getinfo
  // (IPv4) or ip6t_getinfo (IPv6), `entries` its info->size bytes of
  // entries as the kernel hands them out. It has no socket, so commit()
  // fails (EBADF); the unit tests build the image's model this way.
  static std::unique_ptr<TableImage>
  from_entries(Family family, const void *info, const unsigned char *entries);

  // The chains of the table as read, in table order (what iptables-legacy
  // names when it flushes them), and whether each is built in.
  virtual const std::vector<std::pair<std::string, bool>> &
  old_chains() const = 0;

  virtual bool is_chain(const std::string &name) const = 0;
  // A user chain; false if libiptc would refuse it.
  virtual bool create_chain(const std::string &name) = 0;
  // A built-in chain's policy; counters null: libiptc's "no map" (zero).
  virtual bool set_policy(const std::string &chain, const std::string &policy,
                          const xt_counters *counters) = 0;
  // An entry as legacy::build_entry makes it (the target named).
  virtual bool append(const std::string &chain, const unsigned char *entry,
                      size_t size) = 0;

  // The rule encoded straight into the image: the same as append() of
  // build_entry(to_command(a)). False, with nothing changed, where
  // append() would refuse it or the jump's chain is unknown.
  virtual bool append_basic(const BasicAppend &a) = 0;

  // The image as libiptc calls, for handing a block over.
  struct Replay {
    std::function<bool(const char *chain)> create;
    std::function<bool(const char *chain, const char *policy,
                       xt_counters *counters)>
        policy;
    std::function<bool(const char *chain, const void *entry)> append;
  };
  virtual bool replay(const Replay &to) const = 0;

  // Sends the table. 0, or the errno of the refusing setsockopt.
  virtual int commit() = 0;
};

// The message libiptc gives for a refused commit.
const char *commit_strerror(int err);

} // namespace fastrestore::legacy
