// The ipsets of --optimize, through libipset (Debian's libipset-dev; no
// hand-written netlink): commands in `ipset restore` form run in this
// network namespace, the sets' names, a set's members. fastrestore's sets
// carry a reserved prefix, so that it knows them from the user's and never
// touches a set it did not make.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastrestore::ipset {

// "fastrestore-": every set fastrestore makes, and only those, starts so.
inline constexpr std::string_view kPrefix = "fastrestore-";

// The set named for `key` (kPrefix and 16 hex digits: 28 characters; the
// kernel takes 31), and its fresh twin (for a refill that is swapped in).
std::string set_name(uint64_t key);
std::string fresh_name(uint64_t key);

// Whether fastrestore made the set `name`.
bool owned(std::string_view name);

struct CommandError {
  size_t index = 0;    // of the command refused
  std::string message; // libipset's
};

// Runs `commands` (each an `ipset restore` line without its newline:
// "create NAME hash:ip family inet maxelem 8 counters comment", "add NAME
// 10.0.0.1 packets 1 bytes 60 comment \"x\"", "swap A B", "destroy NAME")
// in order, and stops at the first one refused. There is no transaction:
// the commands before it stay done.
std::optional<CommandError>
run_commands(const std::vector<std::string> &commands);

// A set to make and its members: hash:ip (whole addresses) or hash:net,
// IPv4 or IPv6, with counters, and comments when `comments`.
struct SetSpec {
  std::string name;
  bool net = false, ipv6 = false, comments = false;
  size_t maxelem = 1;
};
struct Member {
  std::array<uint8_t, 16> address{}; // network order; 4 bytes for IPv4
  unsigned prefix = 32;              // hash:net only
  uint64_t packets = 0, bytes = 0;
  std::optional<std::string> comment;
};
// Makes the set and adds the members (through libipset's data interface:
// no text to parse, the adds sent together). CommandError::index is 0 for
// the set itself, 1 + k for member k.
std::optional<CommandError> make_set(const SetSpec &spec,
                                     const std::vector<Member> &members);

// Deletes `removed` from the set `spec.name` (which exists, of spec's
// type), then adds `added`, each in one batch; CommandError::index is k
// for removed[k], removed.size() + k for added[k]. Not a transaction: a
// refusal leaves what went before it done.
std::optional<CommandError> edit_set(const SetSpec &spec,
                                     const std::vector<Member> &removed,
                                     const std::vector<Member> &added);

// The names of the sets this namespace holds (`ipset list -name`), and
// `name`'s members as `add` lines (`ipset save NAME`, its `create` line
// left out); nullopt when the kernel cannot be asked or has no such set.
std::optional<std::vector<std::string>> set_names(std::string *error);
std::optional<std::vector<std::string>> set_members(const std::string &name,
                                                    std::string *error);

// `name`'s members read back (set_members' lines decoded: address,
// prefix length, counters, comment), in address order; `ipv6` is the
// set's family. nullopt when the set cannot be read or a line does not
// decode.
std::optional<std::vector<Member>> read_members(const std::string &name,
                                                bool ipv6, std::string *error);

// Each set's number of entries and the most it takes (maxelem), and
// whether its members take comments (the headers of `ipset list -t`).
struct SetHeader {
  std::string name;
  size_t entries = 0, maxelem = 0;
  bool comments = false;
  bool ipv6 = false; // family inet6
  bool operator==(const SetHeader &o) const {
    return name == o.name && entries == o.entries && maxelem == o.maxelem &&
           comments == o.comments && ipv6 == o.ipv6;
  }
};
std::optional<std::vector<SetHeader>> set_headers(std::string *error);

// What a set's members are, as one hash: addresses, prefix lengths and
// comments, in any order; counters left out. `ipv6` is the family.
uint64_t members_digest(const std::vector<Member> &members, bool ipv6);

// One process at a time makes, swaps and destroys fastrestore's sets (a
// set made by another run, not yet used by its commit, would look
// unused): held while it lives (a lock file in /run).
class Lock {
public:
  Lock();
  ~Lock();
  Lock(const Lock &) = delete;
  Lock &operator=(const Lock &) = delete;

private:
  int fd_ = -1;
};

// Destroys each of fastrestore's sets of the family (`ipv6`) that is not
// in `keep` and that no rule uses (the kernel refuses to destroy a set in
// use); the caller holds the Lock. nf_tables lets go of the sets of the
// rules a commit deleted a moment after the commit (its clean-up runs
// after it returns), so a set refused is tried again a few times, for 31
// ms at most.
void destroy_unused(const std::set<std::string> &keep, bool ipv6);

// Whether a set of fastrestore's exists: the kernel's list of set names,
// asked over netlink without libipset; nullopt when it does not answer
// so (libipset is asked then).
std::optional<bool> any_owned_set();

// After a load without --optimize: fastrestore's sets that no rule uses
// any more (their rules replaced) destroyed, under the Lock. Nothing is
// asked of the kernel when it has no ipset support loaded.
void tidy(bool ipv6);

// Orders members by address, then prefix length.
bool address_order(const Member &a, const Member &b);

} // namespace fastrestore::ipset
