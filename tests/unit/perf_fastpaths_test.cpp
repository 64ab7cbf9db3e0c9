// Fast paths added for the benchmark targets (tests/bench): each one checked
// against a plain reference implementation, on random and edge inputs, so the
// speed-ups cannot change a byte of behaviour.
#include <aztables/detail/codec.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/json_reader.hpp>

#include <catch2/catch.hpp>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace az = aztables;

namespace {

// The straightforward decoder the table-driven one replaced.
bool reference_base64_decode(std::string_view s, az::binary& out) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  if (s.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < s.size(); i += 4) {
    int a = val(s[i]), b = val(s[i + 1]);
    if (a < 0 || b < 0) return false;
    bool last = i + 4 == s.size();
    int c = s[i + 2] == '=' && last ? -2 : val(s[i + 2]);
    int d = s[i + 3] == '=' && last ? -2 : val(s[i + 3]);
    if (c == -1 || d == -1 || (c == -2 && d != -2)) return false;
    std::uint32_t v = (std::uint32_t(a) << 18) | (std::uint32_t(b) << 12);
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    if (c >= 0) {
      v |= std::uint32_t(c) << 6;
      out.push_back(static_cast<std::uint8_t>((v >> 8) & 0xff));
      if (d >= 0) {
        v |= std::uint32_t(d);
        out.push_back(static_cast<std::uint8_t>(v & 0xff));
      }
    }
  }
  return true;
}

}  // namespace

TEST_CASE("fast paths: base64 decode agrees with the reference on round trips and corruptions") {
  std::mt19937_64 rng(12345);
  for (std::size_t len = 0; len < 200; ++len) {
    az::binary bytes(len);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    std::string text;
    az::detail::base64_encode_to(text, bytes.data(), bytes.size());
    az::binary got, want;
    REQUIRE(az::detail::base64_decode_to(text, got));
    REQUIRE(got == bytes);
    // Corrupt one position with a character from a hostile set; both decoders must agree.
    static const char bad[] = {'=', '-', '_', ' ', '\0', '\x80', '*', 'A', '/'};
    for (int k = 0; k < 4 && !text.empty(); ++k) {
      std::string t = text;
      t[rng() % t.size()] = bad[rng() % sizeof bad];
      const bool a = az::detail::base64_decode_to(t, got), b = reference_base64_decode(t, want);
      REQUIRE(a == b);
      if (a) REQUIRE(got == want);
    }
  }
  az::binary out;
  CHECK_FALSE(az::detail::base64_decode_to("abc", out));       // length
  CHECK_FALSE(az::detail::base64_decode_to("ab=c", out));      // '=' then data
  CHECK_FALSE(az::detail::base64_decode_to("a===", out));      // too much padding
  CHECK_FALSE(az::detail::base64_decode_to("ab==abcd", out));  // padding before the end
  REQUIRE(az::detail::base64_decode_to("", out));
  CHECK(out.empty());
  REQUIRE(az::detail::base64_decode_to("AQID/w==", out));
  CHECK(out == az::binary{1, 2, 3, 255});
}

TEST_CASE("fast paths: read_entity's reused scratch keeps entities independent") {
  // Entities of different sizes and annotation orders, read one after another
  // on one thread (the scratch and the size hint carry over between them).
  std::string body =
      R"({"value":[)"
      R"({"PartitionKey":"p","RowKey":"1","A":"x","B@odata.type":"Edm.Int64","B":"5","C":1.5},)"
      R"({"PartitionKey":"p","RowKey":"2","N":7,"N@odata.type":"Edm.Int64","G":"c9da6455-213d-42c9-9a79-3e9149a57833","G@odata.type":"Edm.Guid"},)"
      R"({"PartitionKey":"p","RowKey":"3"},)"
      R"({"PartitionKey":"p","RowKey":"4","A":"y","B":"not annotated"}]})";
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  REQUIRE_FALSE(parser.iterate(az::detail::padded_view(body)).get(doc));
  simdjson::ondemand::array arr;
  REQUIRE_FALSE(doc["value"].get_array().get(arr));
  std::vector<az::entity> out;
  for (auto item : arr) {
    simdjson::ondemand::object o;
    REQUIRE_FALSE(item.get_object().get(o));
    out.emplace_back();
    auto err = az::detail::read_entity(o, out.back());
    REQUIRE_FALSE(err);
  }
  REQUIRE(out.size() == 4);
  CHECK(out[0].size() == 3);
  CHECK(*out[0].get("B")->as_int64() == 5);
  CHECK(*out[0].get("C")->as_double() == 1.5);
  CHECK(out[1].size() == 2);
  CHECK(*out[1].get("N")->as_int64() == 7);  // number before its annotation
  CHECK(out[1].get("G")->type() == az::edm::guid);
  CHECK(out[2].empty());
  CHECK(out[3].size() == 2);
  CHECK(*out[3].get("B")->as_string() == "not annotated");  // no annotation carried over from entity 0
}

TEST_CASE("fast paths: precomputed-key HMAC-SHA256 equals OpenSSL's one-shot HMAC()") {
  std::mt19937_64 rng(777);
  for (std::size_t key_len : {0, 1, 31, 32, 63, 64, 65, 100, 129}) {
    std::vector<std::uint8_t> key(key_len);
    for (auto& b : key) b = static_cast<std::uint8_t>(rng());
    az::detail::hmac_sha256 mac(key);
    for (std::size_t msg_len : {0, 1, 55, 56, 63, 64, 65, 119, 200, 1000}) {
      std::string msg(msg_len, '\0');
      for (auto& c : msg) c = static_cast<char>(rng());
      unsigned char want[EVP_MAX_MD_SIZE];
      unsigned int want_len = 0;
      REQUIRE(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                   reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), want, &want_len));
      REQUIRE(want_len == 32);
      const auto got = mac.sign(msg);
      CHECK(std::equal(got.begin(), got.end(), want));
      const auto again = mac.sign(msg);  // the per-thread work context is reused
      CHECK(again == got);
    }
  }
}

TEST_CASE("fast paths: the cached x-ms-date equals the formatted one, second by second") {
  using namespace std::chrono;
  const system_clock::time_point base = system_clock::time_point(seconds(1795000000));
  for (auto t : {base, base + milliseconds(400), base + milliseconds(999), base + seconds(1), base - seconds(86400),
                 base + milliseconds(1500), base}) {
    CHECK(az::detail::format_rfc1123_cached(t) == az::detail::format_rfc1123(t));
  }
}
