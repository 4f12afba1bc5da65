#include "legacy/xtables_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fastrestore/diagnostic.h"

namespace fastrestore::legacy {
namespace {

void on_alarm(int) {}

} // namespace

XtablesLock::XtablesLock(int wait_seconds) {
  const char *path = std::getenv("XTABLES_LOCKFILE");
  if (path == nullptr || path[0] == '\0')
    path = "/run/xtables.lock";
  fd_ = open(path, O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    Diagnostic d;
    d.message = std::string("can't open lock file ") + path + ": " +
                std::strerror(errno);
    d.code = ExitCode::kernel;
    throw Error(std::move(d));
  }
  if (wait_seconds > 0) {
    struct sigaction sa {};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESETHAND; // no SA_RESTART: flock returns EINTR
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    alarm(static_cast<unsigned>(wait_seconds));
  }
  int ret = flock(fd_, LOCK_EX);
  int err = errno;
  if (wait_seconds > 0)
    alarm(0);
  if (ret == 0)
    return;
  close(fd_);
  fd_ = -1;
  if (err == EINTR)
    err = EWOULDBLOCK;
  Diagnostic d;
  d.message = std::string("Can't lock ") + path + ": " + std::strerror(err) +
              "\nAnother app is currently holding the xtables lock. "
              "Stopped waiting after " +
              std::to_string(wait_seconds) + "s.";
  d.code = ExitCode::kernel;
  throw Error(std::move(d));
}

XtablesLock::~XtablesLock() {
  if (fd_ >= 0)
    close(fd_);
}

} // namespace fastrestore::legacy
