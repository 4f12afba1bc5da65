// Capture (private to lib/save): stdout, where the libxtables plugins
// print, pointed at memory for a while (captures nest).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

namespace fastrestore::save {

// Points stdout (where the plugins print) at memory until finish().
class Capture {
public:
  Capture() {
    fflush(stdout);
    saved_ = stdout;
    mem_ = open_memstream(&buf_, &len_);
    if (mem_ == nullptr)
      throw std::bad_alloc();
    stdout = mem_;
  }
  ~Capture() { finish(); }
  // How much was printed so far, and the text printed since `start`.
  size_t size() {
    fflush(mem_);
    return len_;
  }
  std::string since(size_t start) {
    fflush(mem_);
    return std::string(buf_ + start, len_ - start);
  }
  // Stops capturing; appends what was printed to `out` (unless null) and
  // lets the memory go.
  void finish(std::string *out = nullptr) {
    if (mem_ != nullptr) {
      fflush(mem_);
      stdout = saved_;
      fclose(mem_);
      mem_ = nullptr;
    }
    if (out != nullptr && buf_ != nullptr)
      out->append(buf_, len_);
    free(buf_);
    buf_ = nullptr;
    len_ = 0;
  }

private:
  FILE *saved_;
  FILE *mem_;
  char *buf_ = nullptr;
  size_t len_ = 0;
};

} // namespace fastrestore::save
