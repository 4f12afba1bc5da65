#include "sys/shared_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace fastrestore {

void *library_function(const char *soname, const char *name) {
  // (dlopen counts its references: a library already open is found, not
  // mapped again.)
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  void *f = lib != nullptr ? dlsym(lib, name) : nullptr;
  if (f == nullptr) {
    const char *why = dlerror();
    fprintf(stderr, "fastrestore: cannot load %s: %s\n", soname,
            why != nullptr ? why : name);
    std::exit(127);
  }
  return f;
}

} // namespace fastrestore
