// Bearer tokens: the header on the wire (checked by a local server), caching
// and refresh before expiry with an injected clock, one provider call under
// concurrency, the audience per endpoint kind, failures, and the rule that
// secrets never cross plain http to another host.
#include <catch2/catch.hpp>
#include <local_http_server.hpp>
#include <test_support.hpp>

#include <atomic>
#include <thread>

using namespace std::chrono;

namespace {

const system_clock::time_point t0 = system_clock::time_point(seconds(1795000000));

struct token_source {
  std::mutex mu;
  std::vector<std::string> scopes;
  std::vector<aztables::result<aztables::access_token>> script;  // returned in order; then the last again
  int calls = 0;

  aztables::token_provider provider() {
    return [this](std::string_view scope) -> aztables::result<aztables::access_token> {
      std::lock_guard<std::mutex> lk(mu);
      scopes.emplace_back(scope);
      auto r = script.at(std::min<std::size_t>(static_cast<std::size_t>(calls), script.size() - 1));
      ++calls;
      return r;
    };
  }
};

aztables::access_token token(std::string t, system_clock::time_point exp) { return {std::move(t), exp}; }

struct clock_box {
  std::shared_ptr<std::atomic<std::int64_t>> secs = std::make_shared<std::atomic<std::int64_t>>(1795000000);
  std::function<system_clock::time_point()> fn() const {
    auto s = secs;
    return [s] { return system_clock::time_point(seconds(s->load())); };
  }
  void advance(seconds d) { *secs += d.count(); }
};

const char* empty_list = R"({"value":[]})";

}  // namespace

TEST_CASE("bearer: the token goes on the wire as Authorization: Bearer, cached until refresh", "[bearer]") {
  aztables_test::local_http_server srv;
  std::atomic<int> unauthorized{0};
  std::string expected = "Bearer tok-1";
  std::mutex emu;
  srv.set_handler([&](const aztables_test::recorded_request& rq) {
    std::lock_guard<std::mutex> lk(emu);
    if (rq.header("Authorization") != expected) {
      ++unauthorized;
      return aztables_test::canned_response{401, {{"x-ms-error-code", "InvalidAuthenticationInfo"}}, ""};
    }
    return aztables_test::canned_response{200, {{"Content-Type", "application/json"}}, empty_list};
  });
  token_source src;
  src.script = {token("tok-1", t0 + hours(1)), token("tok-2", t0 + hours(2))};
  clock_box clock;
  aztables::client_options opt;
  opt.clock = clock.fn();
  opt.retry = aztables::retry_options::none();
  aztables::bearer_credential cred;
  cred.provider = src.provider();
  cred.refresh_margin = minutes(5);
  // Plain http is fine to loopback (emulators, tests).
  auto svc = aztables::service_client::create(srv.url("/acct"), cred, opt).value();

  for (int i = 0; i < 3; ++i) REQUIRE(svc.list_tables());
  CHECK(src.calls == 1);
  CHECK(src.scopes.at(0) == "https://storage.azure.com/.default");
  auto reqs = srv.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].header("x-ms-version") >= "2019-02-02");  // OAuth needs 2017-11-09 or later

  clock.advance(minutes(54));  // 6 minutes left: still cached
  REQUIRE(svc.list_tables());
  CHECK(src.calls == 1);
  clock.advance(minutes(1) + seconds(1));  // inside the 5-minute margin: refreshed
  {
    std::lock_guard<std::mutex> lk(emu);
    expected = "Bearer tok-2";
  }
  REQUIRE(svc.list_tables());
  CHECK(src.calls == 2);
  CHECK(srv.requests().back().header("Authorization") == "Bearer tok-2");
  CHECK(unauthorized == 0);
}

TEST_CASE("bearer: a token shorter-lived than twice the margin is refreshed half-way", "[bearer]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  t->set_default([](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    r.status = 200;
    r.body = empty_list;
    return r;
  });
  token_source src;
  src.script = {token("short", t0 + minutes(4))};
  clock_box clock;
  auto opt = aztables_test::fake_options(t);
  opt.clock = clock.fn();
  aztables::bearer_credential cred{src.provider(), {}, minutes(5)};
  auto svc = aztables::service_client::create("https://acct.table.core.windows.net", cred, opt).value();
  REQUIRE(svc.list_tables());
  REQUIRE(svc.list_tables());
  CHECK(src.calls == 1);  // not once per request
  clock.advance(minutes(2));
  REQUIRE(svc.list_tables());
  CHECK(src.calls == 2);
}

TEST_CASE("bearer: many threads, one provider call", "[bearer]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  t->set_default([](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    r.status = 200;
    r.body = empty_list;
    return r;
  });
  std::atomic<int> calls{0};
  aztables::bearer_credential cred;
  cred.provider = [&](std::string_view) -> aztables::result<aztables::access_token> {
    ++calls;
    return token("shared", t0 + hours(1));
  };
  auto svc = aztables::service_client::create("https://acct.table.core.windows.net", cred,
                                              aztables_test::fake_options(t))
                 .value();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int k = 0; k < 25; ++k)
        if (!svc.list_tables()) ++failures;
    });
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(calls == 1);
  CHECK(t->request_count() == 200);
  for (const auto& rq : t->requests()) CHECK(rq.headers.get("Authorization") == "Bearer shared");
}

TEST_CASE("bearer: the audience follows the endpoint (Storage or Cosmos), or the explicit scope", "[bearer]") {
  struct row {
    const char* endpoint;
    const char* scope;
    const char* expected;
  };
  for (const row& r : {row{"https://acct.table.core.windows.net", "", "https://storage.azure.com/.default"},
                       row{"https://acct.table.cosmos.azure.com", "", "https://cosmos.azure.com/.default"},
                       row{"https://acct.table.cosmosdb.azure.com:443", "", "https://cosmos.azure.com/.default"},
                       row{"https://localhost:8902", "", "https://cosmos.azure.com/.default"},
                       row{"https://acct.table.core.chinacloudapi.cn", "", "https://storage.azure.com/.default"},
                       row{"https://acct.table.core.windows.net", "api://custom/.default", "api://custom/.default"}}) {
    INFO(r.endpoint);
    auto t = std::make_shared<aztables_test::fake_transport>();
    t->push(200, empty_list);
    token_source src;
    src.script = {token("x", t0 + hours(1))};
    aztables::bearer_credential cred{src.provider(), r.scope, minutes(5)};
    auto svc = aztables::service_client::create(r.endpoint, cred, aztables_test::fake_options(t)).value();
    REQUIRE(svc.list_tables());
    REQUIRE(src.scopes.size() == 1);
    CHECK(src.scopes[0] == r.expected);
  }
}

TEST_CASE("bearer: provider failures are authentication errors; nothing is sent", "[bearer]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  token_source src;
  aztables::error failure = aztables::error::make(aztables::errc::transport, "IMDS said: Bearer eyJhbGciOiJSUzI1NiJ9.SECRET");
  src.script = {failure};
  aztables::bearer_credential cred{src.provider(), {}, minutes(5)};
  auto svc = aztables::service_client::create("https://acct.table.core.windows.net", cred,
                                              aztables_test::fake_options(t))
                 .value();
  auto r = svc.list_tables();
  REQUIRE_FALSE(r);
  CHECK(r.error().code == aztables::errc::authentication);
  CHECK(r.error().message.find("token provider failed") != std::string::npos);
  CHECK(r.error().message.find("SECRET") == std::string::npos);
  CHECK(t->request_count() == 0);

  token_source empty;
  empty.script = {token("", t0 + hours(1))};
  auto svc2 = aztables::service_client::create("https://acct.table.core.windows.net",
                                               aztables::bearer_credential{empty.provider(), {}, minutes(5)},
                                               aztables_test::fake_options(t))
                  .value();
  auto r2 = svc2.list_tables();
  REQUIRE_FALSE(r2);
  CHECK(r2.error().message.find("empty token") != std::string::npos);

  token_source stale;
  stale.script = {token("old-token-value", t0 - seconds(1))};
  auto svc3 = aztables::service_client::create("https://acct.table.core.windows.net",
                                               aztables::bearer_credential{stale.provider(), {}, minutes(5)},
                                               aztables_test::fake_options(t))
                  .value();
  auto r3 = svc3.list_tables();
  REQUIRE_FALSE(r3);
  CHECK(r3.error().message.find("already expired") != std::string::npos);
  CHECK(r3.error().to_string().find("old-token-value") == std::string::npos);
  CHECK(t->request_count() == 0);

  auto none = aztables::service_client::create("https://acct.table.core.windows.net", aztables::bearer_credential{},
                                               aztables_test::fake_options(t));
  REQUIRE_FALSE(none);
  CHECK(none.error().code == aztables::errc::invalid_argument);
}

TEST_CASE("bearer: a failing refresh falls back to the cached token until it expires; 401 drops it", "[bearer]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  t->set_default([](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    r.status = 200;
    r.body = empty_list;
    return r;
  });
  token_source src;
  src.script = {token("first", t0 + hours(1)), aztables::error::make(aztables::errc::transport, "down"),
                token("second", t0 + hours(3))};
  clock_box clock;
  auto opt = aztables_test::fake_options(t);
  opt.clock = clock.fn();
  opt.retry = aztables::retry_options::none();
  auto svc = aztables::service_client::create("https://acct.table.core.windows.net",
                                              aztables::bearer_credential{src.provider(), {}, minutes(5)}, opt)
                 .value();
  REQUIRE(svc.list_tables());
  clock.advance(minutes(57));  // refresh due, provider down: the cached token still works
  REQUIRE(svc.list_tables());
  CHECK(src.calls == 2);
  CHECK(t->requests().back().headers.get("Authorization") == "Bearer first");
  // The service rejects the token: the cache is dropped, the next call fetches.
  t->push(401, "", {{"x-ms-error-code", "InvalidAuthenticationInfo"}});
  auto denied = svc.list_tables();
  REQUIRE_FALSE(denied);
  CHECK(denied.error().code == aztables::errc::authentication);
  CHECK(src.calls == 3);  // the refresh attempt in this call got "second"
  REQUIRE(svc.list_tables());
  CHECK(t->requests().back().headers.get("Authorization") == "Bearer second");
}

TEST_CASE("SAS and bearer over plain http to another host are refused unless explicitly allowed", "[bearer][sas]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  const aztables::credential sas = aztables::sas_credential{"sv=2019-02-02&sp=r&sig=c2lnbmF0dXJl"};
  const aztables::credential bearer =
      aztables::bearer_credential{[](std::string_view) -> aztables::result<aztables::access_token> {
                                    return aztables::access_token{"x", t0 + hours(1)};
                                  },
                                  {},
                                  minutes(5)};
  for (const auto* cred : {&sas, &bearer}) {
    for (const char* ep : {"http://acct.table.core.windows.net", "http://10.0.0.5:10002/devstoreaccount1",
                           "http://example.com"}) {
      INFO(ep);
      auto r = aztables::service_client::create(ep, *cred, aztables_test::fake_options(t));
      REQUIRE_FALSE(r);
      CHECK(r.error().code == aztables::errc::invalid_argument);
      CHECK(r.error().message.find("plain http") != std::string::npos);
      auto opt = aztables_test::fake_options(t);
      opt.insecure_allow_http_with_secrets = true;
      CHECK(aztables::service_client::create(ep, *cred, opt));
    }
    for (const char* ep : {"https://acct.table.core.windows.net", "http://127.0.0.1:10002/devstoreaccount1",
                           "http://localhost:10002/devstoreaccount1", "http://[::1]:10002/devstoreaccount1",
                           "http://devstoreaccount1.localhost:10002"}) {
      INFO(ep);
      CHECK(aztables::service_client::create(ep, *cred, aztables_test::fake_options(t)));
    }
  }
  // The account key never travels; shared key over http is the caller's choice.
  CHECK(aztables::service_client::create("http://example.com",
                                         aztables::shared_key_credential("acct", std::string(aztables::development_account_key)),
                                         aztables_test::fake_options(t)));
  CHECK(t->request_count() == 0);
}
