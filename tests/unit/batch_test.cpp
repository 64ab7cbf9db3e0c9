// Unit tests for entity group transactions: exact request bytes for every
// action kind, the checks made before sending, and reading every response
// shape Azurite and the service produce.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/batch.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/multipart.hpp>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace {

using aztables_test::fake_transport;

/// Lines joined with CRLF (a trailing CRLF after the last one).
std::string lines(std::initializer_list<std::string_view> ls) {
  std::string s;
  for (auto l : ls) {
    s.append(l.data(), l.size());
    s += "\r\n";
  }
  return s;
}

/// Sequential fixed GUIDs: ...0001, ...0002, ...
std::function<aztables::guid()> fixed_guids() {
  auto n = std::make_shared<int>(0);
  return [n] {
    std::string s = "00000000-0000-4000-8000-00000000000" + std::to_string(++*n);
    return *aztables::guid::parse(s);
  };
}

struct fixture {
  std::shared_ptr<fake_transport> t = std::make_shared<fake_transport>();
  aztables::service_client svc;
  aztables::table_client tc;
  explicit fixture(const std::string& cs = aztables_test::dev_connection_string(), int max_retries = 0)
      : svc(make(cs, t, max_retries)), tc(svc.table("orders")) {}
  static aztables::service_client make(const std::string& cs, std::shared_ptr<fake_transport> t, int max_retries) {
    auto o = aztables_test::fake_options(std::move(t));
    o.retry.max_retries = max_retries;
    return aztables::service_client::from_connection_string(cs, o).value();
  }
  aztables::batch make_batch() { return aztables::batch(tc, aztables::batch_options{fixed_guids()}); }
};

const std::string B = "batch_00000000-0000-4000-8000-000000000001";
const std::string C = "changeset_00000000-0000-4000-8000-000000000002";
const std::string base = "http://127.0.0.1:10002/devstoreaccount1/orders";

std::string head() { return lines({"--" + B, "Content-Type: multipart/mixed; boundary=" + C, ""}); }
std::string tail() { return lines({"--" + C + "--", "", "--" + B + "--"}); }
std::string mime() { return lines({"--" + C, "Content-Type: application/http", "Content-Transfer-Encoding: binary", ""}); }

/// A 202 response in Azurite's shape with one 2xx part per (status, etag).
aztables::http_response ok_response(std::initializer_list<std::pair<int, std::string>> parts,
                                    const std::string& suffix = "0001") {
  std::string cs = "changesetresponse_" + suffix;
  std::string body = lines({"--batchresponse_" + suffix, "Content-Type: multipart/mixed; boundary=" + cs, ""});
  for (auto& p : parts) {
    body += lines({"--" + cs, "Content-Type: application/http", "Content-Transfer-Encoding: binary", "",
                   "HTTP/1.1 " + std::to_string(p.first) + (p.first == 201 ? " Created" : " No Content"),
                   "X-Content-Type-Options: nosniff", "Cache-Control: no-cache", "DataServiceVersion: 3.0;"});
    if (!p.second.empty()) body += lines({"ETag: " + p.second});
    body += lines({"", ""});
  }
  body += lines({"--" + cs + "--", "--batchresponse_" + suffix + "--"});
  aztables::http_response r;
  r.status = 202;
  r.headers.add("content-type", "multipart/mixed; boundary=batchresponse_" + suffix);
  r.headers.add("x-ms-request-id", "req-1");
  r.body = body;
  return r;
}

void push(fake_transport& t, aztables::http_response r) {
  t.push([r](const aztables::http_request&) -> aztables::result<aztables::http_response> { return r; });
}

/// A 202 whose changeset holds one error part (Azurite's shape, transcript 10).
aztables::http_response error_response(const std::string& status_line, const std::string& json,
                                       const std::string& content_id = "") {
  std::string body = lines({"--batchresponse_x", "Content-Type: multipart/mixed; boundary=changesetresponse_y", "",
                            "--changesetresponse_y", "Content-Type: application/http",
                            "Content-Transfer-Encoding: binary", "", status_line});
  if (!content_id.empty()) body += lines({"Content-ID: " + content_id});
  body += lines({"DataServiceVersion: 3.0;", "Content-Type: application/json;odata=minimalmetadata;charset=utf-8", "",
                 json, "--changesetresponse_y--", "--batchresponse_x--"});
  aztables::http_response r;
  r.status = 202;
  r.headers.add("Content-Type", "multipart/mixed; boundary=batchresponse_x");
  r.headers.add("x-ms-request-id", "req-2");
  r.body = body;
  return r;
}

aztables::entity sample(const std::string& rk) {
  aztables::entity e("p", rk);
  e.set("N", 1);
  return e;
}

}  // namespace

TEST_CASE("batch: the exact bytes of an insert", "[batch]") {
  fixture f;
  push(*f.t, ok_response({{204, "W/\"1\""}}));
  auto b = f.make_batch();
  b.insert(sample("r1"));
  auto r = b.submit();
  REQUIRE(r);
  auto rq = f.t->requests().at(0);
  CHECK(rq.method == "POST");
  CHECK(rq.url == "http://127.0.0.1:10002/devstoreaccount1/$batch");
  CHECK(*rq.headers.find("Content-Type") == "multipart/mixed; boundary=" + B);
  CHECK(*rq.headers.find("Accept") == "application/json;odata=minimalmetadata");
  const std::string expected = head() + mime() +
                               lines({"POST " + base + " HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
                                      "Content-Type: application/json", "Prefer: return-no-content",
                                      "DataServiceVersion: 3.0;", "", R"({"PartitionKey":"p","RowKey":"r1","N":1})"}) +
                               tail();
  CHECK(rq.body == expected);
  REQUIRE(r->actions.size() == 1);
  CHECK(r->actions[0].status == 204);
  CHECK(r->actions[0].etag.str() == "W/\"1\"");
  CHECK(r->actions[0].kind == aztables::batch_action_kind::insert);
  CHECK(r->request_id == "req-1");
}

TEST_CASE("batch: the exact bytes of all six action kinds, keys escaped", "[batch]") {
  fixture f;
  push(*f.t, ok_response({{204, "W/\"1\""}, {204, "W/\"2\""}, {204, "W/\"3\""}, {204, "W/\"4\""}, {204, "W/\"5\""},
                          {204, ""}}));
  auto b = f.make_batch();
  aztables::entity u("p", "o'brien x");
  u.set("S", "v");
  u.etag = aztables::etag("W/\"datetime'2026-11-21T13%3A19%3A43.7721195Z'\"");
  aztables::entity any("p", "r6");
  any.set("B", true);
  any.etag = aztables::etag::any();
  b.insert(sample("r1"))
      .upsert(sample("r2"))
      .upsert(sample("r3"), aztables::update_mode::replace)
      .update(u)
      .update(any, aztables::update_mode::replace)
      .erase({"p", "r7"}, aztables::etag("W/\"e\""));
  auto r = b.submit();
  REQUIRE(r);
  const std::string entity_url = base + "(PartitionKey='p',RowKey='";
  const std::string expected =
      head() + mime() +
      lines({"POST " + base + " HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "Prefer: return-no-content", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r1","N":1})"}) +
      mime() +
      lines({"MERGE " + entity_url + "r2') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r2","N":1})"}) +
      mime() +
      lines({"PUT " + entity_url + "r3') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r3","N":1})"}) +
      mime() +
      lines({"MERGE " + entity_url + "o%27%27brien%20x') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "If-Match: W/\"datetime'2026-11-21T13%3A19%3A43.7721195Z'\"",
             "DataServiceVersion: 3.0;", "", R"({"PartitionKey":"p","RowKey":"o'brien x","S":"v"})"}) +
      mime() +
      lines({"PUT " + entity_url + "r6') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "If-Match: *", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r6","B":true})"}) +
      mime() +
      lines({"DELETE " + entity_url + "r7') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "If-Match: W/\"e\"", "DataServiceVersion: 3.0;", "", ""}) +
      tail();
  CHECK(f.t->requests().at(0).body == expected);
  REQUIRE(r->actions.size() == 6);
  CHECK(r->actions[3].etag.str() == "W/\"4\"");
  CHECK(r->actions[5].kind == aztables::batch_action_kind::erase);
  CHECK(r->actions[5].etag.empty());
}

TEST_CASE("batch: the signature covers /account/$batch", "[batch]") {
  fixture f;
  push(*f.t, ok_response({{204, "W/\"1\""}}));
  auto b = f.make_batch();
  b.insert(sample("r1"));
  REQUIRE(b.submit());
  // The same request signed by hand: SharedKey over VERB, Content-Type, date
  // and the canonical resource with the account twice (path-style).
  auto rq = f.t->requests().at(0);
  std::string to_sign = "POST\n\nmultipart/mixed; boundary=" + B + "\n" + *rq.headers.find("x-ms-date") +
                        "\n/devstoreaccount1/devstoreaccount1/$batch";
  aztables::binary key;
  REQUIRE(aztables::detail::base64_decode_to(aztables::development_account_key, key));
  aztables::detail::hmac_sha256 mac(key);
  auto sig = mac.sign(to_sign);
  std::string expected = "SharedKey devstoreaccount1:";
  aztables::detail::base64_encode_to(expected, sig.data(), sig.size());
  CHECK(*rq.headers.find("Authorization") == expected);
}

TEST_CASE("batch: Cosmos endpoints send merges as POST with X-HTTP-Method: MERGE", "[batch]") {
  fixture f("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" +
            std::string(aztables::development_account_key) + ";TableEndpoint=https://acct.table.cosmos.azure.com:443/;");
  push(*f.t, ok_response({{204, "W/\"1\""}, {204, "W/\"2\""}, {204, "W/\"3\""}}));
  auto b = f.make_batch();
  aztables::entity u = sample("r2");
  u.etag = aztables::etag::any();
  b.upsert(sample("r1")).update(u).upsert(sample("r3"), aztables::update_mode::replace);
  REQUIRE(b.submit());
  auto rq = f.t->requests().at(0);
  CHECK(rq.url == "https://acct.table.cosmos.azure.com:443/$batch");
  const std::string cbase = "https://acct.table.cosmos.azure.com:443/orders(PartitionKey='p',RowKey='";
  const std::string expected =
      head() + mime() +
      lines({"POST " + cbase + "r1') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "X-HTTP-Method: MERGE", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r1","N":1})"}) +
      mime() +
      lines({"POST " + cbase + "r2') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "If-Match: *", "X-HTTP-Method: MERGE", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r2","N":1})"}) +
      mime() +
      lines({"PUT " + cbase + "r3') HTTP/1.1", "Accept: application/json;odata=minimalmetadata",
             "Content-Type: application/json", "DataServiceVersion: 3.0;", "",
             R"({"PartitionKey":"p","RowKey":"r3","N":1})"}) +
      tail();
  CHECK(rq.body == expected);
}

TEST_CASE("batch: random boundaries are batch_<guid> and changeset_<guid>", "[batch]") {
  fixture f;
  push(*f.t, ok_response({{204, "W/\"1\""}}));
  push(*f.t, ok_response({{204, "W/\"1\""}}));
  aztables::batch b(f.tc);
  b.insert(sample("r1"));
  REQUIRE(b.submit());
  REQUIRE(b.submit());
  auto rqs = f.t->requests();
  std::string ct0 = *rqs[0].headers.find("Content-Type"), ct1 = *rqs[1].headers.find("Content-Type");
  REQUIRE(ct0.rfind("multipart/mixed; boundary=batch_", 0) == 0);
  CHECK(ct0 != ct1);
  std::string id = ct0.substr(ct0.find("batch_") + 6);
  CHECK(aztables::guid::parse(id));
  CHECK(rqs[0].body.find("boundary=changeset_") != std::string::npos);
}

TEST_CASE("batch: every rule is checked before sending, naming the action", "[batch]") {
  fixture f;
  auto expect_invalid = [&](const aztables::batch& b, std::optional<std::size_t> index, const std::string& words) {
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::invalid_argument);
    CHECK(r.error().action_index == index);
    INFO(r.error().message);
    CHECK(r.error().message.find(words) != std::string::npos);
    auto v = b.validate();
    REQUIRE(!v);
    CHECK(v.error().message == r.error().message);
  };
  SECTION("empty") { expect_invalid(f.make_batch(), std::nullopt, "has no actions"); }
  SECTION("more than 100 actions") {
    auto b = f.make_batch();
    for (int i = 0; i < 101; ++i) b.insert(sample("r" + std::to_string(i)));
    expect_invalid(b, 100, "at most 100");
  }
  SECTION("exactly 100 actions pass") {
    auto b = f.make_batch();
    for (int i = 0; i < 100; ++i) b.insert(sample("r" + std::to_string(i)));
    CHECK(b.validate());
  }
  SECTION("two partitions") {
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2")).insert(aztables::entity("q", "r3"));
    expect_invalid(b, 2, "must share one PartitionKey");
  }
  SECTION("a RowKey twice") {
    auto b = f.make_batch();
    b.insert(sample("r1")).upsert(sample("r2")).erase({"p", "r1"}, aztables::etag::any());
    expect_invalid(b, 2, "'r1' is already used by action 0");
  }
  SECTION("a RowKey twice among 100 actions: each earlier key is found") {
    // Every pair (j, 99) with action 99 repeating action j's key: the check
    // must find the first use wherever it sits in the table of seen keys.
    for (int j = 0; j < 99; ++j) {
      auto b = f.make_batch();
      for (int i = 0; i < 99; ++i) b.insert(sample("r" + std::to_string(i * 7919)));
      b.upsert(sample("r" + std::to_string(j * 7919)));
      expect_invalid(b, 99, "'r" + std::to_string(j * 7919) + "' is already used by action " + std::to_string(j) + ":");
    }
  }
  SECTION("an invalid entity") {
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(aztables::entity("p", "a/b"));
    expect_invalid(b, 1, "action 1 (insert) RowKey: contains U+002F '/'");
  }
  SECTION("an invalid property") {
    auto b = f.make_batch();
    aztables::entity e = sample("r2");
    e.set("1bad", 1);
    b.insert(sample("r1")).upsert(e);
    expect_invalid(b, 1, "property '1bad'");
  }
  SECTION("an invalid key in a delete") {
    auto b = f.make_batch();
    b.insert(sample("r1")).erase({"p", "x#y"}, aztables::etag::any());
    expect_invalid(b, 1, "action 1 (erase) RowKey");
  }
  SECTION("an update without an ETag") {
    auto b = f.make_batch();
    b.insert(sample("r1")).update(sample("r2"), aztables::update_mode::replace);
    expect_invalid(b, 1, "action 1 (update_replace) etag: update needs");
  }
  SECTION("a delete without an ETag") {
    auto b = f.make_batch();
    b.erase({"p", "r1"}, aztables::etag());
    expect_invalid(b, 0, "delete needs");
  }
  SECTION("a body over 4 MiB") {
    auto b = f.make_batch();
    for (int i = 0; i < 5; ++i) {
      aztables::entity e("p", "r" + std::to_string(i));
      for (int k = 0; k < 15; ++k) e.set("B" + std::to_string(k), aztables::binary(60000, std::uint8_t(k)));
      b.insert(std::move(e));
    }
    // Each entity is ~1.2 MB of base64 JSON: the fourth does not fit.
    expect_invalid(b, 3, "4 MiB");
  }
  SECTION("a bad table name") {
    aztables::batch b(f.svc.table("no-dashes"));
    b.insert(sample("r1"));
    expect_invalid(b, std::nullopt, "table name");
  }
  CHECK(f.t->request_count() == 0);
}

TEST_CASE("batch: the 4 MiB check counts the exact body", "[batch]") {
  // Four entities of ~1 MB (binary) and a fifth filled with strings: a body of
  // exactly 4 MiB is sent, one byte more is refused before sending.
  fixture f;
  f.t->set_default([](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    r.status = 500;
    return r;
  });
  auto make = [&](int full, std::size_t last) {
    auto b = f.make_batch();
    for (int i = 0; i < 4; ++i) {
      aztables::entity e("p", "r" + std::to_string(i));
      for (int k = 0; k < 15; ++k) e.set("B" + std::to_string(k), aztables::binary(50000, std::uint8_t(k)));
      b.insert(std::move(e));
    }
    aztables::entity filler("p", "r4");
    for (int k = 0; k < full; ++k) filler.set("S" + std::to_string(k), std::string(32000, 'x'));
    filler.set("T", std::string(last, 'y'));
    b.insert(std::move(filler));
    return b;
  };
  auto sent_size = [&](const aztables::batch& b) -> std::size_t {
    auto before = f.t->request_count();
    (void)b.submit();
    return f.t->request_count() == before ? 0 : f.t->requests().back().body.size();
  };
  const std::size_t s0 = sent_size(make(0, 0));
  REQUIRE(s0 > 0);
  REQUIRE(s0 < aztables::max_batch_body_bytes);
  const int full = static_cast<int>((aztables::max_batch_body_bytes - s0) / 32100);
  const std::size_t s1 = sent_size(make(full, 0));
  REQUIRE(s1 > 0);
  const std::size_t last = aztables::max_batch_body_bytes - s1;
  REQUIRE(last <= 32768);
  CHECK(sent_size(make(full, last)) == aztables::max_batch_body_bytes);
  const auto before = f.t->request_count();
  auto r = make(full, last + 1).submit();
  REQUIRE(!r);
  CHECK(r.error().code == aztables::errc::invalid_argument);
  CHECK(r.error().action_index == std::size_t{4});
  CHECK(f.t->request_count() == before);
}

TEST_CASE("batch: a failed action is an error with its index, code and message", "[batch]") {
  fixture f;
  SECTION("Azurite's 409 part (Content-ID and the index prefix)") {
    push(*f.t, error_response("HTTP/1.1 409 Conflict",
                              R"({"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"1:The specified entity already exists.\nRequestId:5966646e\nTime:2026-11-21T13:26:16.262Z"}}})",
                              "2"));
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2")).insert(sample("r3"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::conflict);
    CHECK(r.error().http_status == 409);
    CHECK(r.error().service_code == "EntityAlreadyExists");
    CHECK(r.error().action_index == std::size_t{1});
    CHECK(r.error().message == "The specified entity already exists.");
    CHECK(r.error().request_id == "req-2");
    CHECK(r.error().to_string().find("[action 1]") != std::string::npos);
  }
  SECTION("the service's shape: no Content-ID, streaming content type") {
    push(*f.t, error_response("HTTP/1.1 404 Not Found",
                              R"({"odata.error":{"code":"ResourceNotFound","message":{"lang":"en-US","value":"2:The specified resource does not exist.\nRequestId:abc\nTime:2026-01-01T00:00:00.0000000Z"}}})"));
    auto b = f.make_batch();
    aztables::entity u = sample("r3");
    u.etag = aztables::etag::any();
    b.insert(sample("r1")).insert(sample("r2")).update(u);
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::not_found);
    CHECK(r.error().action_index == std::size_t{2});
    CHECK(r.error().message == "The specified resource does not exist.");
  }
  SECTION("only a Content-ID") {
    push(*f.t, error_response("HTTP/1.1 412 Precondition Failed",
                              R"({"odata.error":{"code":"UpdateConditionNotSatisfied","message":{"lang":"en-US","value":"The update condition specified in the request was not satisfied."}}})",
                              "3"));
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2")).insert(sample("r3"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::precondition_failed);
    CHECK(r.error().action_index == std::size_t{2});
  }
  SECTION("an index out of range is not reported") {
    push(*f.t, error_response("HTTP/1.1 400 Bad Request",
                              R"({"odata.error":{"code":"InvalidInput","message":{"lang":"en-US","value":"7:Bad."}}})"));
    auto b = f.make_batch();
    b.insert(sample("r1"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::bad_request);
    CHECK(!r.error().action_index);
  }
  SECTION("Azurite's malformed part for 101 operations (transcript 12)") {
    aztables::http_response resp;
    resp.status = 202;
    resp.headers.add("content-type", "multipart/mixed; boundary=batchresponse_6f1b2c3d-0007");
    resp.body = lines({"--batchresponse_6f1b2c3d-0007",
                       "Content-Type: multipart/mixed; boundary=changesetresponse_6f1b2c3d-0008", "",
                       "--changesetresponse_6f1b2c3d-0008", "Content-Type: application/http",
                       "Content-Transfer-Encoding: binary", "", "changesetresponse_6f1b2c3d-0008",
                       "HTTP/1.1 400 Bad Request", "X-Content-Type-Options: nosniff", "DataServiceVersion: 3.0;",
                       "Content-Type: application/json;odata=minimalmetadata;charset=utf-8", "",
                       R"({"odata.error":{"code":"InvalidInput","message":{"lang":"en-US","value":"0:The batch request operation exceeds the maximum 100 changes per change set.\nRequestId:34798de3\nTime:2026-11-21T13:26:16.4890000Z"}}})",
                       "--changesetresponse_6f1b2c3d-0008--", "--batchresponse_6f1b2c3d-0007--"});
    push(*f.t, resp);
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::bad_request);
    CHECK(r.error().service_code == "InvalidInput");
    CHECK(r.error().action_index == std::size_t{0});
    CHECK(r.error().message == "The batch request operation exceeds the maximum 100 changes per change set.");
  }
  SECTION("a plain 413") {
    f.t->push(413,
              R"({"odata.error":{"code":"RequestBodyTooLarge","message":{"lang":"en-US","value":"The request body is too large and exceeds the maximum permissible limit.\nRequestId:x\nTime:y"}}})",
              {{"x-ms-error-code", "RequestBodyTooLarge"}});
    auto b = f.make_batch();
    b.insert(sample("r1"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().http_status == 413);
    CHECK(r.error().service_code == "RequestBodyTooLarge");
    CHECK(!r.error().action_index);
  }
  SECTION("an outer 400 whose message names the action") {
    f.t->push(400,
              R"({"odata.error":{"code":"CommandsInBatchActOnDifferentPartitions","message":{"lang":"en-US","value":"1:All commands in a change set must operate on same entity group.\nRequestId:x"}}})");
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().service_code == "CommandsInBatchActOnDifferentPartitions");
    CHECK(r.error().action_index == std::size_t{1});
    CHECK(r.error().message == "All commands in a change set must operate on same entity group.");
  }
  SECTION("a 500 with an empty body") {
    f.t->push(500, "");
    auto b = f.make_batch();
    b.insert(sample("r1"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::service);
    CHECK(r.error().http_status == 500);
  }
  SECTION("a 202 that is not multipart") {
    f.t->push(202, "{}", {{"Content-Type", "application/json"}});
    auto b = f.make_batch();
    b.insert(sample("r1"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::invalid_response);
  }
  SECTION("a 202 with fewer results than actions") {
    push(*f.t, ok_response({{204, "W/\"1\""}}));
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::invalid_response);
    CHECK(r.error().message.find("1 results for 2 actions") != std::string::npos);
  }
  SECTION("a truncated 202") {
    auto resp = ok_response({{204, "W/\"1\""}, {204, "W/\"2\""}});
    resp.body.resize(resp.body.size() - 40);
    push(*f.t, resp);
    auto b = f.make_batch();
    b.insert(sample("r1")).insert(sample("r2"));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::invalid_response);
  }
}

TEST_CASE("batch: Azurite's success response (transcript 9), 201 and 204 parts", "[batch]") {
  fixture f;
  aztables::http_response resp;
  resp.status = 202;
  resp.headers.add("content-type", "multipart/mixed; boundary=batchresponse_6f1b2c3d-0001");
  std::string body = lines({"--batchresponse_6f1b2c3d-0001",
                            "Content-Type: multipart/mixed; boundary=changesetresponse_6f1b2c3d-0002", ""});
  const char* statuses[] = {"204 No Content", "201 Created", "204 No Content"};
  const char* tags[] = {"1875358", "1875447", "1875452"};
  for (int i = 0; i < 3; ++i) {
    std::string rk = std::to_string(i + 1);
    body += lines({"--changesetresponse_6f1b2c3d-0002", "Content-Type: application/http",
                   "Content-Transfer-Encoding: binary", "", std::string("HTTP/1.1 ") + statuses[i],
                   "X-Content-Type-Options: nosniff", "Cache-Control: no-cache", "DataServiceVersion: 3.0;",
                   "Location: http://127.0.0.1:10103/devstoreaccount1/probe(PartitionKey='b',RowKey='" + rk + "')",
                   "DataServiceId: http://127.0.0.1:10103/devstoreaccount1/probe(PartitionKey='b',RowKey='" + rk + "')",
                   std::string("ETag: W/\"datetime'2026-11-21T13%3A26%3A16.") + tags[i] + "Z'\"", "", ""});
  }
  body += lines({"--changesetresponse_6f1b2c3d-0002--", "--batchresponse_6f1b2c3d-0001--"});
  resp.body = body;
  push(*f.t, resp);
  auto b = f.make_batch();
  b.insert(sample("1")).insert(sample("2")).insert(sample("3"));
  auto r = b.submit();
  REQUIRE(r);
  REQUIRE(r->actions.size() == 3);
  CHECK(r->actions[0].status == 204);
  CHECK(r->actions[1].status == 201);
  CHECK(r->actions[1].etag.str() == "W/\"datetime'2026-11-21T13%3A26%3A16.1875447Z'\"");
}

TEST_CASE("batch: upsert-only batches are idempotent for the retry policy", "[batch]") {
  fixture f(aztables_test::dev_connection_string(), 2);
  // Only idempotent operations are retried in this client.
  auto o = aztables_test::fake_options(f.t);
  o.retry.retry_non_idempotent = false;
  auto svc = aztables::service_client::from_connection_string(aztables_test::dev_connection_string(), o).value();
  auto tc = svc.table("orders");
  f.t->push(503, "");
  push(*f.t, ok_response({{204, "W/\"1\""}}));
  aztables::batch up(tc);
  up.upsert(sample("r1"));
  auto r = up.submit();
  REQUIRE(r);
  CHECK(f.t->request_count() == 2);
  f.t->push(503, "");
  aztables::batch ins(tc);
  ins.insert(sample("r1"));
  auto r2 = ins.submit();
  REQUIRE(!r2);
  CHECK(r2.error().code == aztables::errc::throttled);
  CHECK(f.t->request_count() == 3);
}

TEST_CASE("multipart: response parsing tolerates LF-only lines and quoted boundaries", "[batch]") {
  std::string body =
      "--b1\nContent-Type: multipart/mixed; boundary=c1\n\n--c1\nContent-Type: application/http\n\n"
      "HTTP/1.1 204 No Content\nETag: W/\"x\"\n\n\n--c1\nContent-Type: application/http\n\nHTTP/1.1 201 "
      "Created\n\n{\"a\":1}\n--c1--\n--b1--\n";
  auto parts = aztables::detail::parse_batch_response("multipart/mixed; boundary=\"b1\"", body);
  REQUIRE(parts);
  REQUIRE(parts->size() == 2);
  CHECK((*parts)[0].status == 204);
  CHECK((*parts)[0].headers.get("etag") == "W/\"x\"");
  CHECK((*parts)[1].status == 201);
  CHECK((*parts)[1].body == "{\"a\":1}");
  // No boundary in the header: taken from the first delimiter line.
  auto again = aztables::detail::parse_batch_response("multipart/mixed", body);
  REQUIRE(again);
  CHECK(again->size() == 2);
  CHECK(!aztables::detail::parse_batch_response("multipart/mixed; boundary=zz", body));
  CHECK(!aztables::detail::parse_batch_response("multipart/mixed; boundary=b1", "--b1\nContent-Type: application/http\n\nnot http\n--b1--\n"));
}

TEST_CASE("batch: a response cut at any byte is never a success", "[batch]") {
  // Every prefix of a valid two-action response: success only once the
  // closing batch delimiter has fully arrived; anything shorter is an error.
  const auto full = ok_response({{204, "W/\"1\""}, {201, "W/\"2\""}});
  const std::size_t complete = full.body.find("--batchresponse_0001--") + 22;
  fixture f;
  auto b = f.make_batch();
  b.insert(sample("r1")).insert(sample("r2"));
  std::size_t successes = 0;
  for (std::size_t n = 0; n <= full.body.size(); ++n) {
    auto cut = full;
    cut.body.resize(n);
    push(*f.t, cut);
    auto r = b.submit();
    if (r) {
      ++successes;
      CHECK(n >= complete);
      CHECK(r->actions.size() == 2);
    } else {
      CHECK(r.error().code == aztables::errc::invalid_response);
    }
  }
  CHECK(successes == full.body.size() - complete + 1);
}

TEST_CASE("multipart: mutated responses never crash the parser", "[batch]") {
  // A cheap deterministic fuzz: flip, drop and duplicate bytes of a valid
  // response and parse each variant (run under sanitizers in CI builds that
  // enable them).
  const auto full = ok_response({{204, "W/\"1\""}, {409, ""}, {201, "W/\"2\""}});
  std::uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  const char alphabet[] = "-\r\n:HTTP/1.1 2049boundary=changesetresponse_0001batchresponse_0001{}\"";
  for (int i = 0; i < 3000; ++i) {
    std::string body = full.body;
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < edits && !body.empty(); ++k) {
      const std::size_t at = next() % body.size();
      switch (next() % 3) {
        case 0: body[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
        case 1: body.erase(at, 1 + next() % 8); break;
        default: body.insert(at, body.substr(at, 1 + next() % 16)); break;
      }
    }
    auto parts = aztables::detail::parse_batch_response(*full.headers.find("content-type"), body);
    if (parts)
      for (auto& p : *parts) CHECK(p.status < 1000);
  }
}
