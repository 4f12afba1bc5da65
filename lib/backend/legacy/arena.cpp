// See arena.h.
#include "arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace fastrestore::legacy {
namespace {

// A table's entries are at most 4 GiB (their size is 32 bits), plus the
// replacement's header and the headroom before the first rule.
constexpr size_t kReserve = (size_t{4} << 30) + (size_t{4} << 20);
constexpr size_t kHuge = size_t{2} << 20;

} // namespace

Arena::~Arena() {
  stop_prefault();
  if (base_ != nullptr)
    munmap(base_, cap_);
}

bool Arena::extend(size_t need) {
  if (reserved_)
    return false; // past 4 GiB: no table is that large
  if (base_ == nullptr && prefault_) {
    // Only address space: pages are used (and counted) as they are touched.
    void *p = mmap(nullptr, kReserve, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, kReserve, MADV_HUGEPAGE);
      base_ = p;
      cap_ = kReserve;
      reserved_ = true;
      kick_at_ = 0;
      thread_ = std::thread([this] { prefault_loop(); });
      return need <= cap_;
    }
  }
  size_t cap = std::max<size_t>(cap_ ? cap_ : (1u << 20), 1u << 20);
  while (cap < need)
    cap *= 2;
  void *p = base_ == nullptr ? mmap(nullptr, cap, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                             : mremap(base_, cap_, cap, MREMAP_MAYMOVE);
  if (p == MAP_FAILED)
    return false;
  // Huge pages where the system allows them: a page fault per 2 MiB
  // instead of per 4 KiB.
  madvise(p, cap, MADV_HUGEPAGE);
  base_ = p;
  cap_ = cap;
  return true;
}

// Asks for pages ahead of the writer: an eighth of what it has written,
// between 4 and 64 MiB, so that a small table does not fault in much more
// than it uses.
void Arena::kick() {
  const size_t ahead = std::clamp(size_ / 8, size_t{4} << 20, size_t{64} << 20);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    want_ = std::min(cap_, (size_ + ahead + kHuge - 1) / kHuge * kHuge);
  }
  cv_.notify_one();
  kick_at_ = size_ + ahead / 2;
}

void Arena::prefault_loop() {
  size_t done = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || want_ > done; });
    if (stop_)
      return;
    const size_t to = want_;
    lock.unlock();
    // In huge-page steps, so that stop_prefault() does not wait long.
    // Populating only faults pages in: it never changes their bytes.
    for (; done < to; done += kHuge)
      if (madvise(data() + done, kHuge, MADV_POPULATE_WRITE) != 0) {
        done = cap_; // not supported, or no memory: leave it to the writer
        break;
      }
    lock.lock();
  }
}

void Arena::stop_prefault() {
  if (!thread_.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
  kick_at_ = static_cast<size_t>(-1);
}

size_t Arena::release(size_t from, size_t to) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  to = to / page * page;
  if (to <= from)
    return from;
  madvise(data() + from, to - from, MADV_DONTNEED);
  return to;
}

} // namespace fastrestore::legacy
