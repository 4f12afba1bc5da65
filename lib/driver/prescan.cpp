// See prescan.h.
#include "prescan.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "line_reader.h"
#include "parse/fast_rule.h"
#include "sys/hash64.h"

namespace fastrestore {
namespace {

// A chunk goes over once it holds this much text, or when no further line
// is at hand.
constexpr size_t kChunkBytes = 64u << 10;
// Chunks read ahead of the main thread at most.
constexpr size_t kAhead = 8;
// Every kMainScans-th chunk's lines are scanned by the main thread (the
// best balance measured with scripts/bench: 100k and 1M rules).
constexpr unsigned long kMainScans = 3;

} // namespace

PreScanner::PreScanner(int fd, Family family, bool hash_lines)
    : fd_(fd), family_(family), hash_lines_(hash_lines) {
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  thread_ = std::thread([this] { run(); });
}

PreScanner::~PreScanner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  const char c = 0;
  if (write(stop_pipe_[1], &c, 1) < 0) {
    // The pipe is ours and empty: this does not fail.
  }
  thread_.join();
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
}

std::unique_ptr<PreScanner::Chunk> PreScanner::take_free() {
  std::unique_lock<std::mutex> lock(mutex_);
  space_.wait(lock, [&] { return stop_ || full_.size() < kAhead; });
  if (stop_)
    return nullptr;
  std::unique_ptr<Chunk> c;
  if (!free_.empty()) {
    c = std::move(free_.front());
    free_.pop_front();
  } else {
    c = std::make_unique<Chunk>();
  }
  c->text.clear();
  c->lines.clear();
  c->end = false;
  c->error = nullptr;
  return c;
}

void PreScanner::run() {
  LineReader reader(fd_);
  reader.cancel_with(stop_pipe_[0]);
  for (;;) {
    std::unique_ptr<Chunk> c = take_free();
    if (c == nullptr)
      return;
    try {
      std::string_view line;
      do {
        if (!reader.next(line)) {
          c->end = true;
          break;
        }
        c->lines.push_back(Line{c->text.size(),
                                line.size(),
                                reader.line_offset(),
                                hash_lines_ ? hash64(line) : 0,
                                false,
                                {}});
        c->text.append(line);
      } while (c->text.size() < kChunkBytes && reader.ready_within(0));
    } catch (...) {
      c->error = std::current_exception();
    }
    // The text no longer moves: scans may point into it now. Every third
    // chunk is left to the main thread, which scans its lines itself: this
    // thread also reads, and the two then take about as long.
    if (++chunk_no_ % kMainScans != 0)
      for (Line &l : c->lines) {
        std::string_view text(c->text.data() + l.begin, l.size);
        if (!text.empty() && text[0] == '-' &&
            text.find('\0') == std::string_view::npos)
          l.scanned = FastRuleParser::prescan(family_, text, l.scan);
      }
    const bool last = c->end || c->error != nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      full_.push_back(std::move(c));
    }
    ready_.notify_one();
    if (last)
      return;
  }
}

bool PreScanner::next(std::string_view &line, BasicAppend *&pre) {
  while (cur_ == nullptr || pos_ == cur_->lines.size()) {
    if (cur_ != nullptr) {
      if (cur_->error != nullptr)
        std::rethrow_exception(cur_->error);
      if (cur_->end)
        return false;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (cur_ != nullptr)
      free_.push_back(std::move(cur_));
    space_.notify_one();
    ready_.wait(lock, [&] { return !full_.empty(); });
    cur_ = std::move(full_.front());
    full_.pop_front();
    pos_ = 0;
  }
  Line &l = cur_->lines[pos_++];
  line = std::string_view(cur_->text.data() + l.begin, l.size);
  pre = l.scanned ? &l.scan : nullptr;
  at_ = l.offset;
  hash_ = l.hash;
  return true;
}

} // namespace fastrestore
