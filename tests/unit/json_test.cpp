// aztables::to_json / from_json: the service's JSON form, lossless both ways.
#include <aztables/json.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

using aztables::entity;
using aztables::errc;

namespace {

entity every_type() {
  entity e("part \"one\"", "row 1 \xc3\xa9 <&>");
  e.set("S", "line1\nline2 \"quoted\" \xf0\x9f\x98\x80")
      .set("Empty", "")
      .set("Bin", aztables::binary{0, 1, 2, 250, 255})
      .set("NoBytes", aztables::binary{})
      .set("T", true)
      .set("F", false)
      .set("When", aztables::datetime(aztables::ticks(17149680001234567LL)))
      .set("Whole", 2.0)
      .set("Pi", 3.141592653589793)
      .set("Tiny", 5e-324)
      .set("NegZero", -0.0)
      .set("NaN", std::numeric_limits<double>::quiet_NaN())
      .set("Inf", std::numeric_limits<double>::infinity())
      .set("NegInf", -std::numeric_limits<double>::infinity())
      .set("Id", *aztables::guid::parse("0f8fad5b-d9cb-469f-a165-70867728950e"))
      .set("I32", std::int32_t{-2147483647 - 1})
      .set("I64", std::int64_t{9223372036854775807LL})
      .set("SmallI64", std::int64_t{1})
      .set("NegI64", std::int64_t{-9223372036854775807LL - 1});
  return e;
}

}  // namespace

TEST_CASE("to_json then from_json returns the same entity, type for type", "[json]") {
  entity e = every_type();
  auto text = aztables::to_json(e);
  REQUIRE(text);
  auto back = aztables::from_json(*text);
  REQUIRE(back);
  CHECK(*back == e);
  for (const auto& p : e) {
    INFO(p.name);
    REQUIRE(back->get(p.name));
    CHECK(back->get(p.name)->type() == p.value.type());
  }
  CHECK(std::signbit(*back->get("NegZero")->as_double()));
  // Stable: writing the read-back entity gives the same text.
  CHECK(aztables::to_json(*back).value() == *text);
}

TEST_CASE("to_json writes the service's annotations", "[json]") {
  entity e("p", "r");
  e.set("Count", std::int64_t{5}).set("N", 7).set("D", 1.5).set("B", true).set("S", "x");
  CHECK(aztables::to_json(e).value() ==
        R"({"PartitionKey":"p","RowKey":"r","Count":"5","Count@odata.type":"Edm.Int64","N":7,)"
        R"("D":1.5,"D@odata.type":"Edm.Double","B":true,"S":"x"})");

  e.etag = aztables::etag("W/\"datetime'2024-05-01T12%3A00%3A00.1234567Z'\"");
  e.timestamp = aztables::datetime(aztables::ticks(17145648001234567LL));
  auto text = aztables::to_json(e).value();
  CHECK(text.rfind(R"({"odata.etag":"W/\"datetime'2024-05-01T12%3A00%3A00.1234567Z'\"","PartitionKey":"p")", 0) == 0);
  CHECK(text.find(R"("Timestamp":"2024-05-01T12:00:00.1234567Z","Timestamp@odata.type":"Edm.DateTime"})") !=
        std::string::npos);
  auto back = aztables::from_json(text).value();
  CHECK(back.etag == e.etag);
  CHECK(back.timestamp == e.timestamp);
  CHECK(back == e);
}

TEST_CASE("from_json reads what the service sends (minimal and full metadata)", "[json]") {
  // Annotation before the value, as the service writes it; odata.metadata ignored.
  auto e = aztables::from_json(
               R"({"odata.metadata":"http://x/$metadata#t/@Element","odata.etag":"W/\"x\"","PartitionKey":"p",)"
               R"("RowKey":"r","Timestamp":"2024-05-01T12:00:00.1234567Z","Big@odata.type":"Edm.Int64","Big":"123",)"
               R"("Small":42,"Huge":4294967296,"Frac":2.0,"Nothing":null})")
               .value();
  CHECK(e.partition_key == "p");
  CHECK(e.row_key == "r");
  CHECK(e.etag.str() == "W/\"x\"");
  CHECK(e.timestamp.has_value());
  CHECK(*e.get("Big")->as_int64() == 123);
  CHECK(*e.get("Small")->as_int32() == 42);
  CHECK(*e.get("Huge")->as_int64() == 4294967296LL);
  CHECK(*e.get("Frac")->as_double() == 2.0);
  CHECK_FALSE(e.contains("Nothing"));
  CHECK(e.size() == 4);
}

TEST_CASE("from_json rejects what is not one entity object", "[json]") {
  for (const char* bad : {"", "[]", "42", "{", R"({"PartitionKey":"p"} {})", R"({"A":"x","A@odata.type":"Edm.Int64"})",
                          R"({"A@odata.type":"Edm.Guid","A":"nope"})", R"({"A@odata.type":"Edm.Nope","A":"x"})",
                          R"({"A":1,"A":2})", R"({"A":{"nested":1}})", R"({"A":[1]})"}) {
    INFO(bad);
    auto r = aztables::from_json(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::invalid_argument);
    CHECK(r.error().message.rfind("entity JSON: ", 0) == 0);
  }
}

TEST_CASE("to_json refuses an entity a write would refuse", "[json]") {
  entity bad_key("a/b", "r");
  CHECK(aztables::to_json(bad_key).error().message.rfind("PartitionKey: contains U+002F", 0) == 0);
  entity bad_name("p", "r");
  bad_name.set("has space", 1);
  CHECK(aztables::to_json(bad_name).error().code == errc::invalid_argument);
  entity bad_utf8("p", "r");
  bad_utf8.set("S", std::string("\xff"));
  CHECK(aztables::to_json(bad_utf8).error().code == errc::invalid_argument);
}
