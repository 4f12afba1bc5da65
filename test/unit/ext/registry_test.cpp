// The registry of native lowerings: each is found only for its families
// and the plugin revision it reads; everything else goes compat.
#include <catch2/catch.hpp>

#include <linux/netfilter_bridge/ebtables.h>

#include <string>

#include "../helpers.h"
#include "expr/nft_expr.h"
#include "ext/ext.h"

using namespace fastrestore;

TEST_CASE("registry: a native form only for its families", "[ext][registry]") {
  CHECK(find_native_extension("tcp", false, Family::ipv4, 0) != nullptr);
  CHECK(find_native_extension("tcp", false, Family::ipv6, 0) != nullptr);
  CHECK(find_native_extension("tcp", false, Family::bridge, 0) == nullptr);
  CHECK(find_native_extension("limit", false, Family::bridge, 0) != nullptr);
  CHECK(find_native_extension("among", false, Family::bridge, 0) != nullptr);
  CHECK(find_native_extension("among", false, Family::ipv4, 0) == nullptr);
  // ebtables-nft writes every target compat.
  CHECK(find_native_extension("NFLOG", true, Family::ipv4, 0) != nullptr);
  CHECK(find_native_extension("NFLOG", true, Family::bridge, 0) == nullptr);
  // A match's name is not a target's.
  CHECK(find_native_extension("mark", true, Family::ipv4, 1) == nullptr);
}

TEST_CASE("registry: mark is native in the revision its lowering reads",
          "[ext][registry]") {
  CHECK(find_native_extension("mark", false, Family::ipv4, 1) != nullptr);
  CHECK(find_native_extension("mark", false, Family::ipv4, 0) == nullptr);
  CHECK(find_native_extension("mark", false, Family::ipv4, 2) == nullptr);
}

TEST_CASE("registry: 802_3 needs -p LENGTH, and then goes compat",
          "[ext][registry]") {
  alignas(8) char buf[4096] = {};
  nlmsghdr *nlh = reinterpret_cast<nlmsghdr *>(buf);
  nlh->nlmsg_len = sizeof(nlmsghdr);
  nft::ExprWriter w(nlh);
  XtBlob m;
  m.name = "802_3";
  m.data.assign(8, 0);
  LowerCtx without{w, Family::bridge, 0, {3, 1, 10}};
  try {
    lower_match(m, without);
    FAIL("no error without -p LENGTH");
  } catch (const Error &e) {
    CHECK(e.diag().message ==
          "For 802.3 DSAP/SSAP filtering the protocol must be LENGTH");
    CHECK(e.diag().loc.line == 3);
  }
  LowerCtx with{w, Family::bridge, 0, {3, 1, 10}, EBT_802_3};
  const uint32_t before = nlh->nlmsg_len;
  lower_match(m, with);
  CHECK(nlh->nlmsg_len > before); // the compat match
}
