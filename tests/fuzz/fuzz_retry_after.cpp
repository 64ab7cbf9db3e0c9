// Server retry hints: x-ms-retry-after-ms, retry-after-ms, Retry-After
// (seconds or an HTTP date). Property: a hint is never negative.
#include "fuzz_common.hpp"

#include <aztables/detail/client_core.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  aztables::http_headers h;
  static const char* names[] = {"x-ms-retry-after-ms", "retry-after-ms", "Retry-After", "RETRY-AFTER"};
  while (in.remaining_bytes() > 0) {
    const char* name = names[in.ConsumeIntegralInRange<int>(0, 3)];
    h.add(name, in.ConsumeRandomLengthString(64));
  }
  auto now = fuzz::fixed_now();
  if (auto hint = aztables::detail::retry_hint(h, now)) FUZZ_ASSERT(hint->count() >= 0);
  for (const auto& x : h) (void)aztables::detail::parse_rfc1123(x.value);
  return 0;
}
