// diff --json's pieces: JSON strings escaped as JSON asks, and a table's
// changes read from its saves before and after (chains, policies, rules
// with their chain and position).
#include <catch2/catch.hpp>

#include <string>

#include "diag/json.h"
#include "fastrestore/table_changes.h"

using namespace fastrestore;

TEST_CASE("json: quotes, backslashes and control characters are escaped",
          "[json]") {
  CHECK(json_quote("plain") == "\"plain\"");
  CHECK(json_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_quote("tab\there\nnl") == "\"tab\\there\\nnl\"");
  CHECK(json_quote(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(JsonObject()
            .text("a", "x")
            .number("n", 42)
            .real("t", 1.5, 3)
            .boolean("b", false)
            .raw("l", "[]")
            .str() == R"({"a":"x","n":42,"t":1.500,"b":false,"l":[]})");
}

TEST_CASE("table changes: chains, policies and rules with their positions",
          "[json]") {
  TableTexts t;
  t.table = "filter";
  t.before = "*filter\n:INPUT DROP [0:0]\n:old - [0:0]\n"
             "-A INPUT -i lo -j ACCEPT\n-A INPUT -p tcp -j ACCEPT\n"
             "-A old -j DROP\nCOMMIT\n";
  t.after = "*filter\n:INPUT ACCEPT [0:0]\n:new - [0:0]\n"
            "-A INPUT -i lo -j ACCEPT\n-A INPUT -s 192.0.2.1/32 -j DROP\n"
            "-A INPUT -p tcp -j ACCEPT\nCOMMIT\n";
  const TableChanges c = table_changes(t);
  CHECK(c.chains_added == std::vector<std::string>{"new"});
  CHECK(c.chains_removed == std::vector<std::string>{"old"});
  REQUIRE(c.policies.size() == 1);
  CHECK(c.policies[0].chain == "INPUT");
  CHECK(c.policies[0].before == "DROP");
  CHECK(c.policies[0].after == "ACCEPT");
  REQUIRE(c.rules_added.size() == 1);
  CHECK(c.rules_added[0].chain == "INPUT");
  CHECK(c.rules_added[0].position == 2);
  REQUIRE(c.rules_removed.size() == 1);
  CHECK(c.rules_removed[0].chain == "old");
  CHECK(c.rules_removed[0].position == 1);
  CHECK(changes_json({c}).rfind(
            R"({"changed":true,"tables":[{"table":"filter",)", 0) == 0);
}

TEST_CASE("table changes: counters before a rule, and no change at all",
          "[json]") {
  TableTexts t;
  t.table = "filter";
  t.before = "*filter\n:INPUT ACCEPT [1:2]\n[3:4] -A INPUT -j ACCEPT\nCOMMIT\n";
  t.after = "*filter\n:INPUT ACCEPT [1:2]\n[3:4] -A INPUT -j ACCEPT\n"
            "[0:0] -A INPUT -j DROP\nCOMMIT\n";
  const TableChanges c = table_changes(t);
  REQUIRE(c.rules_added.size() == 1);
  CHECK(c.rules_added[0].chain == "INPUT");
  CHECK(c.rules_added[0].position == 2);
  CHECK(c.rules_added[0].rule == "[0:0] -A INPUT -j DROP");
  t.after = t.before;
  CHECK(table_changes(t).empty());
  CHECK(changes_json({table_changes(t)}) == R"({"changed":false,"tables":[]})");
}
