#include <catch2/catch.hpp>

#include "fastrestore/diagnostic.h"

using namespace fastrestore;

TEST_CASE("a diagnostic names line and columns and underlines the word",
          "[diagnostic]") {
  Diagnostic d;
  d.loc = {4, 17, 23};
  d.message = "unknown option \"--bogus\"";
  d.source = "-A INPUT -p tcp --bogus 22 -j ACCEPT";
  CHECK(format_diagnostic(d) ==
        "fastrestore: line 4, column 17-23: unknown option \"--bogus\"\n"
        "  4 | -A INPUT -p tcp --bogus 22 -j ACCEPT\n"
        "    |                 ^^^^^^^\n");
}

TEST_CASE("a diagnostic without a column shows the line only", "[diagnostic]") {
  Diagnostic d;
  d.loc = {12, 0, 0};
  d.message = "COMMIT expected";
  CHECK(format_diagnostic(d, "rules.v4") ==
        "fastrestore: rules.v4: line 12: COMMIT expected\n");
}

TEST_CASE("tabs before the span are kept so the caret lines up",
          "[diagnostic]") {
  Diagnostic d;
  d.loc = {1, 3, 3};
  d.message = "m";
  d.source = "\tx y";
  CHECK(format_diagnostic(d) == "fastrestore: line 1, column 3: m\n"
                                "  1 | \tx y\n"
                                "    | \t ^\n");
}

TEST_CASE("a line ending in CR gets the hint of a DOS file", "[diagnostic]") {
  Diagnostic d;
  d.loc = {1, 2, 8};
  d.message = "table name 'filter\r' invalid";
  d.source = "*filter\r";
  CHECK(format_diagnostic(d) ==
        "fastrestore: line 1, column 2-8: table name 'filter\r' invalid\n"
        "  1 | *filter\r\n"
        "    |  ^^^^^^^\n"
        "    = hint: line ends in CR (a DOS file?)\n");
  d.source = "*filter";
  CHECK(caret_display(d).find("CR") == std::string::npos);
}
