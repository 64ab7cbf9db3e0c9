#include <catch2/catch.hpp>
#include <test_support.hpp>

TEST_CASE("Azurite: insert and point get round trip", "[core]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "smoke");
  auto tc = table.client();
  aztables::entity e("p", "r");
  e.set("N", std::int64_t{1} << 60);
  REQUIRE(tc.insert(e));
  auto got = tc.get({"p", "r"}).value();
  REQUIRE(got);
  CHECK(*got == e);
}
