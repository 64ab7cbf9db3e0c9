// The validation catalogue: every service rule is checked before anything is
// sent, and each error is invalid_argument naming the field and the rule.
#include <aztables/detail/json_writer.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

namespace az = aztables;
using aztables_test::fake_options;
using aztables_test::fake_transport;

namespace {

struct harness {
  std::shared_ptr<fake_transport> t = std::make_shared<fake_transport>();
  az::table_client tc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), fake_options(t))
                            .value()
                            .table("orders");
};

std::string repeat(const std::string& s, std::size_t n) {
  std::string r;
  r.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) r += s;
  return r;
}

// Every write path must refuse the entity with the same error, sending nothing.
void require_refused(const az::entity& e, const std::string& field, const std::string& rule) {
  harness h;
  az::entity with_etag = e;
  with_etag.etag = az::etag::any();
  const std::pair<const char*, az::result<az::write_result>> results[] = {
      {"insert", h.tc.insert(e)},
      {"upsert merge", h.tc.upsert(e, az::update_mode::merge)},
      {"upsert replace", h.tc.upsert(e, az::update_mode::replace)},
      {"update merge", h.tc.update(with_etag, az::update_mode::merge)},
      {"update replace", h.tc.update(with_etag, az::update_mode::replace)},
  };
  for (const auto& r : results) {
    INFO(r.first);
    REQUIRE_FALSE(r.second);
    const az::error& err = r.second.error();
    CHECK(err.code == az::errc::invalid_argument);
    CHECK(err.http_status == 0);
    CHECK_THAT(err.message, Catch::Contains(field));
    CHECK_THAT(err.message, Catch::Contains(rule));
  }
  CHECK(h.t->request_count() == 0);
}

void require_accepted(const az::entity& e) {
  std::string out;
  auto err = az::detail::append_entity_json(out, e);
  if (err) FAIL("refused: " << err->to_string());
}

}  // namespace

TEST_CASE("validation: forbidden key characters", "[core][validation]") {
  struct bad {
    std::string text;
    const char* shown;
  };
  const bad cases[] = {
      {"a/b", "U+002F '/'"},   {"a\\b", "U+005C '\\'"}, {"a#b", "U+0023 '#'"},    {"a?b", "U+003F '?'"},
      {std::string("a\0b", 3), "U+0000"}, {"a\x01" "b", "U+0001"}, {"a\tb", "U+0009"}, {"a\nb", "U+000A"},
      {"a\x1f" "b", "U+001F"}, {"a\x7f" "b", "U+007F"},   {"a\xc2\x80" "b", "U+0080"}, {"a\xc2\x85" "b", "U+0085"},
      {"a\xc2\x9f" "b", "U+009F"},
  };
  for (const auto& c : cases) {
    INFO("key " << c.shown);
    require_refused(az::entity(c.text, "r"), "PartitionKey", c.shown);
    require_refused(az::entity("p", c.text), "RowKey", c.shown);
    CHECK_THAT(az::detail::check_key("RowKey", c.text)->message,
               Catch::Contains("keys may not contain") && Catch::Contains("U+007F-U+009F"));
    // Reads and deletes check the key too.
    harness h;
    auto g = h.tc.get({c.text, "r"});
    REQUIRE_FALSE(g);
    CHECK_THAT(g.error().message, Catch::Contains("PartitionKey") && Catch::Contains(c.shown));
    auto d = h.tc.erase({"p", c.text}, az::etag::any());
    REQUIRE_FALSE(d);
    CHECK_THAT(d.error().message, Catch::Contains("RowKey") && Catch::Contains(c.shown));
    CHECK(h.t->request_count() == 0);
  }
  // Allowed: U+00A0 and everything else the notes show Azurite accepting.
  for (const char* ok : {"a\xc2\xa0" "b", "a'b", "a%b", "a\"b", "a&b", "a+b", "a b", "a\xc3\xa9" "b",
                         "a\xf0\x9f\x98\x80" "b", "a\xe2\x80\xa8" "b", ""}) {
    INFO("key " << ok);
    require_accepted(az::entity(ok, ok));
  }
}

TEST_CASE("validation: key length is 512 UTF-16 code units", "[core][validation]") {
  require_accepted(az::entity(std::string(512, 'k'), std::string(512, 'k')));
  require_accepted(az::entity(repeat("\xc3\xa9", 512), "r"));          // 512 units, 1024 bytes
  require_accepted(az::entity(repeat("\xf0\x9f\x98\x80", 256), "r"));  // 256 surrogate pairs = 512 units
  require_refused(az::entity(std::string(513, 'k'), "r"), "PartitionKey", "513 UTF-16 code units long; the limit is 512");
  require_refused(az::entity("p", std::string(1024, 'k')), "RowKey", "the limit is 512");
  require_refused(az::entity(repeat("\xf0\x9f\x98\x80", 257), "r"), "PartitionKey", "514 UTF-16 code units");
}

TEST_CASE("validation: property names", "[core][validation]") {
  auto with = [](const std::string& name) {
    az::entity e("p", "r");
    e.set(name, 1);
    return e;
  };
  for (const char* ok : {"A", "_under", "a1", "Name_2", "\xc3\xbcn\xc3\xaf" "code"}) {
    INFO(ok);
    require_accepted(with(ok));
  }
  require_accepted(with(std::string(255, 'n')));
  require_refused(with(std::string(256, 'n')), "property 'nnn", "longer than 255 characters");
  require_refused(with("1abc"), "property '1abc'", "must start with a letter or '_'");
  require_refused(with("has-dash"), "property 'has-dash'", "only letters, digits and '_'");
  require_refused(with("has space"), "property 'has space'", "only letters, digits and '_'");
  require_refused(with("odata.x"), "property 'odata.x'", "only letters, digits and '_'");
  require_refused(with("X@odata.type"), "property 'X@odata.type'", "only letters, digits and '_'");
  require_refused(with(""), "property ''", "may not be empty");
  for (const char* reserved : {"PartitionKey", "RowKey", "Timestamp"}) {
    INFO(reserved);
    require_refused(with(reserved), std::string("property '") + reserved + "'", "system property name");
  }
  require_refused(with("bad\xff"), "property", "not valid UTF-8");
}

TEST_CASE("validation: at most 255 properties including the three system ones", "[core][validation]") {
  az::entity e("p", "r");
  for (int i = 0; i < 252; ++i) e.set("P" + std::to_string(i), i);
  require_accepted(e);
  e.set("OneTooMany", 1);
  require_refused(e, "entity", "has 256 properties including PartitionKey, RowKey and Timestamp; the limit is 255");
}

TEST_CASE("validation: String values are at most 32K UTF-16 code units", "[core][validation]") {
  auto with = [](std::string s) {
    az::entity e("p", "r");
    e.set("S", std::move(s));
    return e;
  };
  require_accepted(with(std::string(32768, 's')));
  require_accepted(with(repeat("\xc3\xa9", 32768)));            // 64 KiB of UTF-8, 32768 units
  require_accepted(with(repeat("\xf0\x9f\x98\x80", 16384)));     // 32768 units
  require_refused(with(std::string(32769, 's')), "property 'S'", "32769 UTF-16 code units; the limit is 32768");
  require_refused(with(repeat("\xf0\x9f\x98\x80", 16385)), "property 'S'", "32770 UTF-16 code units");
}

TEST_CASE("validation: Binary values are at most 64 KiB", "[core][validation]") {
  az::entity e("p", "r");
  e.set("B", az::binary(65536, 1));
  require_accepted(e);
  e.set("B", az::binary(65537, 1));
  require_refused(e, "property 'B'", "65537 bytes; the limit is 65536");
}

TEST_CASE("validation: the entity is at most 1 MiB by the service's size formula", "[core][validation]") {
  // 4 + 2*len(PK+RK) + per property (8 + 2*len(name) + 4 + bytes): 15 full binaries and
  // one of 65240 bytes make exactly 1048576.
  az::entity e("p", "r");
  for (int i = 0; i < 15; ++i) e.set("B" + std::string(i < 10 ? "0" : "") + std::to_string(i), az::binary(65536));
  e.set("B15", az::binary(65240));
  require_accepted(e);
  e.set("B15", az::binary(65241));
  require_refused(e, "entity", "1048577 bytes by the service's size formula; the limit is 1 MiB");
  // Strings count two bytes per UTF-16 unit.
  az::entity s("p", "r");
  for (int i = 0; i < 16; ++i) s.set("S" + std::to_string(i + 10), std::string(32768, 'x'));
  require_refused(s, "entity", "the limit is 1 MiB");
}

TEST_CASE("validation: DateTime within 1601-01-01 .. 9999-12-31", "[core][validation]") {
  auto with = [](std::int64_t ticks) {
    az::entity e("p", "r");
    e.set("T", az::datetime(az::ticks(ticks)));
    return e;
  };
  const std::int64_t y1601 = -11644473600LL * 10000000;
  const std::int64_t end9999 = 253402300799LL * 10000000 + 9999999;
  require_accepted(with(y1601));
  require_accepted(with(end9999));
  require_refused(with(y1601 - 1), "property 'T'", "outside the service's range 1601-01-01 to 9999-12-31");
  require_refused(with(end9999 + 1), "property 'T'", "outside the service's range");
}

TEST_CASE("validation: a property name appearing twice", "[core][validation]") {
  az::entity e("p", "r");
  e.append_unchecked("Dup", 1);
  e.append_unchecked("Dup", 2);
  require_refused(e, "property 'Dup'", "appears twice");
}

TEST_CASE("validation: table names", "[core][validation]") {
  for (const char* ok : {"abc", "A12", "MixedCase", "t23456789012345678901234567890123456789012345678901234567890123"}) {
    INFO(ok);
    CHECK(az::validate_table_name(ok));
  }
  const std::pair<std::string, const char*> bad[] = {
      {"ab", "3 to 63 characters"},
      {std::string(64, 'a'), "3 to 63 characters"},
      {"1abc", "must start with a letter"},
      {"ab-c", "only letters and digits"},
      {"ab_c", "only letters and digits"},
      {"tables", "reserved"},
      {"Tables", "reserved"},
      {"a\xc3\xa9z", "only letters and digits"},
  };
  for (const auto& b : bad) {
    INFO(b.first);
    auto r = az::validate_table_name(b.first);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::invalid_argument);
    CHECK_THAT(r.error().message, Catch::Contains("table name") && Catch::Contains(b.second));
  }
  // Every operation checks the name before sending.
  auto t = std::make_shared<fake_transport>();
  auto svc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), fake_options(t)).value();
  CHECK(svc.create_table("a-b").error().code == az::errc::invalid_argument);
  CHECK(svc.delete_table("a-b").error().code == az::errc::invalid_argument);
  CHECK(svc.create_table_if_not_exists("x").error().code == az::errc::invalid_argument);
  CHECK(svc.delete_table_if_exists("x").error().code == az::errc::invalid_argument);
  auto tc = svc.table("bad(PartitionKey='x')");
  CHECK_THAT(tc.insert(az::entity("p", "r")).error().message, Catch::Contains("table name"));
  CHECK_THAT(tc.get({"p", "r"}).error().message, Catch::Contains("table name"));
  CHECK_THAT(tc.erase({"p", "r"}, az::etag::any()).error().message, Catch::Contains("table name"));
  CHECK_THAT(tc.upsert(az::entity("p", "r")).error().message, Catch::Contains("table name"));
  CHECK(t->request_count() == 0);
  CHECK_FALSE(az::table_client::from_connection_string(aztables_test::dev_connection_string(), "no", fake_options(t)));
}

TEST_CASE("validation: conditional writes need an ETag", "[core][validation]") {
  harness h;
  auto u = h.tc.update(az::entity("p", "r"));
  REQUIRE_FALSE(u);
  CHECK(u.error().code == az::errc::invalid_argument);
  CHECK_THAT(u.error().message, Catch::StartsWith("etag:") && Catch::Contains("etag::any()"));
  auto d = h.tc.erase({"p", "r"}, az::etag());
  REQUIRE_FALSE(d);
  CHECK_THAT(d.error().message, Catch::StartsWith("etag:"));
  CHECK(h.t->request_count() == 0);
}

TEST_CASE("validation: $select names", "[core][validation]") {
  harness h;
  auto r = h.tc.get({"p", "r"}, {"Good", "bad name"});
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_argument);
  CHECK_THAT(r.error().message, Catch::Contains("property 'bad name'"));
  CHECK(h.t->request_count() == 0);
}
