#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "helpers.h"

int main(int argc, char **argv) {
  // libxtables is one per process, and fastrestore serves one family a
  // process; the unit and kernel tests serve all three. libxt_limit registers a
  // match for IP and one for bridge: the family that asks for it first keeps
  // its own and libxtables drops the other. IP asks first here, so that
  // both stay (the bridge loader then takes the bridge one by family).
  fastrestore::test::parse_line("-A INPUT -m limit");
  return Catch::Session().run(argc, argv);
}
