// The process's heap on transparent huge pages.
#pragma once

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
// Where the region cannot be had (a strict overcommit limit), glibc
// falls back to mmap and nothing is advised. Under AddressSanitizer
// (its own allocator) it does nothing.
void use_huge_pages_for_heap();

} // namespace fastrestore
