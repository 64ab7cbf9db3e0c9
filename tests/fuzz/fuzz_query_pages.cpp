// Query pages and continuations: dynamic (aztables::entity) and typed
// (a mapped struct with every member kind) pagers over a transport that
// answers with fuzzed pages, x-ms-continuation-NextPartitionKey/NextRowKey
// headers and errors, optionally resumed from a fuzzed resume token.
// Properties: a pager ends; a page that decodes has a token that resumes.
#include "fuzz_common.hpp"

#include <typed_models.hpp>

namespace {

template <class T>
void run(FuzzedDataProvider& in, aztables::table_client& tc, aztables::query q) {
  auto p = tc.query<T>(std::move(q));
  for (int i = 0; i < 8 && !p.done(); ++i) {
    auto pg = p.next_page();
    if (!pg) {
      (void)pg.error().to_string();
      if (in.ConsumeBool()) break;
      continue;
    }
    if (!pg->token.empty()) {
      // A token we produced must be accepted back (it may fail later on the wire, not on parsing).
      auto again = tc.query<T>(aztables::query::table_scan().resume(pg->token));
      (void)again.done();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int mode = in.ConsumeIntegralInRange<int>(0, 3);
  const std::string token = mode >= 2 ? in.ConsumeRandomLengthString(256) : std::string();
  auto t = std::make_shared<fuzz::scripted_transport>(in);
  aztables::client_options o;
  o.transport = t;
  o.clock = fuzz::fixed_now;
  o.retry = aztables::retry_options::fixed(1, std::chrono::milliseconds(1));
  o.retry.sleep = [](std::chrono::milliseconds) {};
  auto svc = aztables::service_client::create(
      "https://devstoreaccount1.table.core.windows.net",
      aztables::shared_key_credential("devstoreaccount1", std::string(aztables::development_account_key)), o);
  FUZZ_ASSERT(svc);
  auto tc = svc->table("orders");
  aztables::query q = mode == 1 ? aztables::query::row_range("p", aztables::key_range::prefix("a")).page_size(5)
                                : aztables::query::table_scan().limit(50);
  if (!token.empty()) q.resume(token);
  if (mode % 2 == 0) run<aztables::entity>(in, tc, std::move(q));
  else run<typed_models::everything>(in, tc, std::move(q));
  return 0;
}
