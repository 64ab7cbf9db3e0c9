// The built-in curl transport against local servers: TLS verification on by
// default (a self-signed certificate is refused; ca_file or the loudly named
// insecure option admit it), responses over max_response_bytes and malformed
// responses are invalid_response, never unbounded memory or a crash.
#include <catch2/catch.hpp>
#include <local_http_server.hpp>
#include <test_support.hpp>

#include <unistd.h>

namespace {

aztables::client_options quick_options() {
  aztables::client_options o;
  o.retry = aztables::retry_options::none();
  o.connect_timeout = std::chrono::milliseconds(5000);
  o.attempt_timeout = std::chrono::milliseconds(10000);
  return o;
}

aztables::service_client client_for(const std::string& url, aztables::client_options o = quick_options()) {
  return aztables::service_client::create(url, aztables::shared_key_credential(
                                                   "devstoreaccount1", std::string(aztables::development_account_key)),
                                          std::move(o))
      .value();
}

const char* list_body = R"({"value":[{"TableName":"alpha"}]})";

// One certificate per test process, in a temporary directory removed at exit.
const aztables_test::self_signed_cert& cert() {
  static const aztables_test::self_signed_cert c = aztables_test::make_self_signed_cert("aztables-tls-test");
  return c;
}

}  // namespace

TEST_CASE("TLS: a self-signed certificate is refused by default, accepted with ca_file", "[tls]") {
  REQUIRE(cert().ok);
  aztables_test::local_http_server srv(cert().cert_file, cert().key_file);
  srv.set_handler([](const aztables_test::recorded_request&) {
    return aztables_test::canned_response{200, {{"Content-Type", "application/json"}}, list_body};
  });
  const std::string url = srv.url("/devstoreaccount1");
  REQUIRE(url.rfind("https://127.0.0.1:", 0) == 0);

  auto refused = client_for(url).list_tables();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == aztables::errc::transport);
  CHECK(refused.error().failure == aztables::transport_failure::tls);
  CHECK(srv.request_count() == 0);  // no request crossed the unverified connection

  auto with_ca = quick_options();
  with_ca.ca_file = cert().cert_file;
  auto names = client_for(url, with_ca).list_tables();
  REQUIRE(names);
  CHECK(*names == std::vector<std::string>{"alpha"});

  auto insecure = quick_options();
  insecure.insecure_skip_tls_verification = true;
  REQUIRE(client_for(url, insecure).list_tables());

  // The certificate is for 127.0.0.1: reaching it as "localhost" fails the
  // host-name check even with the CA trusted.
  auto by_name = client_for("https://localhost:" + std::to_string(srv.port()) + "/devstoreaccount1", with_ca)
                     .list_tables();
  REQUIRE_FALSE(by_name);
  CHECK(by_name.error().code == aztables::errc::transport);
  CHECK(by_name.error().failure == aztables::transport_failure::tls);
}

TEST_CASE("responses over max_response_bytes are invalid_response", "[limits]") {
  aztables_test::local_http_server srv;
  const std::string big = R"({"value":[{"TableName":")" + std::string(5000, 'a') + R"("}]})";
  auto opt = quick_options();
  opt.max_response_bytes = 4096;
  auto svc = client_for(srv.url("/devstoreaccount1"), opt);

  SECTION("announced by Content-Length") {
    srv.push({200, {{"Content-Type", "application/json"}}, big});
    auto r = svc.list_tables();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_response);
    CHECK(r.error().message.find("4096") != std::string::npos);
  }
  SECTION("chunked, no length") {
    std::string chunked = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t off = 0; off < big.size(); off += 1000) {
      std::string part = big.substr(off, 1000);
      char len[16];
      std::snprintf(len, sizeof len, "%zx", part.size());
      chunked += std::string(len) + "\r\n" + part + "\r\n";
    }
    chunked += "0\r\n\r\n";
    aztables_test::canned_response raw;
    raw.raw = chunked;
    srv.push(raw);
    auto r = svc.list_tables();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_response);
  }
  SECTION("an endless stream of headers") {
    std::string flood = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
    for (int i = 0; i < 100; ++i) flood += "X-Filler-" + std::to_string(i) + ": " + std::string(100, 'h') + "\r\n";
    flood += "Content-Length: 12\r\n\r\n{\"value\":[]}";
    aztables_test::canned_response raw;
    raw.raw = flood;
    raw.close_after = true;
    srv.push(raw);
    auto r = svc.list_tables();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_response);
  }
  SECTION("just under the cap is fine") {
    const std::string ok = R"({"value":[{"TableName":")" + std::string(3800, 'b') + R"("}]})";  // headers count too
    srv.push({200, {{"Content-Type", "application/json"}}, ok});
    auto r = svc.list_tables();
    REQUIRE(r);
    CHECK(r->at(0).size() == 3800);
  }
}

TEST_CASE("malformed responses are invalid_response (or a transport error when cut short)", "[limits]") {
  aztables_test::local_http_server srv;
  auto svc = client_for(srv.url("/devstoreaccount1"));
  auto expect = [&](aztables_test::canned_response resp, aztables::errc code) {
    srv.push(std::move(resp));
    auto r = svc.list_tables();
    REQUIRE_FALSE(r);
    INFO(r.error().to_string());
    CHECK(r.error().code == code);
    return r.error();
  };
  SECTION("body is not JSON") { expect({200, {}, "<html>hello</html>"}, aztables::errc::invalid_response); }
  SECTION("JSON of the wrong shape") { expect({200, {}, R"({"value":{"TableName":1}})"}, aztables::errc::invalid_response); }
  SECTION("truncated JSON") { expect({200, {}, R"({"value":[{"TableName":"ab)"}, aztables::errc::invalid_response); }
  SECTION("not HTTP at all") {
    aztables_test::canned_response raw;
    raw.raw = "SSH-2.0-OpenSSH_9.2\r\n\r\n";
    raw.close_after = true;
    expect(raw, aztables::errc::invalid_response);
  }
  SECTION("a status line with garbage") {
    aztables_test::canned_response raw;
    raw.raw = "HTTP/1.1 2x0 Okay\r\nContent-Length: 0\r\n\r\n";
    raw.close_after = true;
    expect(raw, aztables::errc::invalid_response);
  }
  SECTION("body shorter than Content-Length, then close") {
    aztables_test::canned_response raw;
    raw.raw = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"value\":[";
    raw.close_after = true;
    auto e = expect(raw, aztables::errc::transport);
    CHECK(e.failure == aztables::transport_failure::truncated);
  }
  SECTION("an error status with a huge, hostile error body") {
    std::string body = R"({"odata.error":{"code":")" + std::string(10000, 'C') + R"(","message":{"value":")" +
                       std::string(100000, 'M') + R"("}}})";
    auto e = expect({500, {}, body}, aztables::errc::service);
    CHECK(e.service_code.size() <= 128);
    CHECK(e.message.size() <= 1024);
  }
}
