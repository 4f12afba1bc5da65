#include "sys/netns_id.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

namespace fastrestore {

std::optional<NetnsId> current_netns_id(std::string *why) {
  NetnsId id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string line;
  std::getline(in, line);
  for (char c : line)
    if (std::isxdigit(static_cast<unsigned char>(c)))
      id.boot += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (id.boot.size() != 32) {
    *why = "no boot id in /proc/sys/kernel/random/boot_id";
    return std::nullopt;
  }
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = std::string("no socket for the namespace's cookie: ") +
           std::strerror(errno);
    return std::nullopt;
  }
  socklen_t len = sizeof(id.cookie);
  const int rc = getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &id.cookie, &len);
  const int err = errno;
  close(fd);
  if (rc != 0 || len != sizeof(id.cookie)) {
    *why = std::string("the kernel does not name the network namespace "
                       "(SO_NETNS_COOKIE): ") +
           std::strerror(err);
    return std::nullopt;
  }
  return id;
}

} // namespace fastrestore
