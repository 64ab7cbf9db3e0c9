// Typed entities: to_entity / from_entity for every member type, optional
// members, enums, mapping errors, and the typed table_client calls on the wire.
#include <catch2/catch.hpp>
#include <test_support.hpp>
#include <typed_models.hpp>

#include <cmath>
#include <limits>

namespace az = aztables;
using typed_models::everything;

namespace {

everything full_sample() {
  everything x;
  x.pk = "p";
  x.rk = "r";
  x.s = "h\xC3\xA9llo \xE4\xB8\xAD 'q' \"dq\"";
  x.b = true;
  x.i32 = std::numeric_limits<std::int32_t>::min();
  x.i64 = std::numeric_limits<std::int64_t>::max();
  x.d = -0.1;
  x.t = az::datetime(az::ticks(16409952001234567LL));
  x.g = *az::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833");
  x.bin = {0, 1, 2, 255};
  x.c = typed_models::color::blue;
  x.sz = typed_models::size::large;
  x.h = typed_models::huge::big;
  x.os = "";
  x.ob = false;
  x.oi32 = 0;
  x.oi64 = std::numeric_limits<std::int64_t>::min();
  x.od = std::numeric_limits<double>::infinity();
  x.ot = az::datetime(az::ticks(-116444736000000000LL));
  x.og = az::guid();
  x.obin = az::binary{};
  x.osz = typed_models::size::small;
  x.etag = az::etag("W/\"x\"");
  return x;
}

bool same(const everything& a, const everything& b) {
  auto deq = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  auto odeq = [&](const std::optional<double>& x, const std::optional<double>& y) {
    return x.has_value() == y.has_value() && (!x || deq(*x, *y));
  };
  return a.pk == b.pk && a.rk == b.rk && a.s == b.s && a.b == b.b && a.i32 == b.i32 && a.i64 == b.i64 &&
         deq(a.d, b.d) && a.t == b.t && a.g == b.g && a.bin == b.bin && a.c == b.c && a.sz == b.sz && a.h == b.h &&
         a.os == b.os && a.ob == b.ob && a.oi32 == b.oi32 && a.oi64 == b.oi64 && odeq(a.od, b.od) && a.ot == b.ot &&
         a.og == b.og && a.obin == b.obin && a.osz == b.osz && a.etag == b.etag;
}

}  // namespace

TEST_CASE("mapping: every member type maps to its Edm type and back", "[typed][mapping]") {
  const everything x = full_sample();
  az::entity e = az::to_entity(x).value();
  CHECK(e.partition_key == "p");
  CHECK(e.row_key == "r");
  CHECK(e.etag.str() == "W/\"x\"");
  CHECK(e.size() == 20);
  CHECK(e.get("S")->type() == az::edm::string);
  CHECK(e.get("B")->type() == az::edm::boolean);
  CHECK(e.get("I32")->type() == az::edm::int32);
  CHECK(e.get("I64")->type() == az::edm::int64);
  CHECK(e.get("D")->type() == az::edm::double_);
  CHECK(e.get("T")->type() == az::edm::datetime);
  CHECK(e.get("G")->type() == az::edm::guid);
  CHECK(e.get("Bin")->type() == az::edm::binary);
  CHECK(*e.get("Color")->as_int32() == 3);             // enum_as_integer, int underlying -> Int32
  CHECK(*e.get("Size")->as_string() == "Large");       // names -> String
  CHECK(*e.get("Huge")->as_int64() == (std::int64_t(1) << 40));  // 64-bit underlying -> Int64
  CHECK(*e.get("OSize")->as_string() == "Small");
  everything back = az::from_entity<everything>(e).value();
  CHECK(same(x, back));
}

TEST_CASE("mapping: empty optionals are omitted and absent ones read as empty", "[typed][mapping]") {
  everything x = full_sample();
  x.os.reset();
  x.ob.reset();
  x.oi32.reset();
  x.oi64.reset();
  x.od.reset();
  x.ot.reset();
  x.og.reset();
  x.obin.reset();
  x.osz.reset();
  az::entity e = az::to_entity(x).value();
  CHECK(e.size() == 11);
  CHECK_FALSE(e.contains("OS"));
  everything prefilled = full_sample();  // from_entity starts from a value-initialised T
  everything back = az::from_entity<everything>(e).value();
  CHECK(same(x, back));
  (void)prefilled;
}

TEST_CASE("mapping: stored types that do not fit are errors naming the property", "[typed][mapping]") {
  az::entity e = az::to_entity(full_sample()).value();
  SECTION("String into double") {
    e.set("D", "1.5");
    auto r = az::from_entity<everything>(e);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::mapping);
    CHECK(r.error().message == "property 'D': stored as Edm.String, which does not fit the member type double");
  }
  SECTION("Int64 into int32") {
    e.set("I32", std::int64_t{5});
    auto r = az::from_entity<everything>(e);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "property 'I32': stored as Edm.Int64, which does not fit the member type std::int32_t");
  }
  SECTION("Double into int64") {
    e.set("I64", 2.0);
    CHECK(az::from_entity<everything>(e).error().code == az::errc::mapping);
  }
  SECTION("a missing non-optional member") {
    e.erase("Bin");
    auto r = az::from_entity<everything>(e);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith("property 'Bin': is missing"));
  }
  SECTION("an unknown enum name") {
    e.set("Size", "Medium");
    auto r = az::from_entity<everything>(e);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "property 'Size': 'Medium' is not a name in enum_traits<E>::names");
  }
  SECTION("an enum integer out of the underlying range") {
    e.set("OSize", "Small");
    e.set("Color", std::int64_t{1});  // Int64 into an Int32-stored enum
    CHECK(az::from_entity<everything>(e).error().code == az::errc::mapping);
  }
  SECTION("Int32 widens into int64 and double members") {
    e.set("I64", 7);
    e.set("D", -3);
    auto r = az::from_entity<everything>(e).value();
    CHECK(r.i64 == 7);
    CHECK(r.d == -3.0);
  }
  SECTION("unknown stored properties are ignored") {
    e.set("Extra", "x").set("More", 1.5);
    CHECK(az::from_entity<everything>(e));
  }
}

TEST_CASE("mapping: an enum value without a name cannot be written", "[typed][mapping]") {
  everything x = full_sample();
  x.sz = static_cast<typed_models::size>(7);
  auto r = az::to_entity(x);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_argument);
  CHECK(r.error().message == "property 'Size': enum value 7 has no name in aztables::enum_traits<E>::names");
}

TEST_CASE("mapping: AZTABLES_MAP names properties after members", "[typed][mapping]") {
  typed_models::runner r{"race", "BIB:001", "Ann", 41};
  az::entity e = az::to_entity(r).value();
  CHECK(e.partition_key == "race");
  CHECK(e.row_key == "BIB:001");
  REQUIRE(e.size() == 2);
  CHECK(e.properties()[0].name == "name");
  CHECK(e.properties()[1].name == "age");
  CHECK(az::detail::schema_of<typed_models::runner>().select == "PartitionKey,RowKey,name,age");
  auto back = az::from_entity<typed_models::runner>(e).value();
  CHECK(back.name == "Ann");
  CHECK(back.age == 41);
}

// ---- typed calls on the wire -------------------------------------------------

namespace {
struct harness {
  std::shared_ptr<aztables_test::fake_transport> t = std::make_shared<aztables_test::fake_transport>();
  az::client_options opt = [this] {
    auto o = aztables_test::fake_options(t);
    o.retry = az::retry_options::none();
    return o;
  }();
  az::table_client tc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), opt)
                            .value()
                            .table("orders");
};
const std::string etag1 = "W/\"datetime'2026-11-21T13%3A19%3A43.7721195Z'\"";
}  // namespace

TEST_CASE("typed writes: the ETag member is refreshed on non-const objects only", "[typed][wire]") {
  harness h;
  everything x = full_sample();
  x.etag = az::etag();
  h.t->push(204, "", {{"ETag", etag1}});
  auto w = h.tc.insert(x);
  REQUIRE(w);
  CHECK(w->etag.str() == etag1);
  CHECK(x.etag.str() == etag1);
  auto rq = h.t->requests().back();
  CHECK(rq.method == "POST");
  CHECK(rq.body.find("\"Size\":\"Large\"") != std::string::npos);
  CHECK(rq.body.find("\"I64\":\"9223372036854775807\",\"I64@odata.type\":\"Edm.Int64\"") != std::string::npos);

  const everything cx = full_sample();
  h.t->push(204, "", {{"ETag", "W/\"other\""}});
  REQUIRE(h.tc.upsert(cx, az::update_mode::replace));
  CHECK(cx.etag.str() == "W/\"x\"");
  CHECK(h.t->requests().back().method == "PUT");
  CHECK(h.t->requests().back().headers.find("If-Match") == nullptr);
}

TEST_CASE("typed update: If-Match from the ETag member, * without one", "[typed][wire]") {
  harness h;
  everything x = full_sample();
  x.etag = az::etag(etag1);
  h.t->push(204, "", {{"ETag", "W/\"new\""}});
  REQUIRE(h.tc.update(x));
  CHECK(h.t->requests().back().method == "MERGE");
  CHECK(h.t->requests().back().headers.get("If-Match") == etag1);
  CHECK(x.etag.str() == "W/\"new\"");

  x.etag = az::etag();
  auto r = h.tc.update(x);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_argument);
  CHECK(h.t->request_count() == 1);

  typed_models::runner run{"race", "BIB:1", "Ann", 40};
  h.t->push(204, "", {{"ETag", "W/\"r\""}});
  REQUIRE(h.tc.update(run, az::update_mode::replace));
  CHECK(h.t->requests().back().method == "PUT");
  CHECK(h.t->requests().back().headers.get("If-Match") == "*");

  h.t->push(204);
  REQUIRE(h.tc.erase(run));
  CHECK(h.t->requests().back().method == "DELETE");
  CHECK(h.t->requests().back().headers.get("If-Match") == "*");
  CHECK_THAT(h.t->requests().back().url, Catch::EndsWith("orders(PartitionKey='race',RowKey='BIB%3A1')"));

  x.etag = az::etag(etag1);
  h.t->push(204);
  REQUIRE(h.tc.erase(x));
  CHECK(h.t->requests().back().headers.get("If-Match") == etag1);
}

TEST_CASE("typed get: nometadata, mapped $select, ETag from the header", "[typed][wire]") {
  harness h;
  h.t->push(200,
            R"({"PartitionKey":"p","RowKey":"r","S":"x","B":true,"I32":-5,"I64":"-9223372036854775808",)"
            R"("D":2,"T":"2026-01-02T03:04:05.1234567Z","G":"c9da6455-213d-42c9-9a79-3e9149a57833","Bin":"AQID/w==",)"
            R"("Color":2,"Size":"Small","Huge":"1099511627776","OD":"NaN","Unknown":{"nested":1},"Timestamp":"2026-01-01T00:00:00Z"})",
            {{"ETag", etag1}});
  auto got = h.tc.get<everything>({"p", "r"}).value();
  REQUIRE(got);
  auto rq = h.t->requests().back();
  CHECK(rq.headers.get("Accept") == "application/json;odata=nometadata");
  CHECK_THAT(rq.url, Catch::EndsWith(
                         "orders(PartitionKey='p',RowKey='r')?$select=PartitionKey%2CRowKey%2CS%2CB%2CI32%2CI64%2CD%2CT%"
                         "2CG%2CBin%2CColor%2CSize%2CHuge%2COS%2COB%2COI32%2COI64%2COD%2COT%2COG%2COBin%2COSize"));
  CHECK(got->etag.str() == etag1);
  CHECK(got->i64 == std::numeric_limits<std::int64_t>::min());
  CHECK(got->d == 2.0);
  CHECK(got->t.time_since_epoch().count() % 10000000 == 1234567);
  CHECK(got->bin == az::binary{1, 2, 3, 255});
  CHECK(got->c == typed_models::color::green);
  CHECK(got->h == typed_models::huge::big);
  REQUIRE(got->od);
  CHECK(std::isnan(*got->od));
  CHECK_FALSE(got->os);

  h.t->push(404, R"({"odata.error":{"code":"ResourceNotFound","message":{"value":"no"}}})",
            {{"x-ms-error-code", "ResourceNotFound"}});
  CHECK_FALSE(h.tc.get<everything>({"p", "gone"}).value());

  h.t->push(200, R"({"PartitionKey":"p","RowKey":"r","S":5})");
  auto bad = h.tc.get<typed_models::everything_view>({"p", "r"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == az::errc::mapping);
  CHECK(bad.error().message == "property 'S': stored as Edm.Int32, which does not fit the member type std::string");
}
