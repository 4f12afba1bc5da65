// Anonymous memory for a table image. It grows in place, so growing never
// copies and never holds two copies, and its pages can be handed back
// early.
//
// Fresh memory costs the kernel a page fault and a page of zeroes per
// page, about a sixth of a large restore's time here. An arena made with
// `prefault` reserves its whole address range at once (a table is at most
// 4 GiB) and has a second thread fault the pages in ahead of the writer,
// on another core, while this one parses.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace fastrestore::legacy {

class Arena {
public:
  explicit Arena(bool prefault = false) : prefault_(prefault) {}
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  unsigned char *data() { return static_cast<unsigned char *>(base_); }
  const unsigned char *data() const {
    return static_cast<const unsigned char *>(base_);
  }
  size_t size() const { return size_; }

  // Room for n more bytes; null when memory runs out.
  unsigned char *grow(size_t n) {
    if (size_ + n > cap_ && !extend(size_ + n))
      return nullptr;
    unsigned char *at = data() + size_;
    size_ += n;
    if (size_ > kick_at_)
      kick();
    return at;
  }

  // No more pages ahead of the writer: the arena's size is final.
  void stop_prefault();

  // Gives the pages from `from` (page-aligned) up to the page holding
  // `to` back to the kernel; returns where the next release starts.
  size_t release(size_t from, size_t to);

private:
  bool extend(size_t need);
  void kick();
  void prefault_loop();

  void *base_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  bool prefault_;
  bool reserved_ = false; // the whole range is mapped: base_ never moves
  size_t kick_at_ = static_cast<size_t>(-1);

  // The prefault thread faults pages in up to `want_`.
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t want_ = 0;
  bool stop_ = false;
};

} // namespace fastrestore::legacy
