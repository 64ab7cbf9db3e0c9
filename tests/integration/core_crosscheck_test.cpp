// Cross-check of wire types with the official JS SDK (@azure/data-tables,
// installed under tests/node_modules): the C++ SDK writes an entity that
// tests/js/crosscheck.mjs reads and checks, and reads back the entity the
// script writes. Skipped (exit 77) only when node is not installed.
#include <catch2/catch.hpp>
#include <shell.hpp>
#include <test_support.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace az = aztables;
using aztables_test::run_command;
using aztables_test::shell_quote;

namespace {

// tests/ (this file is tests/integration/core_crosscheck_test.cpp).
std::string tests_dir() {
  std::string f = __FILE__;
  for (int i = 0; i < 2; ++i) f = f.substr(0, f.find_last_of('/'));
  return f;
}

az::datetime at(std::int64_t unix_seconds, std::int64_t extra_ticks = 0) {
  return az::datetime(az::ticks(unix_seconds * 10000000 + extra_ticks));
}

}  // namespace

TEST_CASE("Azurite: wire types agree with the official JS SDK", "[core][crosscheck]") {
  const std::string cs = aztables_test::azurite_connection_string();  // exits 77 without Azurite
  const std::string tests = tests_dir();
  if (run_command("node --version").first != 0) {
    std::fprintf(stderr, "SKIPPED: node is not installed\n");
    std::exit(77);
  }
  REQUIRE(run_command("test -d " + shell_quote(tests + "/node_modules/@azure/data-tables")).first == 0);

  aztables_test::scoped_table table(aztables_test::azurite_service(), "cross");
  auto tc = table.client();
  az::entity mine("cpp", "types");
  mine.set("I64max", std::numeric_limits<std::int64_t>::max())
      .set("I64min", std::numeric_limits<std::int64_t>::min())
      .set("I64small", std::int64_t{5})
      .set("I32", std::numeric_limits<std::int32_t>::min())
      .set("Dt", at(1767323045, 1234567))
      .set("DtOld", at(-11644473600))
      .set("G", *az::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833"))
      .set("Bin", az::binary{0, 1, 2, 254, 255})
      .set("BinEmpty", az::binary{})
      .set("DFrac", 1.5)
      .set("DWhole", 2.0)
      .set("DNaN", std::numeric_limits<double>::quiet_NaN())
      .set("DInf", std::numeric_limits<double>::infinity())
      .set("DNegInf", -std::numeric_limits<double>::infinity())
      .set("B", true)
      .set("S", "h\xc3\xa9llo \xe4\xb8\xad \xf0\x9f\x98\x80 \xe2\x80\xa8")
      .set("SEmpty", "");
  REQUIRE(tc.insert(mine));

  const std::string cmd = "cd " + shell_quote(tests) + " && AZTABLES_TEST_CONNECTION_STRING=" + shell_quote(cs) +
                          " node js/crosscheck.mjs " + shell_quote(table.name());
  auto [status, output] = run_command(cmd);
  INFO(output);
  REQUIRE(status == 0);
  CHECK_THAT(output, Catch::Contains("all checks passed"));

  auto got = tc.get({"js", "types"});
  REQUIRE(got);
  REQUIRE(*got);
  const az::entity& js = **got;
  auto type_of = [&](const char* n) {
    const az::value* v = js.get(n);
    REQUIRE(v != nullptr);
    return v->type();
  };
  CHECK(type_of("I64max") == az::edm::int64);
  CHECK(*js.get("I64max")->as_int64() == std::numeric_limits<std::int64_t>::max());
  CHECK(type_of("I64minBig") == az::edm::int64);
  CHECK(*js.get("I64minBig")->as_int64() == std::numeric_limits<std::int64_t>::min());
  CHECK(type_of("Dt") == az::edm::datetime);
  CHECK(*js.get("Dt")->as_datetime() == at(1767323045, 1234567));
  CHECK(type_of("DtNative") == az::edm::datetime);  // a JS Date: millisecond precision
  CHECK(*js.get("DtNative")->as_datetime() == at(-1, 9990000));
  CHECK(type_of("G") == az::edm::guid);
  CHECK(js.get("G")->as_guid()->to_string() == "c9da6455-213d-42c9-9a79-3e9149a57833");
  CHECK(type_of("Bin") == az::edm::binary);
  CHECK(*js.get("Bin")->as_binary() == az::binary{0, 1, 2, 254, 255});
  CHECK(type_of("BinEmpty") == az::edm::binary);
  CHECK(js.get("BinEmpty")->as_binary()->empty());
  // The JS SDK sends {value: 2, type: "Double"} as 2 + annotation; the service
  // (Azurite too) answers 2.0, which the C++ reader keeps as a Double.
  CHECK(type_of("DWhole") == az::edm::double_);
  CHECK(*js.get("DWhole")->as_double() == 2.0);
  CHECK(type_of("DFrac") == az::edm::double_);
  CHECK(*js.get("DFrac")->as_double() == 1.5);
  CHECK(type_of("DNaN") == az::edm::double_);
  CHECK(std::isnan(*js.get("DNaN")->as_double()));
  CHECK(*js.get("DInf")->as_double() == std::numeric_limits<double>::infinity());
  CHECK(*js.get("DNegInf")->as_double() == -std::numeric_limits<double>::infinity());
  CHECK(type_of("I32") == az::edm::int32);
  CHECK(*js.get("I32")->as_int32() == 42);
  CHECK(*js.get("I32min")->as_int32() == std::numeric_limits<std::int32_t>::min());
  CHECK(type_of("B") == az::edm::boolean);
  CHECK(*js.get("S")->as_string() == "h\xc3\xa9llo \xe4\xb8\xad \xf0\x9f\x98\x80 \xe2\x80\xa8");
  CHECK(js.get("SEmpty")->as_string()->empty());
  CHECK(js.size() == 17);
}
