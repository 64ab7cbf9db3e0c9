// Stored access policies: the XML both ways, the checks made before sending
// (at most 5, ids), and the wire requests (GET/PUT ?comp=acl, signed).
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/access_policy.hpp>
#include <aztables/detail/acl_xml.hpp>

using namespace std::chrono;

namespace {
system_clock::time_point utc(int y, unsigned m, unsigned d, int hh = 0) {
  return system_clock::time_point(seconds(aztables::detail::days_from_civil(y, m, d) * 86400 + hh * 3600));
}
}  // namespace

TEST_CASE("access policies: XML written as the REST reference shows", "[acl]") {
  aztables::signed_identifier a{"read&write", {}};
  a.policy.starts_on = utc(2026, 1, 1);
  a.policy.expires_on = utc(2026, 2, 1, 12);
  a.policy.permissions = aztables::table_sas_permissions::parse("ru").value();
  aztables::signed_identifier b{"only-id", {}};
  CHECK(aztables::detail::write_signed_identifiers({a, b}) ==
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers>"
        "<SignedIdentifier><Id>read&amp;write</Id><AccessPolicy><Start>2026-01-01T00:00:00.0000000Z</Start>"
        "<Expiry>2026-02-01T12:00:00.0000000Z</Expiry><Permission>ru</Permission></AccessPolicy></SignedIdentifier>"
        "<SignedIdentifier><Id>only-id</Id><AccessPolicy></AccessPolicy></SignedIdentifier>"
        "</SignedIdentifiers>");
  CHECK(aztables::detail::write_signed_identifiers({}) ==
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers></SignedIdentifiers>");
}

TEST_CASE("access policies: XML read back, in the shapes servers send", "[acl]") {
  const std::string doc = R"(<?xml version="1.0" encoding="utf-8"?>
<SignedIdentifiers xmlns:x="urn:ignored">
  <!-- a comment -->
  <SignedIdentifier>
    <Id>p&#49;&amp;&#x32;</Id>
    <AccessPolicy>
      <Start>2026-01-01T00:00:00.0000000Z</Start>
      <Expiry>2026-02-01T12:00:00Z</Expiry>
      <Permission>raud</Permission>
      <Unknown><Nested>x</Nested></Unknown>
    </AccessPolicy>
  </SignedIdentifier>
  <SignedIdentifier><Id>empty</Id><AccessPolicy><Start/><Expiry></Expiry><Permission /></AccessPolicy></SignedIdentifier>
  <SignedIdentifier><Id>bare</Id></SignedIdentifier>
</SignedIdentifiers>
)";
  auto r = aztables::detail::parse_signed_identifiers(doc);
  REQUIRE(r);
  REQUIRE(r->size() == 3);
  CHECK((*r)[0].id == "p1&2");
  CHECK((*r)[0].policy.starts_on == utc(2026, 1, 1));
  CHECK((*r)[0].policy.expires_on == utc(2026, 2, 1, 12));
  CHECK((*r)[0].policy.permissions.str() == "raud");
  CHECK((*r)[1].id == "empty");
  CHECK_FALSE((*r)[1].policy.starts_on);
  CHECK_FALSE((*r)[1].policy.permissions.any());
  CHECK((*r)[2].id == "bare");
  CHECK(aztables::detail::parse_signed_identifiers("")->empty());
  CHECK(aztables::detail::parse_signed_identifiers("<?xml version=\"1.0\"?><SignedIdentifiers/>")->empty());
  CHECK(aztables::detail::parse_signed_identifiers("<SignedIdentifiers></SignedIdentifiers>")->empty());

  // Round trip.
  aztables::signed_identifier a{"x", {utc(2025, 5, 5), utc(2025, 6, 6), aztables::table_sas_permissions::all()}};
  auto back = aztables::detail::parse_signed_identifiers(aztables::detail::write_signed_identifiers({a})).value();
  REQUIRE(back.size() == 1);
  CHECK(back[0] == a);
}

TEST_CASE("access policies: malformed XML is invalid_response", "[acl]") {
  for (const char* bad : {"{}", "<Other/>", "<SignedIdentifiers>", "<SignedIdentifiers><SignedIdentifier>",
                          "<SignedIdentifiers><SignedIdentifier><AccessPolicy/></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers><SignedIdentifier><Id>a</Id><AccessPolicy><Permission>rw</Permission>"
                          "</AccessPolicy></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers><SignedIdentifier><Id>a</Id><AccessPolicy><Start>soon</Start>"
                          "</AccessPolicy></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers><SignedIdentifier><Id>a</Id><AccessPolicy><Start>9999-01-01T00:00:00Z"
                          "</Start></AccessPolicy></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers><SignedIdentifier><Id>a&bogus;</Id></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers><SignedIdentifier><Id>&#0;</Id></SignedIdentifier></SignedIdentifiers>",
                          "<SignedIdentifiers></SignedIdentifiers>trailing", "<SignedIdentifiers><x></y></SignedIdentifiers>"}) {
    INFO(bad);
    auto r = aztables::detail::parse_signed_identifiers(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_response);
  }
}

TEST_CASE("access policies: checked before sending, then GET/PUT ?comp=acl signed", "[acl]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  auto svc = aztables::service_client::from_connection_string(aztables_test::dev_connection_string(),
                                                              aztables_test::fake_options(t))
                 .value();
  auto table = svc.table("orders");

  std::vector<aztables::signed_identifier> six;
  for (int i = 0; i < 6; ++i) six.push_back({"p" + std::to_string(i), {}});
  auto r = aztables::set_access_policies(table, six);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == aztables::errc::invalid_argument);
  CHECK(r.error().message.find("at most 5") != std::string::npos);
  auto expect_bad = [&](std::vector<aztables::signed_identifier> ids, const std::string& needle) {
    auto res = aztables::set_access_policies(table, ids);
    REQUIRE_FALSE(res);
    CHECK(res.error().code == aztables::errc::invalid_argument);
    CHECK(res.error().message.find(needle) != std::string::npos);
  };
  expect_bad({{"", {}}}, "is empty");
  expect_bad({{std::string(65, 'x'), {}}}, "longer than 64");
  expect_bad({{"a", {}}, {"a", {}}}, "appears twice");
  expect_bad({{"a\n", {}}}, "control character");
  expect_bad({{"a", {utc(2026, 2, 1), utc(2026, 1, 1), {}}}}, "must be after starts_on");
  CHECK(t->request_count() == 0);  // nothing was sent

  std::vector<aztables::signed_identifier> five;
  for (int i = 0; i < 5; ++i) five.push_back({"p" + std::to_string(i), {std::nullopt, utc(2030, 1, 1), {true}}});
  t->push(204);
  REQUIRE(aztables::set_access_policies(table, five));
  auto put = t->requests().at(0);
  CHECK(put.method == "PUT");
  CHECK(put.url == "http://127.0.0.1:10002/devstoreaccount1/orders?comp=acl");
  CHECK(put.headers.get("Content-Type") == "application/xml");
  CHECK(put.body == aztables::detail::write_signed_identifiers(five));
  CHECK(put.headers.get("Authorization").rfind("SharedKey devstoreaccount1:", 0) == 0);

  t->push(200, aztables::detail::write_signed_identifiers(five), {{"Content-Type", "application/xml"}});
  auto got = aztables::get_access_policies(table);
  REQUIRE(got);
  CHECK(*got == five);
  auto get = t->requests().at(1);
  CHECK(get.method == "GET");
  CHECK(get.url == "http://127.0.0.1:10002/devstoreaccount1/orders?comp=acl");

  t->push(404, R"({"odata.error":{"code":"TableNotFound","message":{"lang":"en-US","value":"nope"}}})",
          {{"x-ms-error-code", "TableNotFound"}});
  auto missing = aztables::get_access_policies(table);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == aztables::errc::not_found);
}
