// libcurl re-sends a request, silently and for every method, when a reused
// keep-alive connection dies before any answer. The first send may have been
// applied: the curl transport reports it (http_response::resent) and the
// retry loop treats it like an earlier attempt with an unknown outcome.
#include <catch2/catch.hpp>
#include <local_http_server.hpp>
#include <test_support.hpp>

using aztables_test::canned_response;

TEST_CASE("curl transport: a silent re-send on a dead reused connection is reported", "[retry][curl]") {
  aztables_test::local_http_server server;
  server.push(canned_response(200, {}, "{}"));                   // opens the keep-alive connection
  server.push(canned_response::raw_bytes("HTTP/1.1 2", /*close=*/true));  // the next: cut before any header
  server.push(canned_response(409, {}, "{}"));                   // curl's re-send on a fresh connection
  auto t = aztables::make_curl_transport();
  aztables::http_request rq;
  rq.method = "POST";
  rq.url = server.url("/devstoreaccount1/orders");
  rq.body = "{}";
  rq.headers.add("Content-Type", "application/json");
  rq.timeout = std::chrono::milliseconds(5000);
  auto first = t->send(rq);
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK_FALSE(first->resent);
  auto second = t->send(rq);
  REQUIRE(second);
  CHECK(second->status == 409);
  CHECK(second->resent);
  CHECK(server.request_count() == 3);  // the POST reached the server twice
}

TEST_CASE("curl transport: an insert re-sent by curl and answered 409 is verified, not a plain conflict",
          "[retry][curl]") {
  aztables_test::local_http_server server;
  auto svc = aztables::service_client::from_connection_string(
                 aztables_test::dev_connection_string(server.url("/devstoreaccount1")))
                 .value();
  auto tc = svc.table("orders");
  aztables::entity e("p", "r");
  e.set("N", 1);
  server.push(canned_response(204, {{"ETag", "W/\"0\""}}));       // an upsert opens the connection
  server.push(canned_response::raw_bytes("HTTP/1.1 2", /*close=*/true));  // insert: applied, then the connection dies
  server.push(canned_response(409, {{"x-ms-error-code", "EntityAlreadyExists"}},
                              R"({"odata.error":{"code":"EntityAlreadyExists","message":{"value":"exists"}}})"));
  server.push(canned_response(200, {{"ETag", "W/\"1\""}, {"Content-Type", "application/json"}},
                              R"({"PartitionKey":"p","RowKey":"r","N":1})"));  // the read-back
  REQUIRE(tc.upsert(aztables::entity("p", "other")));
  auto r = tc.insert(e);
  REQUIRE(r);
  CHECK(r->verified_after_retry);
  CHECK(r->etag.str() == "W/\"1\"");
  auto rq = server.requests();
  REQUIRE(rq.size() == 4);
  CHECK(rq[1].method == "POST");
  CHECK(rq[2].method == "POST");
  CHECK(rq[3].method == "GET");
}
