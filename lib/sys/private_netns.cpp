#include "fastrestore/private_netns.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

namespace fastrestore {

std::optional<int> in_private_netns(const std::function<int()> &fn,
                                    NetnsFailure *failure) {
  std::cout.flush();
  fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) {
    if (failure != nullptr)
      *failure = {NetnsFailure::fork, errno};
    return std::nullopt;
  }
  pid_t pid = fork();
  if (pid < 0) {
    if (failure != nullptr)
      *failure = {NetnsFailure::fork, errno};
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(fds[0]);
    // [0]: whether fn ran, [1]: its value or the unshare errno.
    int reply[2] = {0, 0};
    if (unshare(CLONE_NEWNET) != 0) {
      reply[1] = errno;
    } else {
      reply[0] = 1;
      reply[1] = fn();
    }
    std::cout.flush();
    std::cerr.flush();
    fflush(nullptr);
    ssize_t w = write(fds[1], reply, sizeof(reply));
    (void)w;
    _exit(0);
  }
  close(fds[1]);
  int reply[2] = {0, 0};
  ssize_t got = 0;
  while ((got = read(fds[0], reply, sizeof(reply))) < 0 && errno == EINTR) {
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != static_cast<ssize_t>(sizeof(reply)))
    return std::nullopt; // the child died first
  if (reply[0] == 0) {
    if (failure != nullptr)
      *failure = {NetnsFailure::unshare, reply[1]};
    return std::nullopt;
  }
  return reply[1];
}

} // namespace fastrestore
