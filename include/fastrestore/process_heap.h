// The heap of the fastrestore process, which runs one restore and exits:
// on transparent huge pages, and what a block leaves behind freed by the
// exit rather than one allocation at a time.
#pragma once

#include <tuple>
#include <utility>

namespace fastrestore {

// Call first thing in main, before any thread starts. glibc's main heap
// is made to grow by sbrk in one step of 256 MiB of address space
// (allocations up to 32 MiB come from it rather than from their own
// mmap, and it is not trimmed), and that region is advised
// MADV_HUGEPAGE, so the kernel backs it with 2 MiB pages where the
// system allows them (transparent_hugepage `madvise` or `always`).
//
// Why: an incremental reload of the 100k-rule kube-proxy table touches
// about 80 MiB of heap once (the journal's record, the desired table,
// their indexes): 17,300 page faults with 4 KiB pages, 1,700 with huge
// ones, and its hash lookups miss the TLB less. docs/BENCHMARKS.md
// ("huge pages, fewer allocations") has the reloads timed against the
// same binary run with THP disabled.
//
// Only address space is reserved: pages are backed as they are touched.
// Where 256 MiB cannot be had (a limit on the address space, ulimit -v;
// strict overcommit), the region halves down to 8 MiB, and below that
// glibc's own pad stays: a small restore runs under a tight limit. Under
// AddressSanitizer (its own allocator) it does nothing.
void use_huge_pages_for_heap();

// Whether leave_to_exit leaves things to the exit: only once main has
// called use_huge_pages_for_heap (the process runs one restore), and not
// under AddressSanitizer, whose leak check would report them. Tests and
// fuzzers, which run many restores in one process, free as usual.
bool exit_frees_heap();

// Whether the process's exit runs a leak check (AddressSanitizer's), so
// that what a process leaves to its exit must still be freed first.
bool exit_checks_leaks();

// When exit_frees_heap(): `value` moved out into an object never
// destroyed, so that the process's exit gives its memory back whole
// (otherwise it stays for its owner to destroy). For a block's large
// structures once it is done: the journal's record of the kube-proxy
// table and the desired table (41,000 chains each, with their names and
// rule vectors) are some 250,000 allocations, whose frees (and the
// consolidation of freed chunks that freeing a large one sets off) took
// 15-20 ms of a 0.45 s reload.
//
// Only the latest block's are left so: a stream of blocks (a --noflush
// pipe may run for days) frees what an earlier block left when the next
// one begins (free_left_by_earlier_blocks), so that what waits for the
// exit is bounded by one block, never by the stream.
namespace detail {
void keep_left(void *object, void (*destroy)(void *));
} // namespace detail

template <class T> void leave_to_exit(T &value) {
  if (exit_frees_heap())
    detail::keep_left(new T(std::move(value)),
                      [](void *p) { delete static_cast<T *>(p); });
}

// Frees what leave_to_exit kept for the blocks before this one: called
// when a block begins.
void free_left_by_earlier_blocks();

// leave_to_exit for each of `values` when the scope ends: a block's
// structures, on whichever way it leaves.
template <class... T> class LeftToExit {
public:
  explicit LeftToExit(T &...values) : values_(values...) {}
  LeftToExit(const LeftToExit &) = delete;
  LeftToExit &operator=(const LeftToExit &) = delete;
  ~LeftToExit() {
    std::apply([](auto &...v) { (leave_to_exit(v), ...); }, values_);
  }

private:
  std::tuple<T &...> values_;
};

} // namespace fastrestore
