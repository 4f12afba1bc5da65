#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <new>

#include "fastrestore/cli.h"

namespace {

// An allocation that fails anywhere, on any thread, ends the process with
// one message and status 1, as iptables does ("can't alloc memory!"),
// instead of an abort. Nothing of an unsent block has reached the kernel.
[[noreturn]] void on_terminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
      static const char kMessage[] =
          "fastrestore: can't alloc memory! (out of memory)\n";
      (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
      _exit(1);
    } catch (...) {
    }
  }
  std::abort();
}

} // namespace

int main(int argc, char **argv) {
  std::set_terminate(on_terminate);
  try {
    return fastrestore::cli_main(argc, argv);
  } catch (const std::bad_alloc &) {
    on_terminate();
  }
}
