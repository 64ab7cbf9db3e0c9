// Shared helpers for the libFuzzer targets (tests/fuzz/fuzz_*.cpp).
// Each target feeds hostile bytes to one parser we own and checks what must
// hold for any input: no crash, no leak, no undefined behaviour (the
// sanitizers), and properties stated per target (round trips, bounds).
#pragma once

#include <aztables/aztables.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

/// Aborts (a crash libFuzzer reports with the input) when a stated property fails.
#define FUZZ_ASSERT(cond)                                                          \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

namespace fuzz {

/// A fixed "now" (2026-11-21T13:26:15Z) so every run is reproducible.
inline std::chrono::system_clock::time_point fixed_now() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1795353975));
}

/// A transport that answers from the fuzz input: status, a few headers
/// (continuations, ETag, error code, retry hints) and a body; sometimes a
/// transport failure. After 64 calls or the end of the input: connect errors.
class scripted_transport : public aztables::transport {
 public:
  explicit scripted_transport(FuzzedDataProvider& in) : in_(in) {}
  aztables::result<aztables::http_response> send(const aztables::http_request&) override {
    if (++calls_ > 64 || in_.remaining_bytes() == 0) {
      aztables::error e = aztables::error::make(aztables::errc::transport, "script ended");
      e.failure = aztables::transport_failure::connect;
      return e;
    }
    if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) {
      aztables::error e = aztables::error::make(aztables::errc::transport, in_.ConsumeRandomLengthString(64));
      e.failure = static_cast<aztables::transport_failure>(in_.ConsumeIntegralInRange<int>(0, 8));
      return e;
    }
    aztables::http_response r;
    static const int statuses[] = {200, 201, 204, 400, 403, 404, 409, 412, 429, 500, 503};
    r.status = in_.ConsumeBool() ? statuses[in_.ConsumeIntegralInRange<int>(0, 10)]
                                 : in_.ConsumeIntegralInRange<int>(0, 999);
    static const char* names[] = {"x-ms-continuation-NextTableName", "ETag", "x-ms-error-code", "x-ms-request-id",
                                  "Retry-After", "x-ms-retry-after-ms", "Content-Type",
                                  "x-ms-continuation-NextPartitionKey", "x-ms-continuation-NextRowKey"};
    const int n = in_.ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < n; ++i)
      r.headers.add(names[in_.ConsumeIntegralInRange<int>(0, 8)], in_.ConsumeRandomLengthString(64));
    r.body = in_.ConsumeRandomLengthString(4096);
    return r;
  }

 private:
  FuzzedDataProvider& in_;
  int calls_ = 0;
};

}  // namespace fuzz
