// HeldRefusals: the refusal iptables-nft reports for a block is its own
// first refusal, else the first it left to the kernel.
#include <catch2/catch.hpp>

#include "diag/held_refusals.h"

using namespace fastrestore;

namespace {

auto refuse(const char *message, ExitCode code) {
  return [=] {
    Diagnostic d;
    d.message = message;
    d.code = code;
    throw Error(std::move(d));
  };
}

std::string thrown(HeldRefusals &h) {
  try {
    h.throw_first();
  } catch (const Error &e) {
    return e.diag().message;
  }
  return "";
}

} // namespace

TEST_CASE("held refusals: its own before the kernel's, the first of each",
          "[held_refusals]") {
  HeldRefusals h;
  CHECK_FALSE(h.run([] {}, true));
  CHECK_FALSE(h.any());
  CHECK(h.run(refuse("kernel 1", ExitCode::kernel), true));
  CHECK(h.run(refuse("own 1", ExitCode::format), true));
  CHECK(h.run(refuse("kernel 2", ExitCode::kernel), true));
  CHECK(h.run(refuse("own 2", ExitCode::parameter), true));
  CHECK(h.any());
  CHECK(thrown(h) == "own 1");
  // Thrown once: nothing is kept after it.
  CHECK_FALSE(h.any());
  CHECK(thrown(h).empty());
}

TEST_CASE("held refusals: the kernel's alone, and own refusals not held",
          "[held_refusals]") {
  HeldRefusals h;
  CHECK(h.run(refuse("kernel", ExitCode::kernel), false));
  try {
    h.run(refuse("own", ExitCode::format), false);
    FAIL("an own refusal not held is thrown on");
  } catch (const Error &e) {
    CHECK(e.diag().message == "own");
  }
  CHECK(thrown(h) == "kernel");
}
