// The planner's model of a table (check/table_model.h): chains kept in
// the order they came, found by name, renamed in place, put in a given
// order, and each staying where it is in memory until it goes.
#include <catch2/catch.hpp>

#include "check/table_model.h"

using namespace fastrestore;

namespace {

ModelChain chain(const std::string &name, uint64_t handle = 0) {
  ModelChain c;
  c.name = name;
  c.handle = handle;
  return c;
}

using Names = std::vector<std::string>;

} // namespace

TEST_CASE("table model: chains in the order they came, found by name",
          "[table_model]") {
  TableModel m;
  m.add(chain("INPUT", 1));
  m.add(chain("a", 2));
  m.add(chain("b", 3));
  CHECK(m.names() == Names{"INPUT", "a", "b"});
  REQUIRE(m.find("a") != nullptr);
  CHECK(m.find("a")->handle == 2);
  CHECK_FALSE(m.has("c"));
  m.remove("a");
  m.remove("c"); // (none: nothing)
  CHECK(m.names() == Names{"INPUT", "b"});
  CHECK_FALSE(m.has("a"));
  m.add(chain("a", 4));
  CHECK(m.names() == Names{"INPUT", "b", "a"});
  CHECK(m.find("a")->handle == 4);
}

TEST_CASE("table model: a renamed chain keeps its place and its rules",
          "[table_model]") {
  TableModel m;
  m.add(chain("a"));
  m.add(chain("b")).rules.push_back(RuleRef{7, 0});
  m.add(chain("c"));
  m.rename("b", "x");
  CHECK(m.names() == Names{"a", "x", "c"});
  CHECK_FALSE(m.has("b"));
  REQUIRE(m.has("x"));
  CHECK(m.find("x")->rules.size() == 1);
}

TEST_CASE("table model: arranged as named, the unnamed after in their order",
          "[table_model]") {
  TableModel m;
  for (const char *n : {"d", "a", "c", "b"})
    m.add(chain(n));
  m.arrange({"a", "b", "missing", "a"});
  CHECK(m.names() == Names{"a", "b", "d", "c"});
}

TEST_CASE("table model: references stay valid while other chains come and go",
          "[table_model]") {
  TableModel m;
  ModelChain &a = m.add(chain("a", 1));
  for (int i = 0; i < 100; ++i)
    m.add(chain("c" + std::to_string(i)));
  m.remove("c0");
  m.arrange({"c5", "a"});
  m.remove_if([](const ModelChain &c) { return c.name.size() == 3; });
  CHECK(&a == m.find("a"));
  CHECK(m.names().size() == 10); // a and c1..c9
  CHECK(m.names().front() == "c5");
}
