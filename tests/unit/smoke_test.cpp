#include <catch2/catch.hpp>
#include <test_support.hpp>

TEST_CASE("a fake transport sees a signed insert", "[core]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  t->push(204, "", {{"ETag", "W/\"x\""}});
  auto svc = aztables::service_client::from_connection_string(aztables_test::dev_connection_string(),
                                                              aztables_test::fake_options(t))
                 .value();
  auto tc = svc.table("orders");
  aztables::entity e("p", "r");
  e.set("N", 1);
  auto r = tc.insert(e);
  REQUIRE(r);
  CHECK(r->etag.str() == "W/\"x\"");
  auto rq = t->requests().at(0);
  CHECK(rq.method == "POST");
  CHECK(rq.url == "http://127.0.0.1:10002/devstoreaccount1/orders");
  CHECK(rq.body == R"({"PartitionKey":"p","RowKey":"r","N":1})");
  CHECK(rq.headers.find("Authorization")->rfind("SharedKey devstoreaccount1:", 0) == 0);
}
