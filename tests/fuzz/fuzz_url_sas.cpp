// Endpoint URLs, percent-decoding, SAS tokens, key ranges, entity paths and
// redaction. Properties: an endpoint that parses re-parses from its base URL
// to the same endpoint; key-path escaping round-trips; redact() is idempotent.
#include "fuzz_common.hpp"

#include <aztables/detail/redact.hpp>
#include <aztables/detail/sas_check.hpp>
#include <aztables/detail/sas_token.hpp>
#include <aztables/detail/url.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string a = in.ConsumeRandomLengthString(256);
  const std::string b = in.ConsumeRandomLengthString(256);
  const std::string rest = in.ConsumeRemainingBytesAsString();

  if (auto ep = aztables::detail::parse_endpoint(a)) {
    auto again = aztables::detail::parse_endpoint(ep->base_url());
    FUZZ_ASSERT(again);
    FUZZ_ASSERT(again->base_url() == ep->base_url());
    FUZZ_ASSERT(again->is_loopback() == ep->is_loopback());
    (void)aztables::detail::account_from_host(*ep);
  }
  (void)aztables::detail::percent_decode(rest, true);

  if (auto t = aztables::detail::parse_sas_token(rest)) {
    FUZZ_ASSERT(!t->get("sig").empty());
    auto range = aztables::detail::sas_key_range::from(*t);
    (void)range.contains(a, b);
    (void)range.describe();
    (void)aztables::detail::check_sas_key_range(range, "GET", aztables::detail::entity_path("t", a, b), "");
  }
  const int c1 = aztables::detail::compare_keys(a, b), c2 = aztables::detail::compare_keys(b, a);
  FUZZ_ASSERT(c1 == -c2);
  FUZZ_ASSERT((c1 == 0) == (a == b));

  std::string pk, rk;
  FUZZ_ASSERT(aztables::detail::keys_from_entity_path(aztables::detail::entity_path("t", a, b), pk, rk));
  FUZZ_ASSERT(pk == a && rk == b);
  (void)aztables::detail::keys_from_entity_path(rest, pk, rk);

  const std::string r1 = aztables::detail::redact(rest);
  FUZZ_ASSERT(aztables::detail::redact(r1) == r1);
  std::string s = rest;
  aztables::detail::scrub(s, {a, b});
  bool lower = a.size() >= 8;
  for (char c : a) lower = lower && c >= 'a' && c <= 'z';
  if (lower) FUZZ_ASSERT(s.find(a) == std::string::npos);  // REDACTED is upper case: no new match can form
  return 0;
}
