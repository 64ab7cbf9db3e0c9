// Retry policy: plug in your own decisions, log every attempt, and see what
// the SDK does when an answer is lost. A small transport decorator plays the
// unreliable network: it answers 503 without sending, or sends and then
// "loses" the answer. Run against Azurite (./examples/run.sh builds and starts
// one; or set AZTABLES_CONNECTION_STRING).
#include <aztables/aztables.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

using namespace std::chrono_literals;

// Faults to inject into the next requests, in order.
enum class fault { busy, lose_answer };

class flaky_transport : public aztables::transport {
 public:
  void inject(fault f) {
    std::lock_guard<std::mutex> lk(mu_);
    next_.push_back(f);
  }
  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    std::optional<fault> f;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!next_.empty()) {
        f = next_.front();
        next_.pop_front();
      }
    }
    if (f == fault::busy) {  // not sent: the service is "busy"
      aztables::http_response r;
      r.status = 503;
      r.headers.add("x-ms-error-code", "ServerBusy");
      r.headers.add("Retry-After", "1");
      return r;
    }
    auto r = inner_->send(rq);
    if (f == fault::lose_answer) {  // sent and applied, but the answer never arrives
      aztables::error e = aztables::error::make(aztables::errc::transport, "connection reset (injected)");
      e.failure = aztables::transport_failure::receive;
      return e;
    }
    return r;
  }

 private:
  std::shared_ptr<aztables::transport> inner_ = aztables::make_curl_transport();
  std::mutex mu_;
  std::deque<fault> next_;
};

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto net = std::make_shared<flaky_transport>();

  // [snippet:retry-custom-policy]
  aztables::retry_options policy = aztables::retry_options::exponential(6, 200ms, 50ms, 5s);  // z, z_min, z_max
  policy.max_elapsed = 30s;  // overall deadline of one operation (attempts and waits)
  // Decision 1: also retry the real service's "table is still being deleted".
  policy.is_retryable = [](const aztables::error& e) {
    return aztables::default_is_retryable(e) || e.service_code == "TableBeingDeleted";
  };
  // Decision 2: follow server hints up to 2 s, else a linear 100 ms per retry.
  policy.backoff = aztables::custom_backoff{[](const aztables::backoff_input& in) {
    if (in.server_hint) return std::min<std::chrono::milliseconds>(*in.server_hint, 2s);
    return std::chrono::milliseconds(100 * in.retry);
  }};
  // Every attempt, for logs and metrics.
  policy.on_attempt = [](const aztables::attempt_info& a) {
    std::printf("  %-13s attempt %d: %s -> %s", std::string(a.operation).c_str(), a.attempt,
                a.failure ? a.failure->to_string().c_str() : std::to_string(a.http_status).c_str(),
                aztables::to_string(a.outcome));
    if (a.outcome == aztables::attempt_outcome::retrying) std::printf(" in %lld ms", static_cast<long long>(a.delay.count()));
    std::printf("\n");
  };
  aztables::client_options options;
  options.retry = policy;
  // [/snippet:retry-custom-policy]
  options.transport = net;

  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true", options);
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string name = "retrydemo" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 100000000);
  std::printf("create table %s\n", name.c_str());
  if (auto r = service->create_table(name); !r) {
    std::fprintf(stderr, "create_table failed: %s\n", r.error().to_string().c_str());
    return 1;
  }
  aztables::table_client orders = service->table(name);
  int rc = 0;

  std::printf("1. the service is busy once: retried after its Retry-After hint (capped at 2 s)\n");
  net->inject(fault::busy);
  aztables::entity a("customer-1", "order-1");
  a.set("Total", 10.5);
  if (!orders.insert(a)) rc = 1;

  std::printf("2. an insert is applied but its answer is lost: the retry gets 409, the SDK reads it back\n");
  net->inject(fault::lose_answer);
  aztables::entity b("customer-1", "order-2");
  b.set("Total", 99.0);
  auto rb = orders.insert(b);
  if (rb) std::printf("   inserted; verified_after_retry = %s\n", rb->verified_after_retry ? "true" : "false");
  else rc = 1;

  std::printf("3. the same for one call that must not repeat an insert (retry_non_idempotent = false)\n");
  net->inject(fault::lose_answer);
  aztables::entity e("customer-1", "order-3");
  // [snippet:retry-one-call]
  aztables::retry_options careful = orders.retry_policy();
  careful.retry_non_idempotent = false;  // an insert that may have been applied is not repeated
  auto r = orders.with_retry(careful).insert(e);
  // [/snippet:retry-one-call]
  if (!r && r.error().may_have_applied)
    std::printf("   not repeated: %s\n   -> check with a read before writing again\n", r.error().to_string().c_str());
  else rc = 1;

  std::printf("4. a delete whose answer is lost: the retry gets 404, reported as not_found with may_have_applied\n");
  net->inject(fault::lose_answer);
  auto rd = orders.erase({"customer-1", "order-1"}, aztables::etag::any());
  if (!rd) std::printf("   %s\n", rd.error().to_string().c_str());

  (void)service->delete_table(name);
  std::printf("deleted table %s\n", name.c_str());
  return rc;
}
