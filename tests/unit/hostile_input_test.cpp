// Regressions for what the fuzzers (tests/fuzz) found, kept as plain unit
// tests so every build checks them (and the ASan stage runs them).
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/detail/client_core.hpp>

TEST_CASE("fuzz_retry_after: dates system_clock cannot hold are not hints (no overflow)", "[hostile]") {
  CHECK_FALSE(aztables::detail::parse_rfc1123("Sun, 06 Nov 0997 08:49:37 GMT"));
  CHECK_FALSE(aztables::detail::parse_rfc1123("Fri, 31 Dec 9999 23:59:59 GMT"));
  CHECK(aztables::detail::parse_rfc1123("Sun, 06 Nov 1994 08:49:37 GMT"));
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795353975));  // 2026-11-21
  aztables::http_headers far;
  far.add("Retry-After", "Mon, 01 Jan 2200 00:00:00 GMT");
  auto hint = aztables::detail::retry_hint(far, now);
  REQUIRE(hint);
  CHECK(hint->count() == 100000000LL * 1000);  // capped at 1e8 s
  aztables::http_headers past;
  past.add("Retry-After", "Sat, 01 Jan 1700 00:00:00 GMT");
  CHECK(aztables::detail::retry_hint(past, now) == std::chrono::milliseconds(0));
}

TEST_CASE("fuzz_connection_string: EndpointSuffix must be host-name characters", "[hostile]") {
  for (const char* suffix : {"core.window:s.net", "core windows net", ".core.windows.net", "core.windows.net?x", "a@b"}) {
    INFO(suffix);
    auto r = aztables::parse_connection_string(std::string("AccountName=acct;AccountKey=a2V5;EndpointSuffix=") + suffix);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_argument);
    CHECK(r.error().message.find("EndpointSuffix") != std::string::npos);
  }
  auto ok = aztables::parse_connection_string("AccountName=acct;AccountKey=a2V5;EndpointSuffix=core.chinacloudapi.cn");
  REQUIRE(ok);
  CHECK(ok->table_endpoint == "https://acct.table.core.chinacloudapi.cn");
}
