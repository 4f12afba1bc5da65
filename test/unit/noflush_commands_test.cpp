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
  // A chain named like a target is declared (-N refuses it); a rule
  // changed in place is replaced; the removed chain is emptied, then
  // deleted, after the jump to it.
  CHECK(noflush_commands(before, after, Family::ipv4, false) ==
        "*filter\n"
        ":INPUT DROP [0:0]\n"
        ":LOG - [0:0]\n"
        "-R INPUT 2 -s 10.0.0.2/32 -j LOG\n"
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
        "[7:8] -R INPUT 1 -j ACCEPT\n"
        "COMMIT\n");
}

TEST_CASE("noflush commands: runs of removed and added rules",
          "[noflush_commands]") {
  auto table = [](std::initializer_list<const char *> rules) {
    std::string t = "*filter\n:INPUT ACCEPT [0:0]\n";
    for (const char *r : rules)
      t += std::string("-A INPUT ") + r + "\n";
    return t + "COMMIT\n";
  };
  // Rule numbers count the commands before them: two replaced in place,
  // the third removed where the next one now stands.
  CHECK(noflush_commands(table({"-s 1.1.1.1/32 -j ACCEPT", "-j a", "-j b",
                                "-j c", "-s 9.9.9.9/32 -j DROP"}),
                         table({"-s 1.1.1.1/32 -j ACCEPT", "-j x", "-j y",
                                "-s 9.9.9.9/32 -j DROP"}),
                         Family::ipv4, false) == "*filter\n"
                                                 "-R INPUT 2 -j x\n"
                                                 "-R INPUT 3 -j y\n"
                                                 "-D INPUT 4\n"
                                                 "COMMIT\n");
  // One replaced, two inserted after it.
  CHECK(noflush_commands(table({"-j a", "-j DROP"}),
                         table({"-j x", "-j y", "-j z", "-j DROP"}),
                         Family::ipv4, false) == "*filter\n"
                                                 "-R INPUT 1 -j x\n"
                                                 "-I INPUT 2 -j y\n"
                                                 "-I INPUT 3 -j z\n"
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

TEST_CASE("noflush commands: a chain named after a target, jumped to",
          "[noflush_commands]") {
  auto save = [](const std::string &input_rule, const std::string &log_rule) {
    return "*filter\n"
           ":INPUT ACCEPT [0:0]\n"
           ":LOG - [0:0]\n"
           ":REJECT - [0:0]\n"
           ":web - [0:0]\n"
           "-A INPUT " +
           input_rule + "\n-A LOG " + log_rule + "\nCOMMIT\n";
  };
  auto is_target = [](std::string_view name) {
    return name == "LOG" || name == "REJECT";
  };
  // Undeclared in a --noflush block, -j LOG and -j REJECT are the
  // targets: both chains are declared (emptied) and LOG's rules written
  // whole; web, not a target's name, is not.
  CHECK(noflush_commands(save("-j LOG", "-j REJECT"),
                         save("-p tcp -j LOG", "-p udp -j REJECT"),
                         Family::ipv4, false, is_target) ==
        "*filter\n"
        ":LOG - [0:0]\n"
        ":REJECT - [0:0]\n"
        "-R INPUT 1 -p tcp -j LOG\n"
        "-I LOG 1 -p udp -j REJECT\n"
        "COMMIT\n");
  CHECK(noflush_commands(save("-j web", "-j ACCEPT"),
                         save("-p tcp -j web", "-j ACCEPT"), Family::ipv4,
                         false, is_target) == "*filter\n"
                                              "-R INPUT 1 -p tcp -j web\n"
                                              "COMMIT\n");
  // A target's options follow its name: that rule is the target's, and
  // chain LOG is left as it is.
  CHECK(noflush_commands(save("-j LOG", "-j REJECT"),
                         save("-p tcp -j LOG --log-prefix x", "-j REJECT"),
                         Family::ipv4, false, is_target) ==
        "*filter\n"
        "-R INPUT 1 -p tcp -j LOG --log-prefix x\n"
        "COMMIT\n");
  // Without the question asked, as before.
  CHECK(noflush_commands(save("-j LOG", "-j REJECT"),
                         save("-p tcp -j LOG", "-j REJECT"), Family::ipv4,
                         false) == "*filter\n"
                                   "-R INPUT 1 -p tcp -j LOG\n"
                                   "COMMIT\n");
}
