// A user's program: parses a connection string, writes and reads an entity
// through an in-process transport (no network), checks that the built-in curl
// transport links, and, when AZTABLES_TEST_CONNECTION_STRING is set (Azurite),
// does a real round trip. Prints "consumer: ok" and exits 0 on success.
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

// Answers an insert with 204 and a point read with the entity that was sent.
class echo_transport : public aztables::transport {
 public:
  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    aztables::http_response r;
    if (rq.method == "POST") {
      last_body_ = rq.body;
      r.status = 204;
      r.headers.add("ETag", "W/\"datetime'2024-01-01T00%3A00%3A00Z'\"");
    } else {
      r.status = 200;
      r.body = last_body_;
    }
    return r;
  }
  std::string last_body_;
};

}  // namespace

int main() {
  auto cfg = aztables::parse_connection_string("UseDevelopmentStorage=true");
  check(cfg && cfg->account_name == "devstoreaccount1", "parse UseDevelopmentStorage=true");

  aztables::client_options opt;
  auto echo = std::make_shared<echo_transport>();
  opt.transport = echo;
  auto table = aztables::table_client::from_connection_string("UseDevelopmentStorage=true", "consumer", opt);
  check(bool(table), "table_client::from_connection_string");
  if (!table) return 1;

  aztables::entity e("p", "r");
  e.set("Name", "consumer").set("Count", std::int64_t{1} << 40).set("Ratio", 0.5).set("Flag", true);
  check(bool(table->insert(e)), "insert (JSON writer, SharedKey signing via OpenSSL)");
  check(echo->last_body_.find("\"Count@odata.type\":\"Edm.Int64\"") != std::string::npos, "Int64 annotated");
  auto got = table->get({"p", "r"});
  check(got && *got && **got == e, "get (simdjson reader) returns the same entity");

  auto curl = aztables::make_curl_transport();
  check(curl != nullptr, "make_curl_transport (libcurl)");

  if (const char* cs = std::getenv("AZTABLES_TEST_CONNECTION_STRING"); cs && *cs) {
    auto svc = aztables::service_client::from_connection_string(cs);
    check(bool(svc), "service_client from AZTABLES_TEST_CONNECTION_STRING");
    if (svc) {
      const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
      const std::string name = "consumer" + std::to_string(static_cast<long long>(now % 1000000007));
      check(bool(svc->create_table(name)), "create_table on Azurite");
      auto t = svc->table(name);
      check(bool(t.insert(e)), "insert on Azurite");
      auto back = t.get({"p", "r"});
      check(back && *back && **back == e, "get on Azurite");
      check(bool(svc->delete_table(name)), "delete_table on Azurite");
      std::printf("consumer: Azurite round trip done\n");
    }
  }

  if (failures) return 1;
  std::printf("consumer: ok (aztables %s)\n", AZTABLES_VERSION_STRING);
  return 0;
}
