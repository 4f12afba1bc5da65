// The --noflush commands between two saves of a table
// (noflush_commands.h), without a kernel; diff_test.sh loads them.
#include <catch2/catch.hpp>

#include <string>

#include "fastrestore/noflush_commands.h"

using namespace fastrestore;

TEST_CASE("noflush commands: chains made and removed, rules, policies",
          "[noflush_commands]") {
  const std::string before = "*filter\n"
                             ":INPUT ACCEPT [0:0]\n"
                             ":FORWARD ACCEPT [0:0]\n"
                             ":OUTPUT ACCEPT [0:0]\n"
                             ":old - [0:0]\n"
                             "-A INPUT -s 10.0.0.1/32 -j ACCEPT\n"
                             "-A INPUT -j old\n"
                             "-A INPUT -s 10.0.0.3/32 -j DROP\n"
                             "-A old -j RETURN\n"
                             "COMMIT\n";
  const std::string after = "*filter\n"
                            ":INPUT DROP [0:0]\n"
                            ":FORWARD ACCEPT [0:0]\n"
                            ":OUTPUT ACCEPT [0:0]\n"
                            ":LOG - [0:0]\n"
                            "-A INPUT -s 10.0.0.1/32 -j ACCEPT\n"
                            "-A INPUT -s 10.0.0.2/32 -j LOG\n"
                            "-A INPUT -s 10.0.0.3/32 -j DROP\n"
                            "-A LOG -j ACCEPT\n"
                            "COMMIT\n";
  // A chain named like a target is declared (-N refuses it); rule numbers
  // count the commands before them; the removed chain is emptied, then
  // deleted, after the jump to it.
  CHECK(noflush_commands(before, after, Family::ipv4, false) ==
        "*filter\n"
        ":INPUT DROP [0:0]\n"
        ":LOG - [0:0]\n"
        "-D INPUT 2\n"
        "-I INPUT 2 -s 10.0.0.2/32 -j LOG\n"
        "-I LOG 1 -j ACCEPT\n"
        "-F old\n"
        "-X old\n"
        "COMMIT\n");
  CHECK(noflush_commands(after, after, Family::ipv4, false).empty());
}

TEST_CASE("noflush commands: counters with -c", "[noflush_commands]") {
  const std::string before = "*filter\n"
                             ":INPUT ACCEPT [1:2]\n"
                             "[3:4] -A INPUT -j ACCEPT\n"
                             "COMMIT\n";
  const std::string after = "*filter\n"
                            ":INPUT ACCEPT [5:6]\n"
                            "[7:8] -A INPUT -j ACCEPT\n"
                            "COMMIT\n";
  CHECK(noflush_commands(before, after, Family::ipv4, true) ==
        "*filter\n"
        ":INPUT ACCEPT [5:6]\n"
        "-D INPUT 1\n"
        "[7:8] -I INPUT 1 -j ACCEPT\n"
        "COMMIT\n");
}

TEST_CASE("noflush commands: ebtables user chains keep their policy",
          "[noflush_commands]") {
  const std::string before = "*filter\n"
                             ":INPUT ACCEPT\n"
                             ":FORWARD ACCEPT\n"
                             ":OUTPUT ACCEPT\n"
                             ":web ACCEPT\n"
                             "COMMIT\n";
  const std::string after = "*filter\n"
                            ":INPUT ACCEPT\n"
                            ":FORWARD ACCEPT\n"
                            ":OUTPUT ACCEPT\n"
                            ":web RETURN\n"
                            ":api DROP\n"
                            "COMMIT\n";
  CHECK(noflush_commands(before, after, Family::bridge, false) ==
        "*filter\n"
        ":api DROP\n"
        "-P web RETURN\n"
        "COMMIT\n");
}
