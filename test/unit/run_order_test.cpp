// diff's runs in the kernel's order (lib/diff/run_order.h): only runs
// whose order cannot matter, and which the kernel holds in address order,
// are sorted.
#include <catch2/catch.hpp>

#include <string>

#include "../../lib/diff/run_order.h"

using fastrestore::Family;
using fastrestore::diff::runs_in_kernel_order;

TEST_CASE("run order: a run the kernel holds in address order is sorted, "
          "with its comments and counters",
          "[diff]") {
  const std::string in = "*filter\n"
                         ":INPUT ACCEPT [0:0]\n"
                         "[1:60] -A INPUT -s 10.0.0.9/32 -j DROP\n"
                         "[2:120] -A INPUT -s 10.0.0.1/32 -m comment "
                         "--comment \"a \\\"b\\\" c\" -j DROP\n"
                         "[3:180] -A INPUT -s 10.0.0.0/24 -j DROP\n"
                         "[4:240] -A INPUT -p tcp -j ACCEPT\n"
                         "COMMIT\n";
  // 10.0.0.1 is inside 10.0.0.0/24: the run ends before it.
  const std::string kernel =
      "*filter\n"
      ":INPUT ACCEPT [0:0]\n"
      "[2:120] -A INPUT -s 10.0.0.1/32 -m comment --comment \"a \\\"b\\\" "
      "c\" -j DROP\n"
      "[1:60] -A INPUT -s 10.0.0.9/32 -j DROP\n"
      "[3:180] -A INPUT -s 10.0.0.0/24 -j DROP\n"
      "[4:240] -A INPUT -p tcp -j ACCEPT\n"
      "COMMIT\n";
  CHECK(runs_in_kernel_order(in, kernel, Family::ipv4) == kernel);
  // Not held so (other counters, or not in the kernel): as it is.
  std::string other = kernel;
  other.replace(other.find("[1:60]"), 6, "[1:61]");
  CHECK(runs_in_kernel_order(in, other, Family::ipv4) == in);
  CHECK(runs_in_kernel_order(in, "", Family::ipv4) == in);
}

TEST_CASE("run order: destination runs, other chains and shapes stay apart",
          "[diff]") {
  const std::string in = "-A INPUT -s 1.1.1.1/32 -d 10.0.0.5/32 -j DROP\n"
                         "-A INPUT -s 1.1.1.1/32 -d 10.0.0.2/32 -j DROP\n"
                         "-A FORWARD -s 1.1.1.1/32 -d 10.0.0.1/32 -j DROP\n"
                         "-A FORWARD -s 1.1.1.1/32 -d 10.0.0.0/32 -j ACCEPT\n"
                         "-A FORWARD -s 9.9.9.9/32 -d 10.0.0.0/32 -j ACCEPT\n"
                         "-A FORWARD -s 2.2.2.2/32 -d 10.0.0.0/32 -j ACCEPT";
  const std::string kernel =
      "-A INPUT -s 1.1.1.1/32 -d 10.0.0.2/32 -j DROP\n"
      "-A INPUT -s 1.1.1.1/32 -d 10.0.0.5/32 -j DROP\n"
      "-A FORWARD -s 1.1.1.1/32 -d 10.0.0.1/32 -j DROP\n"
      "-A FORWARD -s 1.1.1.1/32 -d 10.0.0.0/32 -j ACCEPT\n"
      "-A FORWARD -s 2.2.2.2/32 -d 10.0.0.0/32 -j ACCEPT\n"
      "-A FORWARD -s 9.9.9.9/32 -d 10.0.0.0/32 -j ACCEPT";
  CHECK(runs_in_kernel_order(in, kernel, Family::ipv4) == kernel);
}

TEST_CASE("run order: an address twice, a negation or no address: as it is",
          "[diff]") {
  const std::string in = "-A INPUT -s 10.0.0.9/32 -j DROP\n"
                         "-A INPUT -s 10.0.0.9/32 -j DROP\n"
                         "-A INPUT -s 10.0.0.1/32 -j DROP\n"
                         "-A INPUT ! -s 10.0.0.8/32 -j DROP\n"
                         "-A INPUT ! -s 10.0.0.7/32 -j DROP\n";
  // The kernel with the same rules: as it is; negated addresses in
  // another order: no run.
  const std::string kernel = "-A INPUT -s 10.0.0.9/32 -j DROP\n"
                             "-A INPUT -s 10.0.0.9/32 -j DROP\n"
                             "-A INPUT -s 10.0.0.1/32 -j DROP\n"
                             "-A INPUT ! -s 10.0.0.7/32 -j DROP\n"
                             "-A INPUT ! -s 10.0.0.8/32 -j DROP\n";
  CHECK(runs_in_kernel_order(in, kernel, Family::ipv4) == in);
  const std::string v6 = "-A INPUT -s 2001:db8::9/128 -j DROP\n"
                         "-A INPUT -s 2001:db8::/64 -j DROP\n";
  CHECK(runs_in_kernel_order(v6, "-A INPUT -s 2001:db8::/64 -j DROP\n"
                                 "-A INPUT -s 2001:db8::9/128 -j DROP\n",
                             Family::ipv6) == v6);
  const std::string v6b = "-A INPUT -s 2001:db9::/64 -j DROP\n"
                          "-A INPUT -s 2001:db8::/64 -j DROP\n";
  const std::string v6b_kernel = "-A INPUT -s 2001:db8::/64 -j DROP\n"
                                 "-A INPUT -s 2001:db9::/64 -j DROP\n";
  CHECK(runs_in_kernel_order(v6b, v6b_kernel, Family::ipv6) == v6b_kernel);
}
