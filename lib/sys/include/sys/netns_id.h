// The network namespace this process is in, named for the whole boot: its
// cookie (SO_NETNS_COOKIE, never reused while the machine runs, unlike the
// namespace's inode number) and the boot's id
// (/proc/sys/kernel/random/boot_id).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fastrestore {

struct NetnsId {
  std::string boot; // 32 hex digits
  uint64_t cookie = 0;
};

// nullopt when the kernel cannot say (no SO_NETNS_COOKIE before Linux
// 5.14, no boot id), with the reason in *why.
std::optional<NetnsId> current_netns_id(std::string *why);

} // namespace fastrestore
