// Shared helpers for the aztables tests.
#pragma once

#include <aztables/aztables.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace aztables_test {

/// The Azurite connection string set by tests/run.sh. Without it the test
/// process exits with 77, which ctest reports as skipped (never a false pass).
inline std::string azurite_connection_string() {
  const char* cs = std::getenv("AZTABLES_TEST_CONNECTION_STRING");
  if (!cs || !*cs) {
    std::fprintf(stderr,
                 "SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set; run ./tests/run.sh, which starts Azurite\n");
    std::exit(77);
  }
  return cs;
}

/// The Azurite endpoint (http://127.0.0.1:PORT/devstoreaccount1).
inline std::string azurite_endpoint() {
  azurite_connection_string();
  const char* ep = std::getenv("AZTABLES_TEST_ENDPOINT");
  return ep ? ep : "";
}

inline aztables::service_client azurite_service(aztables::client_options opt = {}) {
  return aztables::service_client::from_connection_string(azurite_connection_string(), std::move(opt)).value();
}

/// A table name unique to this process and call ("t" + prefix + pid + counter).
inline std::string unique_table_name(const std::string& prefix = "t") {
  static std::atomic<int> counter{0};
  std::string p;
  for (char c : prefix)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) p += c;
  if (p.empty() || !((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))) p = "t" + p;
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  std::string name = p + std::to_string(static_cast<long long>(now % 1000000007)) + "n" + std::to_string(counter++);
  return name.substr(0, 63);
}

/// Creates a fresh table and deletes it when the scope ends.
class scoped_table {
 public:
  explicit scoped_table(aztables::service_client svc, const std::string& prefix = "t")
      : svc_(std::move(svc)), name_(unique_table_name(prefix)) {
    svc_.create_table(name_).value();
  }
  ~scoped_table() { (void)svc_.delete_table_if_exists(name_); }
  scoped_table(const scoped_table&) = delete;
  scoped_table& operator=(const scoped_table&) = delete;
  const std::string& name() const { return name_; }
  aztables::table_client client() const { return svc_.table(name_); }
  aztables::service_client& service() { return svc_; }

 private:
  aztables::service_client svc_;
  std::string name_;
};

/// A transport that records requests and replays canned responses (or
/// transport errors) in order. Thread-safe.
class fake_transport : public aztables::transport {
 public:
  using responder = std::function<aztables::result<aztables::http_response>(const aztables::http_request&)>;

  /// Queues a response.
  void push(int status, std::string body = {}, std::vector<aztables::http_header> headers = {}) {
    aztables::http_response r;
    r.status = status;
    r.body = std::move(body);
    for (auto& h : headers) r.headers.add(h.name, h.value);
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back([r](const aztables::http_request&) -> aztables::result<aztables::http_response> { return r; });
  }
  /// Queues a transport failure.
  void push_failure(aztables::transport_failure f, std::string message = "injected") {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back([f, message](const aztables::http_request&) -> aztables::result<aztables::http_response> {
      aztables::error e = aztables::error::make(aztables::errc::transport, message);
      e.failure = f;
      return e;
    });
  }
  /// Queues an arbitrary responder.
  void push(responder r) {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(r));
  }
  /// Used when the queue is empty (default: 200 with "{}").
  void set_default(responder r) {
    std::lock_guard<std::mutex> lk(mu_);
    default_ = std::move(r);
  }

  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    responder r;
    {
      std::lock_guard<std::mutex> lk(mu_);
      requests_.push_back(rq);
      if (!queue_.empty()) {
        r = std::move(queue_.front());
        queue_.pop_front();
      } else {
        r = default_;
      }
    }
    if (r) return r(rq);
    aztables::http_response ok;
    ok.status = 200;
    ok.body = "{}";
    return ok;
  }

  std::vector<aztables::http_request> requests() const {
    std::lock_guard<std::mutex> lk(mu_);
    return requests_;
  }
  std::size_t request_count() const {
    std::lock_guard<std::mutex> lk(mu_);
    return requests_.size();
  }

 private:
  mutable std::mutex mu_;
  std::deque<responder> queue_;
  responder default_;
  std::vector<aztables::http_request> requests_;
};

/// Options wired to a fake transport, a fixed clock and no real sleeping.
inline aztables::client_options fake_options(std::shared_ptr<fake_transport> t,
                                             std::chrono::system_clock::time_point fixed_now =
                                                 std::chrono::system_clock::time_point(std::chrono::seconds(1795000000))) {
  aztables::client_options o;
  o.transport = std::move(t);
  o.clock = [fixed_now] { return fixed_now; };
  o.retry.sleep = [](std::chrono::milliseconds) {};
  o.retry.random = [] { return 0.5; };
  return o;
}

/// The emulator's shared key connection string for an arbitrary endpoint.
inline std::string dev_connection_string(const std::string& endpoint = "http://127.0.0.1:10002/devstoreaccount1") {
  return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" +
         std::string(aztables::development_account_key) + ";TableEndpoint=" + endpoint + ";";
}

}  // namespace aztables_test
