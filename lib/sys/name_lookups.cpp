#include "fastrestore/name_lookups.h"

#include <dlfcn.h>
#include <netdb.h>

#include <atomic>

namespace fastrestore {
namespace {

std::atomic<uint64_t> g_lookups{0};

template <class F> F next_definition(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

} // namespace

uint64_t host_lookups() {
  return g_lookups.load(std::memory_order_relaxed);
}

} // namespace fastrestore

using fastrestore::g_lookups;
using fastrestore::next_definition;

extern "C" {

int getaddrinfo(const char *node, const char *service,
                const struct addrinfo *hints, struct addrinfo **res) {
  static auto real = next_definition<decltype(&getaddrinfo)>("getaddrinfo");
  if (node != nullptr)
    g_lookups.fetch_add(1, std::memory_order_relaxed);
  return real(node, service, hints, res);
}

struct hostent *gethostbyname(const char *name) {
  static auto real = next_definition<decltype(&gethostbyname)>("gethostbyname");
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  return real(name);
}

struct hostent *gethostbyname2(const char *name, int af) {
  static auto real =
      next_definition<decltype(&gethostbyname2)>("gethostbyname2");
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  return real(name, af);
}

} // extern "C"
