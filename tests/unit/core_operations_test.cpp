// The transport seam: what each operation puts on the wire (verb, URL, headers,
// body) and how it reads the answer, with a fake transport and a fixed clock.
#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/json_writer.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <algorithm>

namespace az = aztables;
using aztables_test::fake_options;
using aztables_test::fake_transport;

namespace {

const std::string base = "http://127.0.0.1:10002/devstoreaccount1/";
const std::string fixed_date = "Wed, 18 Nov 2026 11:06:40 GMT";  // fake_options' clock (1795000000 s)

struct harness {
  std::shared_ptr<fake_transport> t = std::make_shared<fake_transport>();
  az::client_options opt = [this] {
    auto o = fake_options(t);
    o.retry = az::retry_options::none();
    o.attempt_timeout = std::chrono::milliseconds(1234);
    o.connect_timeout = std::chrono::milliseconds(567);
    return o;
  }();
  az::service_client svc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), opt).value();
  az::table_client tc = svc.table("orders");

  az::http_request only() const {
    REQUIRE(t->request_count() == 1);
    return t->requests().at(0);
  }
};

void common_headers(const az::http_request& rq, const char* accept = "application/json;odata=minimalmetadata") {
  CHECK(rq.headers.get("x-ms-date") == fixed_date);
  CHECK(rq.headers.get("x-ms-version") == "2019-02-02");
  CHECK(rq.headers.get("Accept") == accept);
  CHECK(rq.headers.get("DataServiceVersion") == "3.0;NetFx");
  CHECK(rq.headers.get("MaxDataServiceVersion") == "3.0;NetFx");
  CHECK(rq.headers.get("User-Agent").substr(0, 13) == "aztables-cpp/");
  CHECK_THAT(std::string(rq.headers.get("Authorization")), Catch::StartsWith("SharedKey devstoreaccount1:"));
  CHECK(rq.headers.find("Date") == nullptr);  // only x-ms-date (Azurite prefers Date when both are sent)
  CHECK(rq.timeout == std::chrono::milliseconds(1234));
  CHECK(rq.connect_timeout == std::chrono::milliseconds(567));
}

az::entity sample() {
  az::entity e("p1", "r1");
  e.set("N", 7);
  return e;
}

}  // namespace

TEST_CASE("operations: create table", "[core][operations]") {
  harness h;
  h.t->push(204);
  REQUIRE(h.svc.create_table("orders"));
  auto rq = h.only();
  CHECK(rq.method == "POST");
  CHECK(rq.url == base + "Tables");
  CHECK(rq.body == R"({"TableName":"orders"})");
  CHECK(rq.headers.get("Content-Type") == "application/json");
  CHECK(rq.headers.get("Prefer") == "return-no-content");
  common_headers(rq);
}

TEST_CASE("operations: create_table_if_not_exists / delete_table_if_exists", "[core][operations]") {
  harness h;
  h.t->push(204);
  h.t->push(409, R"({"odata.error":{"code":"TableAlreadyExists","message":{"value":"exists"}}})",
            {{"x-ms-error-code", "TableAlreadyExists"}});
  h.t->push(409, R"({"odata.error":{"code":"TableBeingDeleted","message":{"value":"wait"}}})",
            {{"x-ms-error-code", "TableBeingDeleted"}});
  CHECK(h.svc.create_table_if_not_exists("orders").value() == true);
  CHECK(h.svc.create_table_if_not_exists("orders").value() == false);
  auto busy = h.svc.create_table_if_not_exists("orders");  // another 409 is still an error
  REQUIRE_FALSE(busy);
  CHECK(busy.error().service_code == "TableBeingDeleted");

  h.t->push(204);
  h.t->push(404, "", {{"x-ms-error-code", "ResourceNotFound"}});
  h.t->push(403, "", {{"x-ms-error-code", "AuthorizationFailure"}});
  CHECK(h.svc.delete_table_if_exists("orders").value() == true);
  CHECK(h.svc.delete_table_if_exists("orders").value() == false);
  CHECK(h.svc.delete_table_if_exists("orders").error().code == az::errc::authentication);
}

TEST_CASE("operations: delete table", "[core][operations]") {
  harness h;
  h.t->push(204);
  REQUIRE(h.svc.delete_table("orders"));
  auto rq = h.only();
  CHECK(rq.method == "DELETE");
  CHECK(rq.url == base + "Tables('orders')");
  CHECK(rq.body.empty());
  CHECK(rq.headers.find("Content-Type") == nullptr);
  common_headers(rq);
}

TEST_CASE("operations: list tables follows NextTableName", "[core][operations]") {
  harness h;
  h.t->push(200, R"({"value":[{"TableName":"a1"},{"TableName":"a2"}]})",
            {{"x-ms-continuation-nexttablename", "a3 + x/y"}});
  h.t->push(200, R"({"value":[]})", {{"x-ms-continuation-NextTableName", "a4"}});  // an empty page may continue
  h.t->push(200, R"({"value":[{"TableName":"a4"}]})");
  auto names = h.svc.list_tables("a");
  REQUIRE(names);
  CHECK(*names == std::vector<std::string>{"a1", "a2", "a4"});
  auto rqs = h.t->requests();
  REQUIRE(rqs.size() == 3);
  const std::string filter = "$filter=TableName%20ge%20%27a%27%20and%20TableName%20lt%20%27b%27";
  CHECK(rqs[0].method == "GET");
  CHECK(rqs[0].url == base + "Tables?" + filter);
  CHECK(rqs[1].url == base + "Tables?" + filter + "&NextTableName=a3%20%2B%20x%2Fy");
  CHECK(rqs[2].url == base + "Tables?" + filter + "&NextTableName=a4");
  common_headers(rqs[0], "application/json;odata=nometadata");

  SECTION("a continuation that does not advance is an error, not a loop") {
    harness g;
    g.t->push(200, R"({"value":[]})", {{"x-ms-continuation-NextTableName", "x"}});
    g.t->push(200, R"({"value":[]})", {{"x-ms-continuation-NextTableName", "x"}});
    auto r = g.svc.list_tables();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::invalid_response);
    CHECK(g.t->request_count() == 2);
  }
  SECTION("no prefix: no filter") {
    harness g;
    g.t->push(200, R"({"value":[{"TableName":"x"}]})");
    CHECK(g.svc.list_tables().value() == std::vector<std::string>{"x"});
    CHECK(g.only().url == base + "Tables");
  }
  SECTION("a page that is not a table list") {
    harness g;
    g.t->push(200, "<html/>");
    CHECK(g.svc.list_tables().error().code == az::errc::invalid_response);
  }
}

TEST_CASE("operations: insert", "[core][operations]") {
  harness h;
  h.t->push(204, "", {{"etag", "W/\"datetime'2026-11-21T13%3A26%3A15.3827306Z'\""}});
  auto r = h.tc.insert(sample());
  REQUIRE(r);
  CHECK(r->etag.str() == "W/\"datetime'2026-11-21T13%3A26%3A15.3827306Z'\"");
  auto rq = h.only();
  CHECK(rq.method == "POST");
  CHECK(rq.url == base + "orders");
  CHECK(rq.body == R"({"PartitionKey":"p1","RowKey":"r1","N":7})");
  CHECK(rq.headers.get("Content-Type") == "application/json");
  CHECK(rq.headers.get("Prefer") == "return-no-content");
  CHECK(rq.headers.find("If-Match") == nullptr);
  common_headers(rq);

  h.t->push(409, R"({"odata.error":{"code":"EntityAlreadyExists","message":{"value":"The specified entity already exists."}}})",
            {{"x-ms-error-code", "EntityAlreadyExists"}});
  auto dup = h.tc.insert(sample());
  REQUIRE_FALSE(dup);
  CHECK(dup.error().code == az::errc::conflict);
  CHECK(dup.error().service_code == "EntityAlreadyExists");
}

TEST_CASE("operations: upsert and update verbs, If-Match, keys in the URL", "[core][operations]") {
  struct tc {
    const char* name;
    const char* method;
    const char* if_match;  // null: none
  };
  const tc cases[] = {
      {"upsert merge", "MERGE", nullptr},
      {"upsert replace", "PUT", nullptr},
      {"update merge", "MERGE", "W/\"datetime'x'\""},
      {"update replace", "PUT", "W/\"datetime'x'\""},
      {"update any", "PUT", "*"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    harness h;
    h.t->push(204, "", {{"ETag", "W/\"new\""}});
    az::entity e = sample();
    e.partition_key = "O'Brien";
    e.row_key = "a b%+&\xc3\xa9";
    e.etag = az::etag("W/\"datetime'x'\"");
    az::result<az::write_result> r = az::error::make(az::errc::service, "not run");
    const std::string n = c.name;
    if (n == "upsert merge") r = h.tc.upsert(e, az::update_mode::merge);
    if (n == "upsert replace") r = h.tc.upsert(e, az::update_mode::replace);
    if (n == "update merge") r = h.tc.update(e, az::update_mode::merge);
    if (n == "update replace") r = h.tc.update(e, az::update_mode::replace);
    if (n == "update any") {
      e.etag = az::etag::any();
      r = h.tc.update(e, az::update_mode::replace);
    }
    REQUIRE(r);
    CHECK(r->etag.str() == "W/\"new\"");
    auto rq = h.only();
    CHECK(rq.method == c.method);
    CHECK(rq.url == base + "orders(PartitionKey='O%27%27Brien',RowKey='a%20b%25%2B%26%C3%A9')");
    CHECK(rq.body == "{\"PartitionKey\":\"O'Brien\",\"RowKey\":\"a b%+&\xc3\xa9\",\"N\":7}");
    CHECK(rq.headers.get("Content-Type") == "application/json");
    CHECK(rq.headers.find("Prefer") == nullptr);
    if (c.if_match) CHECK(rq.headers.get("If-Match") == c.if_match);
    else CHECK(rq.headers.find("If-Match") == nullptr);  // upserts are unconditional even with an ETag
    common_headers(rq);
  }
}

TEST_CASE("operations: update answers 412 and 404", "[core][operations]") {
  harness h;
  az::entity e = sample();
  e.etag = az::etag("W/\"stale\"");
  h.t->push(412, R"({"odata.error":{"code":"UpdateConditionNotSatisfied","message":{"value":"The update condition specified in the request was not satisfied."}}})",
            {{"x-ms-error-code", "UpdateConditionNotSatisfied"}});
  auto r = h.tc.update(e);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::precondition_failed);
  CHECK(r.error().http_status == 412);
  CHECK(r.error().service_code == "UpdateConditionNotSatisfied");
  h.t->push(404, R"({"odata.error":{"code":"ResourceNotFound","message":{"value":"The specified resource does not exist."}}})",
            {{"x-ms-error-code", "ResourceNotFound"}});
  auto nf = h.tc.update(e);
  REQUIRE_FALSE(nf);
  CHECK(nf.error().code == az::errc::not_found);  // an update of nothing is an error (unlike get)
}

TEST_CASE("operations: delete entity", "[core][operations]") {
  harness h;
  h.t->push(204);
  REQUIRE(h.tc.erase({"p1", "r1"}, az::etag("W/\"v1\"")));
  auto rq = h.only();
  CHECK(rq.method == "DELETE");
  CHECK(rq.url == base + "orders(PartitionKey='p1',RowKey='r1')");
  CHECK(rq.body.empty());
  CHECK(rq.headers.get("If-Match") == "W/\"v1\"");
  CHECK(rq.headers.find("Content-Type") == nullptr);
  common_headers(rq);
  h.t->push(404, "", {{"x-ms-error-code", "ResourceNotFound"}});
  CHECK(h.tc.erase({"p1", "r1"}, az::etag::any()).error().code == az::errc::not_found);
}

TEST_CASE("operations: point get", "[core][operations]") {
  harness h;
  h.t->push(200,
            R"({"odata.metadata":"x","odata.etag":"W/\"body\"","PartitionKey":"p1","RowKey":"r1","N":7,"Timestamp":"2026-11-21T13:26:15.3827306Z"})",
            {{"etag", "W/\"header\""}});
  auto r = h.tc.get({"p1", "r1"});
  REQUIRE(r);
  REQUIRE(*r);
  const az::entity& e = **r;
  CHECK(e == sample());
  CHECK(e.etag.str() == "W/\"header\"");
  CHECK(e.timestamp.has_value());
  auto rq = h.only();
  CHECK(rq.method == "GET");
  CHECK(rq.url == base + "orders(PartitionKey='p1',RowKey='r1')");
  CHECK(rq.body.empty());
  CHECK(rq.headers.find("If-Match") == nullptr);
  CHECK(rq.headers.find("Content-Type") == nullptr);
  common_headers(rq);

  SECTION("$select without the keys: the keys asked for are filled in") {
    harness g;
    g.t->push(200, R"({"odata.etag":"W/\"e\"","N":7})");
    auto s = g.tc.get({"p1", "r1"}, {"N"});
    REQUIRE(s);
    REQUIRE(*s);
    CHECK((*s)->partition_key == "p1");
    CHECK((*s)->row_key == "r1");
    CHECK((*s)->etag.str() == "W/\"e\"");
    CHECK(g.only().url == base + "orders(PartitionKey='p1',RowKey='r1')?$select=N");
  }
  SECTION("a missing entity is an empty optional, not an error") {
    harness g;
    g.t->push(404,
              R"({"odata.error":{"code":"ResourceNotFound","message":{"lang":"en-US","value":"The specified resource does not exist.\nRequestId:5a59"}}})",
              {{"x-ms-error-code", "ResourceNotFound"}});
    auto m = g.tc.get({"p1", "r1"});
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
  }
  SECTION("a missing table is an error") {
    harness g;
    g.t->push(404, R"({"odata.error":{"code":"TableNotFound","message":{"value":"The table specified does not exist."}}})",
              {{"x-ms-error-code", "TableNotFound"}});
    auto m = g.tc.get({"p1", "r1"});
    REQUIRE_FALSE(m);
    CHECK(m.error().code == az::errc::not_found);
    CHECK(m.error().service_code == "TableNotFound");
  }
  SECTION("an unreadable body is invalid_response") {
    harness g;
    g.t->push(200, "not json");
    CHECK(g.tc.get({"p1", "r1"}).error().code == az::errc::invalid_response);
  }
}

TEST_CASE("operations: api_version and user agent options", "[core][operations]") {
  harness h;
  h.opt.api_version = "2020-12-06";
  h.opt.user_agent_suffix = "myapp/1.2";
  auto svc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), h.opt).value();
  h.t->push(204);
  REQUIRE(svc.create_table("orders"));
  auto rq = h.only();
  CHECK(rq.headers.get("x-ms-version") == "2020-12-06");
  CHECK_THAT(std::string(rq.headers.get("User-Agent")), Catch::EndsWith(" myapp/1.2"));
}

TEST_CASE("operations: a SAS credential goes in the query, not a header", "[core][operations]") {
  auto t = std::make_shared<fake_transport>();
  t->push(204);
  auto tc = az::table_client::create("https://acct.table.core.windows.net", az::sas_credential{"?sv=2019-02-02&sig=abc%3D"},
                                     "orders", fake_options(t))
                .value();
  REQUIRE(tc.insert(sample()));
  auto rq = t->requests().at(0);
  CHECK(rq.url == "https://acct.table.core.windows.net/orders?sv=2019-02-02&sig=abc%3D");
  CHECK(rq.headers.find("Authorization") == nullptr);
}

TEST_CASE("operations: copies of a client share one core", "[core][operations]") {
  harness h;
  az::table_client copy = h.tc;
  CHECK(copy.core() == h.tc.core());
  CHECK(h.svc.table("other").core() == h.tc.core());
  CHECK(h.tc.name() == "orders");
  CHECK(h.svc.endpoint() == "http://127.0.0.1:10002/devstoreaccount1");
}

TEST_CASE("operations: large non-ASCII bodies go to emulator endpoints as pure ASCII", "[core][operations][utf8]") {
  // Azurite corrupts UTF-8 split across its 64 KiB reads (AZURITE-NOTES §8).
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "\xc3\xa9";  // 40 000 bytes
  az::entity e("p\xc3\xa9", "r");
  e.set("A", big).set("B", big).set("Emoji", "\xf0\x9f\x98\x80").set("\xc3\xbc" "ber", 1);

  auto body_sent_to = [&](const std::string& endpoint, const az::entity& ent) {
    auto t = std::make_shared<fake_transport>();
    t->push(204);
    auto tc = az::table_client::create(endpoint, az::shared_key_credential("devstoreaccount1", std::string(az::development_account_key)),
                                       "orders", fake_options(t))
                  .value();
    REQUIRE(tc.upsert(ent));
    return t->requests().at(0).body;
  };
  const std::string emulator = body_sent_to("http://127.0.0.1:10002/devstoreaccount1", e);
  CHECK(std::all_of(emulator.begin(), emulator.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  CHECK_THAT(emulator, Catch::StartsWith(R"({"PartitionKey":"p\u00e9","RowKey":"r","A":"\u00e9\u00e9)"));
  CHECK_THAT(emulator, Catch::Contains(R"("Emoji":"\ud83d\ude00")"));
  CHECK_THAT(emulator, Catch::Contains(R"("\u00fcber":1)"));
  std::string copy = emulator;
  auto back = az::detail::parse_entity(copy);
  REQUIRE(back);
  CHECK(*back == e);  // the same JSON value

  // The real service (host-style) gets UTF-8 as is; so do small bodies.
  const std::string service = body_sent_to("https://acct.table.core.windows.net", e);
  CHECK(service.find(big) != std::string::npos);
  az::entity small("p", "r");
  small.set("S", "h\xc3\xa9llo");
  CHECK(body_sent_to("http://127.0.0.1:10002/devstoreaccount1", small) ==
        "{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"S\":\"h\xc3\xa9llo\"}");
}

TEST_CASE("operations: ascii_json escapes exactly the non-ASCII characters", "[core][operations][utf8]") {
  std::string out = "untouched";
  CHECK_FALSE(az::detail::ascii_json(R"({"a":"plain \"x\" \u00e9"})", out));
  CHECK(out == "untouched");
  REQUIRE(az::detail::ascii_json("{\"\xc3\xa9\":\"\xe2\x80\xa8 \xe4\xb8\xad \xf4\x8f\xbf\xbf\"}", out));
  CHECK(out == R"({"\u00e9":"\u2028 \u4e2d \udbff\udfff"})");
}
