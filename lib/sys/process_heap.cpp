#include "fastrestore/process_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

// Under AddressSanitizer (GCC says so by __SANITIZE_ADDRESS__, clang by
// __has_feature) the heap is the sanitizer's and its leak check runs at
// the exit.
#if defined(__SANITIZE_ADDRESS__)
#define FASTRESTORE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FASTRESTORE_ASAN 1
#endif
#endif

namespace fastrestore {

namespace {
bool one_restore = false; // use_huge_pages_for_heap was called
} // namespace

bool exit_frees_heap() {
  return one_restore;
}

bool exit_checks_leaks() {
#if defined(FASTRESTORE_ASAN)
  return true;
#else
  return false;
#endif
}

void use_huge_pages_for_heap() {
#if defined(FASTRESTORE_ASAN)
  return;
#else
  one_restore = true;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  // (32 MiB is the largest threshold glibc takes; setting it also ends
  // the threshold's growing with each freed mmap.)
  if (mallopt(M_MMAP_THRESHOLD, 32 << 20) == 0)
    return;
  // The largest region the process may have, halving from 256 MiB to
  // 8 MiB (a limit on its address space, ulimit -v, may allow less);
  // none at all leaves glibc's own pad, so that a small restore still
  // runs under a tight limit.
  for (size_t region = size_t{256} << 20; region >= (size_t{8} << 20);
       region /= 2) {
    if (mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * region)) == 0 ||
        mallopt(M_TOP_PAD, static_cast<int>(region)) == 0)
      break;
    const uintptr_t before = reinterpret_cast<uintptr_t>(sbrk(0));
    // An allocation larger than the heap's free top makes it grow, by
    // the allocation and the pad. (volatile: a malloc freed unused may
    // be left out.)
    void *volatile grow = malloc(1 << 20);
    const uintptr_t after = reinterpret_cast<uintptr_t>(sbrk(0));
    free(grow);
    if (grow == nullptr || before == static_cast<uintptr_t>(-1) ||
        after == static_cast<uintptr_t>(-1) || after - before < region)
      continue;
    const uintptr_t from = (before + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t to = after & ~(kHuge - 1);
    if (to > from)
      madvise(reinterpret_cast<void *>(from), to - from, MADV_HUGEPAGE);
    return;
  }
  // glibc's defaults (128 KiB each).
  mallopt(M_TOP_PAD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
}

namespace {

struct Left {
  void *object;
  void (*destroy)(void *);
};

// What leave_to_exit kept since the last free_left_by_earlier_blocks:
// never destroyed itself, and guarded because the --noflush simulation
// leaves its lists from a second thread.
std::mutex &left_lock() {
  static auto *m = new std::mutex;
  return *m;
}
std::vector<Left> &left() {
  static auto *v = new std::vector<Left>;
  return *v;
}

} // namespace

namespace detail {

void keep_left(void *object, void (*destroy)(void *)) {
  const std::lock_guard<std::mutex> hold(left_lock());
  left().push_back({object, destroy});
}

} // namespace detail

void free_left_by_earlier_blocks() {
  std::vector<Left> earlier;
  {
    const std::lock_guard<std::mutex> hold(left_lock());
    earlier.swap(left());
  }
  for (const Left &l : earlier)
    l.destroy(l.object);
}

} // namespace fastrestore
