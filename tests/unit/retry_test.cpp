// Retry policy: classification, server hints, exact and statistical backoff,
// stopping (attempts, deadline), the per-attempt hook, idempotency and the
// verification of writes whose earlier attempt may have been applied.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using aztables::errc;
using aztables::transport_failure;
using std::chrono::milliseconds;

namespace {

}  // namespace

namespace Catch {
template <>
struct StringMaker<std::chrono::milliseconds> {
  static std::string convert(std::chrono::milliseconds d) { return std::to_string(d.count()) + "ms"; }
};
}  // namespace Catch

namespace {

const std::chrono::system_clock::time_point fixed_now{std::chrono::seconds(1795000000)};

// A fake steady clock that only moves when the retry loop sleeps (or a test
// advances it), and records every wait.
struct fake_time {
  std::chrono::steady_clock::time_point t{};
  std::vector<milliseconds> sleeps;
  void install(aztables::retry_options& r) {
    r.now = [this] { return t; };
    r.sleep = [this](milliseconds d) {
      sleeps.push_back(d);
      t += d;
    };
  }
};

struct fixture {
  std::shared_ptr<aztables_test::fake_transport> t = std::make_shared<aztables_test::fake_transport>();
  fake_time time;
  std::vector<aztables::attempt_info> attempts;
  std::vector<aztables::error> failures;  // copies of attempt_info::failure

  aztables::client_options options(aztables::retry_options r = {}) {
    auto o = aztables_test::fake_options(t, fixed_now);
    r.random = [] { return 0.5; };
    time.install(r);
    r.on_attempt = [this](const aztables::attempt_info& a) {
      attempts.push_back(a);
      failures.push_back(a.failure ? *a.failure : aztables::error{});
    };
    o.retry = std::move(r);
    return o;
  }
  aztables::table_client client(aztables::retry_options r = {}) {
    return aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "orders",
                                                          options(std::move(r)))
        .value();
  }
};

std::string error_body(const std::string& code) {
  return R"({"odata.error":{"code":")" + code + R"(","message":{"lang":"en-US","value":"m"}}})";
}

aztables::entity sample() {
  aztables::entity e("p", "r");
  e.set("N", 1).set("S", "x");
  return e;
}

}  // namespace

// ---------------------------------------------------------------------------
// Classification: one row per row of the README table.

TEST_CASE("retry: classification table (status or failure -> decision)", "[retry]") {
  struct row {
    const char* what;
    int status;                 // 0: a transport failure
    transport_failure failure;  // for status 0
    bool retryable;
    bool may_have_applied;
  };
  const row rows[] = {
      {"408 Request Timeout", 408, transport_failure::none, true, true},
      {"429 Too Many Requests", 429, transport_failure::none, true, false},
      {"500 Internal Server Error / Operation Timeout", 500, transport_failure::none, true, true},
      {"502 Bad Gateway", 502, transport_failure::none, true, true},
      {"503 Server Busy", 503, transport_failure::none, true, true},
      {"504 Gateway Timeout", 504, transport_failure::none, true, true},
      {"connection refused", 0, transport_failure::connect, true, false},
      {"connection reset while sending", 0, transport_failure::send, true, true},
      {"connection reset while receiving", 0, transport_failure::receive, true, true},
      {"timeout", 0, transport_failure::timeout, true, true},
      {"response cut short", 0, transport_failure::truncated, true, true},
      {"host name not resolved", 0, transport_failure::resolve, false, false},
      {"TLS failure", 0, transport_failure::tls, false, false},
      {"other transport failure", 0, transport_failure::other, false, true},
      {"400 Bad Request", 400, transport_failure::none, false, false},
      {"401 Unauthorized", 401, transport_failure::none, false, false},
      {"403 Forbidden", 403, transport_failure::none, false, false},
      {"404 Not Found", 404, transport_failure::none, false, false},
      {"409 Conflict", 409, transport_failure::none, false, false},
      {"412 Precondition Failed", 412, transport_failure::none, false, false},
      {"413 Request Entity Too Large", 413, transport_failure::none, false, false},
      {"501 Not Implemented", 501, transport_failure::none, false, false},
      {"505 HTTP Version Not Supported", 505, transport_failure::none, false, false},
  };
  for (const row& r : rows) {
    INFO(r.what);
    fixture f;
    auto tc = f.client();
    if (r.status) f.t->push(r.status, error_body("X"));
    else f.t->push_failure(r.failure);
    f.t->push(204, "", {{"ETag", "W/\"1\""}});
    auto res = tc.upsert(sample());  // idempotent: only the classification decides
    CHECK(f.t->request_count() == (r.retryable ? 2u : 1u));
    CHECK(static_cast<bool>(res) == r.retryable);
    REQUIRE(!f.attempts.empty());
    CHECK(f.attempts[0].outcome ==
          (r.retryable ? aztables::attempt_outcome::retrying : aztables::attempt_outcome::not_retryable));
    CHECK(aztables::default_is_retryable(f.failures[0]) == r.retryable);
    CHECK(aztables::may_have_applied(f.failures[0]) == r.may_have_applied);
    if (!r.retryable) {
      CHECK(res.error().attempts == 1);
      CHECK(res.error().may_have_applied == r.may_have_applied);  // an upsert is a write
    }
  }
}

TEST_CASE("retry: client-side validation errors are never sent nor retried", "[retry]") {
  fixture f;
  auto tc = f.client();
  aztables::entity bad("p/q", "r");  // '/' is not allowed in keys
  auto r = tc.upsert(bad);
  REQUIRE(!r);
  CHECK(r.error().code == errc::invalid_argument);
  CHECK(f.t->request_count() == 0);
  CHECK(f.attempts.empty());
  CHECK_FALSE(aztables::default_is_retryable(r.error()));
  CHECK_FALSE(aztables::default_is_retryable(aztables::error::make(errc::mapping, "x")));
}

// ---------------------------------------------------------------------------
// Server hints: one row per header form.

TEST_CASE("retry: server hints (one row per header form), capped by z_max", "[retry]") {
  const std::string in12s = "Wed, 18 Nov 2026 11:06:52 GMT";  // fixed_now + 12 s
  const std::string ago = "Wed, 18 Nov 2026 11:06:10 GMT";    // fixed_now - 30 s
  struct row {
    const char* what;
    int status;
    std::vector<aztables::http_header> headers;
    milliseconds expected;
  };
  // Default exponential policy with random = 0.5: no hint -> 100 + 800 * 1 = 900 ms.
  const std::vector<row> rows = {
      {"x-ms-retry-after-ms", 429, {{"x-ms-retry-after-ms", "1500"}}, 1500ms},
      {"retry-after-ms", 503, {{"retry-after-ms", "2500"}}, 2500ms},
      {"Retry-After in seconds", 503, {{"Retry-After", "7"}}, 7000ms},
      {"Retry-After as an HTTP date", 503, {{"Retry-After", in12s}}, 12000ms},
      {"Retry-After date in the past", 503, {{"Retry-After", ago}}, 0ms},
      {"hint above z_max is capped", 429, {{"x-ms-retry-after-ms", "600000"}}, 30000ms},
      {"Retry-After seconds above z_max is capped", 503, {{"Retry-After", "3600"}}, 30000ms},
      {"x-ms-retry-after-ms wins over Retry-After", 429,
       {{"Retry-After", "9"}, {"x-ms-retry-after-ms", "40"}}, 40ms},
      {"malformed hint is ignored", 503, {{"Retry-After", "soon"}}, 900ms},
      {"429 without a hint: backoff", 429, {}, 900ms},
      {"503 without a hint: backoff", 503, {}, 900ms},
  };
  for (const row& r : rows) {
    INFO(r.what);
    fixture f;
    auto tc = f.client();
    f.t->push(r.status, error_body("ServerBusy"), r.headers);
    f.t->push(204, "");
    REQUIRE(tc.upsert(sample()));
    REQUIRE(f.time.sleeps.size() <= 1);
    const milliseconds slept = f.time.sleeps.empty() ? 0ms : f.time.sleeps[0];
    CHECK(slept == r.expected);
    CHECK(f.attempts.at(0).delay == r.expected);
  }
}

TEST_CASE("retry: fixed backoff ignores hints; a custom backoff sees them", "[retry]") {
  {
    fixture f;
    auto tc = f.client(aztables::retry_options::fixed(2, 250ms));
    f.t->push(429, "", {{"x-ms-retry-after-ms", "5000"}});
    f.t->push(204, "");
    REQUIRE(tc.upsert(sample()));
    CHECK(f.time.sleeps == std::vector<milliseconds>{250ms});
  }
  {
    fixture f;
    aztables::retry_options r;
    std::vector<int> retries;
    r.backoff = aztables::custom_backoff{[&](const aztables::backoff_input& in) {
      retries.push_back(in.retry);
      REQUIRE(in.failure);
      return in.server_hint ? *in.server_hint * 2 : milliseconds(in.retry * 10);
    }};
    auto tc = f.client(r);
    f.t->push(429, "", {{"x-ms-retry-after-ms", "70"}});
    f.t->push(503, "");
    f.t->push(204, "");
    REQUIRE(tc.upsert(sample()));
    CHECK(f.time.sleeps == std::vector<milliseconds>{140ms, 20ms});
    CHECK(retries == std::vector<int>{1, 2});
  }
}

// ---------------------------------------------------------------------------
// Exact delays for a seeded source; statistics over 10,000 draws.

namespace {
// splitmix64: the same numbers on every platform (std distributions are not).
struct seeded_source {
  std::uint64_t s;
  double operator()() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
};
}  // namespace

TEST_CASE("retry: exact delays of the exponential formula for given draws", "[retry]") {
  const aztables::backoff_strategy s = aztables::exponential_backoff{800ms, 100ms, 30000ms};
  // y = Rand(0.8z, 1.2z) * (2^x - 1); y = min(z_min + y, z_max)
  CHECK(aztables::backoff_delay(s, 1, 0.0) == 740ms);    // 100 + 640 * 1
  CHECK(aztables::backoff_delay(s, 1, 0.5) == 900ms);    // 100 + 800 * 1
  CHECK(aztables::backoff_delay(s, 2, 0.5) == 2500ms);   // 100 + 800 * 3
  CHECK(aztables::backoff_delay(s, 3, 0.25) == 5140ms);  // 100 + 720 * 7
  CHECK(aztables::backoff_delay(s, 4, 0.75) == 13300ms); // 100 + 880 * 15
  CHECK(aztables::backoff_delay(s, 5, 0.0) == 19940ms);  // 100 + 640 * 31
  CHECK(aztables::backoff_delay(s, 6, 0.0) == 30000ms);  // 100 + 640 * 63 = 40420 -> z_max
  const aztables::backoff_strategy guide = aztables::retry_options::guide_preset().backoff;
  CHECK(aztables::backoff_delay(guide, 1, 0.5) == 33000ms);  // 3 s + 30 s
  CHECK(aztables::backoff_delay(guide, 2, 0.0) == 75000ms);  // 3 s + 24 s * 3
  CHECK(aztables::backoff_delay(guide, 2, 0.5) == 90000ms);  // 3 s + 90 s -> 90 s
}

TEST_CASE("retry: a seeded source gives the same waits through the client every time", "[retry]") {
  fixture f;
  aztables::retry_options r = aztables::retry_options::exponential(5, 800ms, 100ms, 30000ms);
  auto o = f.options(r);
  o.retry.random = seeded_source{42};
  auto tc = aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "orders", o).value();
  for (int i = 0; i < 5; ++i) f.t->push(503, "");
  f.t->push(204, "");
  REQUIRE(tc.upsert(sample()));
  // The first five draws of splitmix64(42), through the formula.
  seeded_source src{42};
  std::vector<milliseconds> expected;
  for (int x = 1; x <= 5; ++x) {
    double u = src();
    double y = (0.8 * 800 + 0.4 * 800 * u) * (std::pow(2.0, x) - 1);
    expected.push_back(milliseconds(std::llround(std::fmin(100 + y, 30000))));
  }
  CHECK(f.time.sleeps == expected);
  // Pinned, so a change of the formula or the draw order is seen.
  CHECK(f.time.sleeps == std::vector<milliseconds>{977ms, 2174ms, 5204ms, 11352ms, 20317ms});
}

TEST_CASE("retry: 10,000 draws per retry number stay in band, mean within 2%", "[retry]") {
  struct policy {
    const char* name;
    aztables::exponential_backoff b;
    std::vector<int> retries;  // retry numbers whose band lies wholly below or wholly at the cap
  };
  const policy policies[] = {
      {"default", aztables::exponential_backoff{}, {1, 2, 3, 4, 5, 6, 8}},
      {"guide preset", std::get<aztables::exponential_backoff>(aztables::retry_options::guide_preset().backoff),
       {1, 3, 4}},
  };
  std::mt19937_64 gen(20261121);
  for (const policy& p : policies) {
    const double z = static_cast<double>(p.b.delta.count());
    const double zmin = static_cast<double>(p.b.min_backoff.count());
    const double zmax = static_cast<double>(p.b.max_backoff.count());
    for (int x : p.retries) {
      INFO(p.name << " retry " << x);
      const double k = std::pow(2.0, x) - 1;
      const double lo = std::fmin(zmin + 0.8 * z * k, zmax), hi = std::fmin(zmin + 1.2 * z * k, zmax);
      REQUIRE((hi < zmax || lo == zmax));  // the band does not straddle the cap
      const double expected_mean = std::fmin(zmin + z * k, zmax);
      double sum = 0;
      int out_of_band = 0;
      for (int i = 0; i < 10000; ++i) {
        const double u = std::generate_canonical<double, 53>(gen);
        const double d = static_cast<double>(aztables::backoff_delay(p.b, x, u).count());
        if (d < std::floor(lo) || d > std::ceil(hi)) ++out_of_band;
        sum += d;
      }
      CHECK(out_of_band == 0);
      CHECK(std::fabs(sum / 10000 - expected_mean) <= 0.02 * expected_mean);
    }
  }
}

// ---------------------------------------------------------------------------
// When to stop: attempts, deadline; the per-attempt timeout.

TEST_CASE("retry: stops after max_retries; the error carries the attempt count", "[retry]") {
  fixture f;
  auto tc = f.client(aztables::retry_options::fixed(3, 10ms));
  for (int i = 0; i < 10; ++i) f.t->push(503, error_body("ServerBusy"));
  auto r = tc.upsert(sample());
  REQUIRE(!r);
  CHECK(f.t->request_count() == 4);
  CHECK(r.error().attempts == 4);
  CHECK(r.error().code == errc::throttled);
  CHECK(r.error().to_string().find("after 4 attempts") != std::string::npos);
  REQUIRE(f.attempts.size() == 4);
  CHECK(f.attempts.back().outcome == aztables::attempt_outcome::retries_exhausted);
  CHECK(f.time.sleeps == std::vector<milliseconds>{10ms, 10ms, 10ms});
}

TEST_CASE("retry: none() makes one attempt", "[retry]") {
  fixture f;
  auto tc = f.client(aztables::retry_options::none());
  f.t->push(503, "");
  auto r = tc.upsert(sample());
  REQUIRE(!r);
  CHECK(f.t->request_count() == 1);
  CHECK(f.attempts.at(0).outcome == aztables::attempt_outcome::retries_exhausted);
}

TEST_CASE("retry: the overall deadline stops retries and cuts attempt timeouts", "[retry]") {
  fixture f;
  aztables::retry_options r = aztables::retry_options::fixed(10, 2000ms);
  r.max_elapsed = 5000ms;
  auto o = f.options(r);
  o.attempt_timeout = 30000ms;
  auto tc = aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "orders", o).value();
  // Each attempt takes 500 ms of (fake) time, then fails with a timeout.
  f.t->set_default([&f](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    f.time.t += 500ms;
    aztables::error e = aztables::error::make(errc::transport, "timed out");
    e.failure = transport_failure::timeout;
    return e;
  });
  auto res = tc.upsert(sample());
  REQUIRE(!res);
  // t=0 send, 500 fail, wait 2000; t=2500 send, 3000 fail, 3000 + 2000 >= 5000: stop.
  CHECK(f.t->request_count() == 2);
  CHECK(res.error().attempts == 2);
  CHECK(res.error().failure == transport_failure::timeout);
  CHECK(f.attempts.back().outcome == aztables::attempt_outcome::deadline_exceeded);
  CHECK(f.attempts.back().elapsed == 3000ms);
  auto rq = f.t->requests();
  CHECK(rq[0].timeout == 5000ms);  // min(attempt_timeout, what is left of the deadline)
  CHECK(rq[1].timeout == 2500ms);
}

TEST_CASE("retry: without a deadline each attempt keeps attempt_timeout", "[retry]") {
  fixture f;
  aztables::retry_options r = aztables::retry_options::fixed(1, 0ms);
  r.max_elapsed = 0ms;
  auto o = f.options(r);
  o.attempt_timeout = 1234ms;
  auto tc = aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "orders", o).value();
  f.t->push(500, "");
  f.t->push(204, "");
  REQUIRE(tc.upsert(sample()));
  for (const auto& rq : f.t->requests()) CHECK(rq.timeout == 1234ms);
}

// ---------------------------------------------------------------------------
// The per-attempt hook.

TEST_CASE("retry: the hook sees every attempt: operation, number, status or failure, delay", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push(503, error_body("ServerBusy"));
  f.t->push_failure(transport_failure::timeout, "timed out");
  f.t->push(204, "", {{"ETag", "W/\"2\""}});
  REQUIRE(tc.upsert(sample(), aztables::update_mode::replace));
  REQUIRE(f.attempts.size() == 3);
  CHECK(f.attempts[0].operation == "upsert_replace");
  CHECK(f.attempts[0].attempt == 1);
  CHECK(f.attempts[0].http_status == 503);
  CHECK(f.failures[0].code == errc::throttled);
  CHECK(f.attempts[0].outcome == aztables::attempt_outcome::retrying);
  CHECK(f.attempts[0].delay == 900ms);  // 100 + 800 * 1 (random 0.5)
  CHECK(f.attempts[1].attempt == 2);
  CHECK(f.attempts[1].http_status == 0);
  CHECK(f.failures[1].failure == transport_failure::timeout);
  CHECK(f.attempts[1].delay == 2500ms);  // 100 + 800 * 3
  CHECK(f.attempts[1].elapsed == 900ms);
  CHECK(f.attempts[2].attempt == 3);
  CHECK(f.attempts[2].http_status == 204);
  CHECK(f.attempts[2].failure == nullptr);
  CHECK(f.attempts[2].outcome == aztables::attempt_outcome::succeeded);
  CHECK(f.attempts[2].delay == 0ms);
  CHECK(std::string(aztables::to_string(aztables::attempt_outcome::deadline_exceeded)) == "deadline_exceeded");
}

// ---------------------------------------------------------------------------
// Idempotency: inserts, updates with an ETag, deletes after a lost answer.

TEST_CASE("retry: insert answered 409 after a lost answer, entity as sent: verified success", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push_failure(transport_failure::receive, "connection reset");  // applied, answer lost
  f.t->push(409, error_body("EntityAlreadyExists"), {{"x-ms-error-code", "EntityAlreadyExists"}});
  f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":1,"S":"x"})", {{"ETag", "W/\"read\""}});
  auto r = tc.insert(sample());
  REQUIRE(r);
  CHECK(r->verified_after_retry);
  CHECK(r->etag.str() == "W/\"read\"");
  auto rq = f.t->requests();
  REQUIRE(rq.size() == 3);
  CHECK(rq[0].method == "POST");
  CHECK(rq[1].method == "POST");
  CHECK(rq[2].method == "GET");
  CHECK(rq[2].url.find("orders(PartitionKey='p',RowKey='r')") != std::string::npos);
}

TEST_CASE("retry: insert answered 409 after a lost answer, entity differs: the conflict, flagged", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push_failure(transport_failure::timeout);
  f.t->push(409, error_body("EntityAlreadyExists"), {{"x-ms-error-code", "EntityAlreadyExists"}});
  f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":2,"S":"x"})", {{"ETag", "W/\"other\""}});
  auto r = tc.insert(sample());
  REQUIRE(!r);
  CHECK(r.error().code == errc::conflict);
  CHECK(r.error().http_status == 409);
  CHECK(r.error().service_code == "EntityAlreadyExists");
  CHECK(r.error().attempts == 2);
  CHECK(r.error().may_have_applied);
  CHECK(r.error().message.find("differs") != std::string::npos);
}

TEST_CASE("retry: insert answered 409 after a lost answer, entity now absent: the conflict, flagged", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push(500, error_body("OperationTimedOut"));  // a 500 may have been applied
  f.t->push(409, error_body("EntityAlreadyExists"));
  f.t->push(404, error_body("ResourceNotFound"), {{"x-ms-error-code", "ResourceNotFound"}});
  auto r = tc.insert(sample());
  REQUIRE(!r);
  CHECK(r.error().code == errc::conflict);
  CHECK(r.error().may_have_applied);
  CHECK(r.error().message.find("absent") != std::string::npos);
}

TEST_CASE("retry: insert 409 with no earlier doubt is a plain conflict (no read)", "[retry]") {
  for (int first : {0, 429}) {
    INFO("first answer " << first);
    fixture f;
    auto tc = f.client();
    if (first) f.t->push(first, "");  // 429: throttled before it ran; certainly not applied
    f.t->push(409, error_body("EntityAlreadyExists"));
    auto r = tc.insert(sample());
    REQUIRE(!r);
    CHECK(r.error().code == errc::conflict);
    CHECK_FALSE(r.error().may_have_applied);
    CHECK(f.t->request_count() == (first ? 2u : 1u));
  }
}

TEST_CASE("retry: a transport that re-sent the request counts as an earlier attempt", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push([](const aztables::http_request&) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    r.status = 409;
    r.body = error_body("EntityAlreadyExists");
    r.resent = true;  // libcurl re-sent it on a fresh connection
    return r;
  });
  f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":1,"S":"x"})", {{"ETag", "W/\"read\""}});
  auto r = tc.insert(sample());
  REQUIRE(r);
  CHECK(r->verified_after_retry);
}

TEST_CASE("retry: retry_non_idempotent off: an insert is retried only when it surely did not run", "[retry]") {
  aztables::retry_options careful;
  careful.retry_non_idempotent = false;
  {
    fixture f;
    auto tc = f.client(careful);
    f.t->push(503, error_body("ServerBusy"));
    auto r = tc.insert(sample());
    REQUIRE(!r);
    CHECK(f.t->request_count() == 1);
    CHECK(r.error().may_have_applied);
    CHECK(f.attempts.at(0).outcome == aztables::attempt_outcome::not_idempotent);
  }
  for (bool refused : {true, false}) {
    fixture f;
    auto tc = f.client(careful);
    if (refused) f.t->push_failure(transport_failure::connect, "refused");
    else f.t->push(429, "");
    f.t->push(201, "");
    REQUIRE(tc.insert(sample()));
    CHECK(f.t->request_count() == 2);
  }
  {
    fixture f;  // upserts are idempotent: still retried
    auto tc = f.client(careful);
    f.t->push(503, "");
    f.t->push(204, "");
    REQUIRE(tc.upsert(sample()));
    CHECK(f.t->request_count() == 2);
  }
}

TEST_CASE("retry: with_retry marks a single operation; the client keeps its policy", "[retry]") {
  fixture f;
  auto tc = f.client();
  aztables::retry_options careful = tc.retry_policy();
  careful.retry_non_idempotent = false;
  f.t->push(503, "");
  auto once = tc.with_retry(careful).insert(sample());
  REQUIRE(!once);
  CHECK(f.t->request_count() == 1);
  CHECK(f.attempts.size() == 1);  // the copied policy keeps the hook
  f.t->push(503, "");
  f.t->push(201, "");
  REQUIRE(tc.insert(sample()));
  CHECK(f.t->request_count() == 3);
  CHECK(tc.retry_policy().retry_non_idempotent);
  // Requests of the derived client are signed like the original's.
  auto rq = f.t->requests();
  CHECK(rq[0].headers.find("Authorization")->rfind("SharedKey devstoreaccount1:", 0) == 0);
  CHECK(rq[0].url == rq[1].url);
}

TEST_CASE("retry: update with an ETag answered 412 after a lost answer is verified", "[retry]") {
  {
    fixture f;
    auto tc = f.client();
    aztables::entity e = sample();
    e.etag = aztables::etag("W/\"old\"");
    f.t->push_failure(transport_failure::timeout);
    f.t->push(412, error_body("UpdateConditionNotSatisfied"));
    // merge: the sent properties are stored; another property is fine
    f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":1,"S":"x","Other":true})", {{"ETag", "W/\"new\""}});
    auto r = tc.update(e, aztables::update_mode::merge);
    REQUIRE(r);
    CHECK(r->verified_after_retry);
    CHECK(r->etag.str() == "W/\"new\"");
  }
  {
    fixture f;
    auto tc = f.client();
    aztables::entity e = sample();
    e.etag = aztables::etag("W/\"old\"");
    f.t->push_failure(transport_failure::timeout);
    f.t->push(412, error_body("UpdateConditionNotSatisfied"));
    // replace: an extra property means it is not our write
    f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":1,"S":"x","Other":true})", {{"ETag", "W/\"new\""}});
    auto r = tc.update(e, aztables::update_mode::replace);
    REQUIRE(!r);
    CHECK(r.error().code == errc::precondition_failed);
    CHECK(r.error().may_have_applied);
  }
  {
    fixture f;  // 412 without doubt: plain, no read
    auto tc = f.client();
    aztables::entity e = sample();
    e.etag = aztables::etag("W/\"old\"");
    f.t->push(412, error_body("UpdateConditionNotSatisfied"));
    auto r = tc.update(e);
    REQUIRE(!r);
    CHECK_FALSE(r.error().may_have_applied);
    CHECK(f.t->request_count() == 1);
  }
}

TEST_CASE("retry: delete answered 404 after a lost answer: not_found, flagged", "[retry]") {
  fixture f;
  auto tc = f.client();
  f.t->push_failure(transport_failure::receive, "reset");
  f.t->push(404, error_body("ResourceNotFound"));
  auto r = tc.erase({"p", "r"}, aztables::etag::any());
  REQUIRE(!r);
  CHECK(r.error().code == errc::not_found);
  CHECK(r.error().may_have_applied);
  CHECK(r.error().attempts == 2);
  CHECK(r.error().message.find("may have deleted it") != std::string::npos);
  fixture g;  // without doubt: plain not_found
  auto tc2 = g.client();
  g.t->push(404, error_body("ResourceNotFound"));
  auto r2 = tc2.erase({"p", "r"}, aztables::etag::any());
  REQUIRE(!r2);
  CHECK_FALSE(r2.error().may_have_applied);
}

TEST_CASE("retry: reads never claim to have applied anything", "[retry]") {
  fixture f;
  auto tc = f.client(aztables::retry_options::fixed(1, 0ms));
  f.t->push_failure(transport_failure::timeout);
  f.t->push_failure(transport_failure::timeout);
  auto r = tc.get({"p", "r"});
  REQUIRE(!r);
  CHECK(r.error().attempts == 2);
  CHECK_FALSE(r.error().may_have_applied);
}

// ---------------------------------------------------------------------------
// Replacing decisions; validation; presets.

TEST_CASE("retry: a custom classification replaces the default", "[retry]") {
  fixture f;
  aztables::retry_options r;
  std::vector<int> seen_attempts;
  r.is_retryable = [&](const aztables::error& e) {
    seen_attempts.push_back(e.attempts);
    return e.http_status == 404 && e.attempts < 3;
  };
  auto tc = f.client(r);
  for (int i = 0; i < 5; ++i) f.t->push(404, error_body("ResourceNotFound"));
  auto res = tc.upsert(sample());
  REQUIRE(!res);
  CHECK(f.t->request_count() == 3);
  CHECK(seen_attempts == std::vector<int>{1, 2, 3});
  CHECK(f.attempts.back().outcome == aztables::attempt_outcome::not_retryable);
}

TEST_CASE("retry: a bad policy is an invalid_argument error, before anything is sent", "[retry]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  auto make = [&](aztables::retry_options r) {
    auto o = aztables_test::fake_options(t);
    o.retry = std::move(r);
    return aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "orders", o);
  };
  aztables::retry_options neg;
  neg.max_retries = -1;
  auto c1 = make(neg);
  REQUIRE(!c1);
  CHECK(c1.error().code == errc::invalid_argument);
  CHECK(c1.error().message.find("retry.max_retries") != std::string::npos);
  CHECK(!make(aztables::retry_options::exponential(3, 100ms, 500ms, 200ms)));   // z_max < z_min
  CHECK(!make(aztables::retry_options::fixed(3, -1ms)));
  aztables::retry_options no_fn;
  no_fn.backoff = aztables::custom_backoff{};
  CHECK(!make(no_fn));
  aztables::retry_options neg_deadline;
  neg_deadline.max_elapsed = -1ms;
  CHECK(!make(neg_deadline));
  // with_retry: checked when the call is made.
  auto tc = make({}).value();
  auto r = tc.with_retry(neg).upsert(sample());
  REQUIRE(!r);
  CHECK(r.error().code == errc::invalid_argument);
  CHECK(t->request_count() == 0);
}

TEST_CASE("retry: presets", "[retry]") {
  const aztables::retry_options d;
  CHECK(d.max_retries == 4);
  CHECK(d.max_elapsed == 120000ms);
  CHECK(d.retry_non_idempotent);
  const auto& x = std::get<aztables::exponential_backoff>(d.backoff);
  CHECK(x.delta == 800ms);
  CHECK(x.min_backoff == 100ms);
  CHECK(x.max_backoff == 30000ms);
  const auto g = aztables::retry_options::guide_preset();
  const auto& gx = std::get<aztables::exponential_backoff>(g.backoff);
  CHECK(gx.delta == 30000ms);
  CHECK(gx.min_backoff == 3000ms);
  CHECK(gx.max_backoff == 90000ms);
  CHECK(aztables::retry_options::none().max_retries == 0);
  CHECK(std::holds_alternative<aztables::fixed_backoff>(aztables::retry_options::fixed(2, 5ms).backoff));
}

// ---------------------------------------------------------------------------
// Batches: a conflict after a lost answer is verified by reading back.

namespace {
aztables::http_response batch_failure(int status, const std::string& code, int index) {
  const std::string nl = "\r\n";
  std::string body = "--batchresponse_x" + nl + "Content-Type: multipart/mixed; boundary=changesetresponse_y" + nl + nl +
                     "--changesetresponse_y" + nl + "Content-Type: application/http" + nl +
                     "Content-Transfer-Encoding: binary" + nl + nl + "HTTP/1.1 " + std::to_string(status) + " Err" + nl +
                     "Content-ID: " + std::to_string(index + 1) + nl +
                     "Content-Type: application/json;odata=minimalmetadata;charset=utf-8" + nl + nl +
                     R"({"odata.error":{"code":")" + code + R"(","message":{"lang":"en-US","value":")" +
                     std::to_string(index) + R"(:m"}}})" + nl + "--changesetresponse_y--" + nl + "--batchresponse_x--" + nl;
  aztables::http_response r;
  r.status = 202;
  r.headers.add("Content-Type", "multipart/mixed; boundary=batchresponse_x");
  r.body = body;
  return r;
}
void push_response(aztables_test::fake_transport& t, aztables::http_response r) {
  t.push([r](const aztables::http_request&) -> aztables::result<aztables::http_response> { return r; });
}
}  // namespace

TEST_CASE("retry: a batch failing after a lost answer is verified; all applied -> success, flagged", "[retry][batch]") {
  fixture f;
  auto tc = f.client();
  aztables::batch b(tc);
  b.insert(sample());
  b.erase({"p", "gone"}, aztables::etag::any());
  f.t->push_failure(transport_failure::receive, "reset");   // applied, answer lost
  push_response(*f.t, batch_failure(409, "EntityAlreadyExists", 0));
  f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":1,"S":"x"})", {{"ETag", "W/\"a\""}});
  f.t->push(404, error_body("ResourceNotFound"));
  auto r = b.submit();
  REQUIRE(r);
  CHECK(r->verified_after_retry);
  REQUIRE(r->actions.size() == 2);
  CHECK(r->actions[0].etag.str() == "W/\"a\"");
  CHECK(r->actions[1].etag.empty());
  auto rq = f.t->requests();
  REQUIRE(rq.size() == 4);
  CHECK(rq[2].method == "GET");
  CHECK(rq[3].method == "GET");
}

TEST_CASE("retry: a batch failing after a lost answer that the table does not show: the failure, flagged",
          "[retry][batch]") {
  fixture f;
  auto tc = f.client();
  aztables::batch b(tc);
  b.insert(sample());
  b.erase({"p", "gone"}, aztables::etag::any());
  f.t->push_failure(transport_failure::timeout);
  push_response(*f.t, batch_failure(409, "EntityAlreadyExists", 0));
  f.t->push(200, R"({"PartitionKey":"p","RowKey":"r","N":7})", {{"ETag", "W/\"a\""}});
  auto r = b.submit();
  REQUIRE(!r);
  CHECK(r.error().code == errc::conflict);
  CHECK(r.error().action_index == std::optional<std::size_t>(0));
  CHECK(r.error().may_have_applied);
  CHECK(r.error().message.find("does not show") != std::string::npos);
}

TEST_CASE("retry: a batch conflict without an earlier doubt is a plain failure (no reads)", "[retry][batch]") {
  fixture f;
  auto tc = f.client();
  aztables::batch b(tc);
  b.insert(sample());
  push_response(*f.t, batch_failure(409, "EntityAlreadyExists", 0));
  auto r = b.submit();
  REQUIRE(!r);
  CHECK_FALSE(r.error().may_have_applied);
  CHECK(f.t->request_count() == 1);
}

TEST_CASE("retry: a batch whose retries run out is flagged may_have_applied", "[retry][batch]") {
  fixture f;
  auto tc = f.client(aztables::retry_options::fixed(1, 0ms));
  aztables::batch b(tc);
  b.insert(sample());
  f.t->push(503, error_body("ServerBusy"));
  f.t->push_failure(transport_failure::timeout);
  auto r = b.submit();
  REQUIRE(!r);
  CHECK(r.error().attempts == 2);
  CHECK(r.error().may_have_applied);
}

TEST_CASE("retry: a batch of deletes answered 404 after a lost answer cannot be verified: flagged", "[retry][batch]") {
  fixture f;
  auto tc = f.client();
  aztables::batch b(tc);
  b.erase({"p", "a"}, aztables::etag::any());
  b.erase({"p", "b"}, aztables::etag::any());
  f.t->push_failure(transport_failure::receive, "reset");
  push_response(*f.t, batch_failure(404, "ResourceNotFound", 0));
  f.t->push(404, error_body("ResourceNotFound"));
  f.t->push(404, error_body("ResourceNotFound"));
  auto r = b.submit();
  REQUIRE(!r);
  CHECK(r.error().code == errc::not_found);
  CHECK(r.error().may_have_applied);
  CHECK(r.error().message.find("cannot be verified") != std::string::npos);
}

TEST_CASE("retry: a with_retry client shares the token cache (one provider call; a 401 drops it for both)",
          "[retry]") {
  auto t = std::make_shared<aztables_test::fake_transport>();
  int calls = 0;
  aztables::bearer_credential cred;
  cred.provider = [&calls](std::string_view) -> aztables::result<aztables::access_token> {
    ++calls;
    return aztables::access_token{"tok" + std::to_string(calls), fixed_now + std::chrono::hours(1)};
  };
  auto o = aztables_test::fake_options(t, fixed_now);
  auto tc = aztables::table_client::create("http://127.0.0.1:10002/devstoreaccount1", cred, "orders", o).value();
  aztables::retry_options careful = tc.retry_policy();
  careful.retry_non_idempotent = false;
  auto derived = tc.with_retry(careful);
  t->push(204, "");
  t->push(204, "");
  REQUIRE(tc.upsert(sample()));
  REQUIRE(derived.upsert(sample()));
  CHECK(calls == 1);
  t->push(401, error_body("InvalidAuthenticationInfo"));
  REQUIRE(!derived.upsert(sample()));
  t->push(204, "");
  REQUIRE(tc.upsert(sample()));  // the original client fetches a fresh token too
  CHECK(calls == 2);
  auto rq = t->requests();
  CHECK(*rq.back().headers.find("Authorization") == "Bearer tok2");
}
