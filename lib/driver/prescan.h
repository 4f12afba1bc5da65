// Reads the input on a second thread and scans each line of the commonest
// rule shape there, ahead of its turn.
//
// The thread splits the input into lines as they arrive and runs
// FastRuleParser::prescan (which needs no state) on every line that starts
// with '-', except in every third chunk, whose lines the main thread scans
// itself so that the two threads take about as long. The main thread takes
// the lines in order, each with its scan if it has one; RestoreParser
// settles a scan against the block (the table, the chains declared) or
// parses the line itself. So most of the parsing of the commonest rules
// takes the other core while this one builds the batch, and input that
// arrives a line at a time is handed over a line at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fastrestore/ir.h"

namespace fastrestore {

class PreScanner {
public:
  // `hash_lines`: each line's hash64 is made too (line_hash).
  PreScanner(int fd, Family family, bool hash_lines);
  // Stops the thread, even one waiting on a quiet pipe.
  ~PreScanner();
  PreScanner(const PreScanner &) = delete;
  PreScanner &operator=(const PreScanner &) = delete;

  // As LineReader::next, with the line's scan in `pre` (null when it was
  // not scanned or did not scan). Both stay valid until the next call.
  // Rethrows the reading thread's error where it happened.
  bool next(std::string_view &line, BasicAppend *&pre);
  // As LineReader::line_offset.
  uint64_t line_offset() const { return at_; }
  // The line's hash64, made on the reading thread (0: not made).
  uint64_t line_hash() const { return hash_; }

private:
  struct Line {
    size_t begin, size;
    uint64_t offset;
    uint64_t hash; // hash64 of the line, when hash_lines_
    bool scanned;
    BasicAppend scan;
  };
  struct Chunk {
    std::string text;
    std::vector<Line> lines;
    bool end = false;         // the input ends after these lines
    std::exception_ptr error; // reading failed after these lines
  };

  void run();
  std::unique_ptr<Chunk> take_free();

  int fd_;
  Family family_;
  bool hash_lines_;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;

  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<std::unique_ptr<Chunk>> full_, free_;
  bool stop_ = false;
  unsigned long chunk_no_ = 0; // the reading thread's

  // The main thread's chunk and place in it.
  std::unique_ptr<Chunk> cur_;
  size_t pos_ = 0;
  uint64_t at_ = 0;
  uint64_t hash_ = 0;
};

} // namespace fastrestore
