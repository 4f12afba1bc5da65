// The lookups counted while a rule line is parsed (name_lookups.h). This
// file defines libc's open, open64, openat and their fortified forms, so
// it must not include <fcntl.h>, whose fortified inline definitions of
// them would clash: the flags come from the kernel's header instead.
#include "sys/name_lookups.h"

#include <dlfcn.h>
#include <grp.h>
#include <linux/fcntl.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdarg>

namespace fastrestore {
namespace {

std::atomic<uint64_t> g_lookups{0};
thread_local bool t_watching = false;

template <class F> F next_definition(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void count() {
  if (t_watching)
    g_lookups.fetch_add(1, std::memory_order_relaxed);
}

// open's third argument is there only when a file may be made.
bool takes_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

} // namespace

uint64_t name_lookups() {
  return g_lookups.load(std::memory_order_relaxed);
}

LookupWatch::LookupWatch() : was_(t_watching) {
  t_watching = true;
}

LookupWatch::~LookupWatch() {
  t_watching = was_;
}

} // namespace fastrestore

using fastrestore::count;
using fastrestore::next_definition;
using fastrestore::takes_mode;

// Each definition counts, then calls the next one (libc's, or a
// sanitizer's) with the same arguments.
#define FORWARD(ret, name, params, args)                                       \
  ret name params {                                                            \
    static auto real = next_definition<decltype(&name)>(#name);                \
    count();                                                                   \
    return real args;                                                          \
  }

extern "C" {

// A host name, not a service alone.
int getaddrinfo(const char *node, const char *service,
                const struct addrinfo *hints, struct addrinfo **res) {
  static auto real = next_definition<decltype(&getaddrinfo)>("getaddrinfo");
  if (node != nullptr)
    count();
  return real(node, service, hints, res);
}

FORWARD(struct hostent *, gethostbyname, (const char *n), (n))
FORWARD(struct hostent *, gethostbyname2, (const char *n, int af), (n, af))
FORWARD(int, gethostbyname_r,
        (const char *n, struct hostent *h, char *b, size_t l,
         struct hostent **r, int *e),
        (n, h, b, l, r, e))
FORWARD(int, gethostbyname2_r,
        (const char *n, int af, struct hostent *h, char *b, size_t l,
         struct hostent **r, int *e),
        (n, af, h, b, l, r, e))
FORWARD(struct passwd *, getpwnam, (const char *n), (n))
FORWARD(struct passwd *, getpwuid, (uid_t u), (u))
FORWARD(int, getpwnam_r,
        (const char *n, struct passwd *p, char *b, size_t l, struct passwd **r),
        (n, p, b, l, r))
FORWARD(int, getpwuid_r,
        (uid_t u, struct passwd *p, char *b, size_t l, struct passwd **r),
        (u, p, b, l, r))
FORWARD(struct group *, getgrnam, (const char *n), (n))
FORWARD(struct group *, getgrgid, (gid_t g), (g))
FORWARD(int, getgrnam_r,
        (const char *n, struct group *g, char *b, size_t l, struct group **r),
        (n, g, b, l, r))
FORWARD(int, getgrgid_r,
        (gid_t i, struct group *g, char *b, size_t l, struct group **r),
        (i, g, b, l, r))
FORWARD(struct protoent *, getprotobyname, (const char *n), (n))
FORWARD(int, getprotobyname_r,
        (const char *n, struct protoent *p, char *b, size_t l,
         struct protoent **r),
        (n, p, b, l, r))
FORWARD(struct servent *, getservbyname, (const char *n, const char *p), (n, p))
FORWARD(int, getservbyname_r,
        (const char *n, const char *p, struct servent *s, char *b, size_t l,
         struct servent **r),
        (n, p, s, b, l, r))
FORWARD(FILE *, fopen, (const char *p, const char *m), (p, m))
FORWARD(FILE *, fopen64, (const char *p, const char *m), (p, m))

// libipset's and xt_set's name-to-index query (IP_SET_OP_GET_BYNAME): a
// set's index changes when it is swapped or made again.
int getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
  static auto real = next_definition<decltype(&getsockopt)>("getsockopt");
  constexpr int kSoIpSet = 83; // SO_IP_SET, <linux/netfilter_ipv4/ip_tables.h>
  if (level == SOL_IP && name == kSoIpSet)
    count();
  return real(fd, level, name, value, len);
}

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dir, const char *path, int flags, ...);
int openat64(int dir, const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dir, const char *path, int flags);
int __openat64_2(int dir, const char *path, int flags);

#define FORWARD_OPEN(name)                                                     \
  int name(const char *path, int flags, ...) {                                 \
    static auto real =                                                         \
        next_definition<int (*)(const char *, int, ...)>(#name);               \
    count();                                                                   \
    if (!takes_mode(flags))                                                    \
      return real(path, flags);                                                \
    va_list ap;                                                                \
    va_start(ap, flags);                                                       \
    const unsigned mode = va_arg(ap, unsigned);                                \
    va_end(ap);                                                                \
    return real(path, flags, mode);                                            \
  }
#define FORWARD_OPENAT(name)                                                   \
  int name(int dir, const char *path, int flags, ...) {                        \
    static auto real =                                                         \
        next_definition<int (*)(int, const char *, int, ...)>(#name);          \
    count();                                                                   \
    if (!takes_mode(flags))                                                    \
      return real(dir, path, flags);                                           \
    va_list ap;                                                                \
    va_start(ap, flags);                                                       \
    const unsigned mode = va_arg(ap, unsigned);                                \
    va_end(ap);                                                                \
    return real(dir, path, flags, mode);                                       \
  }
FORWARD_OPEN(open)
FORWARD_OPEN(open64)
FORWARD_OPENAT(openat)
FORWARD_OPENAT(openat64)
FORWARD(int, __open_2, (const char *p, int f), (p, f))
FORWARD(int, __open64_2, (const char *p, int f), (p, f))
FORWARD(int, __openat_2, (int d, const char *p, int f), (d, p, f))
FORWARD(int, __openat64_2, (int d, const char *p, int f), (d, p, f))

} // extern "C"
