// Fast paths added for the benchmark targets (tests/bench): each one checked
// against a plain reference implementation, on random and edge inputs, so the
// speed-ups cannot change a byte of behaviour.
#include <aztables/detail/codec.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/aztables.hpp>
#include <aztables/query.hpp>

#include <catch2/catch.hpp>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <chrono>
#include <limits>

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

namespace {

// The ISO 8601 reader written the plain way: one character at a time.
std::optional<std::int64_t> reference_iso8601_ticks(std::string_view s) {
  std::size_t i = 0;
  auto num = [&](std::size_t len, int& v) {
    if (i + len > s.size()) return false;
    v = 0;
    for (std::size_t k = 0; k < len; ++k, ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    return true;
  };
  auto lit = [&](char a, char b = 0) {
    if (i < s.size() && (s[i] == a || (b && s[i] == b))) return ++i, true;
    return false;
  };
  int y, mo, d, h, mi, se;
  if (!num(4, y) || !lit('-') || !num(2, mo) || !lit('-') || !num(2, d) || !lit('T', 't') || !num(2, h) ||
      !lit(':') || !num(2, mi) || !lit(':') || !num(2, se))
    return std::nullopt;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int mdays[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60) return std::nullopt;
  std::int64_t frac = 0;
  if (lit('.')) {
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (++digits > 7) return std::nullopt;
      frac = frac * 10 + (s[i++] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (int k = digits; k < 7; ++k) frac *= 10;
  }
  std::int64_t offset = 0;
  if (!lit('Z', 'z')) {
    if (i >= s.size() || (s[i] != '+' && s[i] != '-')) return std::nullopt;
    const int sign = s[i++] == '+' ? 1 : -1;
    int oh, om;
    if (!num(2, oh) || !lit(':') || !num(2, om) || oh > 23 || om > 59) return std::nullopt;
    offset = sign * (oh * 3600 + om * 60);
  }
  if (i != s.size()) return std::nullopt;
  // Days since 1970-01-01 by counting (the library uses closed formulas).
  std::int64_t days = 0;
  for (int yy = 1970; yy < y; ++yy) days += ((yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0) ? 366 : 365;
  for (int yy = y; yy < 1970; ++yy) days -= ((yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0) ? 366 : 365;
  for (int m = 1; m < mo; ++m) days += mdays[m - 1];
  days += d - 1;
  return ((days * 86400 + h * 3600 + mi * 60 + se - offset) * 10000000) + frac;
}

}  // namespace

TEST_CASE("fast paths: ISO 8601 reader agrees with a character-at-a-time reference") {
  std::mt19937_64 rng(8601);
  static const char near[] = "0123456789-:.TtZz+ /";
  for (int n = 0; n < 200000; ++n) {
    // A valid time in the service's form, or with fewer digits or an offset.
    const auto t = az::datetime(az::ticks(static_cast<std::int64_t>(rng() % 4102444800ULL) * 10000000 +
                                          static_cast<std::int64_t>(rng() % 10000000)));
    std::string s = az::detail::format_iso8601(t);
    if (n % 5 == 1) s.erase(20 + rng() % 7, 1);                      // fewer fractional digits
    if (n % 5 == 2) s.replace(s.size() - 1, 1, rng() % 2 ? "+01:30" : "-11:00");
    if (n % 5 == 3) s = s.substr(0, 19) + "Z";                         // whole seconds
    const int muts = static_cast<int>(rng() % 3);
    for (int k = 0; k < muts; ++k)
      s[rng() % s.size()] = rng() % 2 ? near[rng() % (sizeof near - 1)] : static_cast<char>(rng() % 256);
    INFO(s);
    const auto want = reference_iso8601_ticks(s);
    const auto got = az::detail::parse_iso8601(s);
    REQUIRE(static_cast<bool>(got) == static_cast<bool>(want));
    if (got) REQUIRE(got->time_since_epoch().count() == *want);
    if (muts == 0 && n % 5 == 0) REQUIRE(got == t);
  }
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

namespace {

// The byte-at-a-time writer the block-scanning one replaced.
std::string reference_json_string(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// The byte-at-a-time UTF-8 scan (validity, UTF-16 units, first key-forbidden code point).
az::detail::utf8_scan reference_scan(std::string_view s) {
  az::detail::utf8_scan r;
  std::size_t i = 0;
  while (i < s.size()) {
    std::uint32_t cp;
    if (!az::detail::next_code_point(s, i, cp)) {
      r.valid = false;
      return r;
    }
    r.utf16_units += cp >= 0x10000 ? 2 : 1;
    if (!r.has_key_forbidden && az::detail::key_forbidden(cp)) {
      r.has_key_forbidden = true;
      r.forbidden_cp = cp;
    }
  }
  return r;
}

// Random text mixing long clean ASCII runs, escapes, key-forbidden characters,
// multi-byte and invalid sequences, placed across 8- and 16-byte block edges.
std::string random_text(std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {
      "abcdefghijklmnop", "0123456789", " ", "\"", "\\", "\n", "\t", std::string(1, '\0'), "\x01", "\x1f", "\x7f",
      "/", "#", "?", "é", "中", "😀", "\xc2\x80", "\xc2\x9f", "\xe2\x80\xa8", "\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80",
      "x", "yy", "zzz"};
  std::string s;
  const std::size_t parts = rng() % 12;
  for (std::size_t k = 0; k < parts; ++k) {
    if (rng() % 3 == 0) s.append(rng() % 40, static_cast<char>('a' + rng() % 26));
    s += pieces[rng() % pieces.size()];
  }
  return s;
}

/// One query page through decode_page as the pager reads it (every item, from
/// the first) into `out`: typed by `schema`, or dynamic entities when it is
/// null. The body is the decoder's own copy, with no spare capacity (the
/// decoder adds the padding; nothing lies after the text). On success `out`
/// holds exactly the items delivered.
template <class T>
std::optional<az::error> decode(std::string body, simdjson::ondemand::parser& parser,
                                const az::detail::entity_schema* schema, bool minimal, std::vector<T>& out) {
  body.shrink_to_fit();
  std::size_t total = 0, delivered = 0;
  auto err = az::detail::decode_page(body, parser, schema, minimal, &out, 0, 100, total, delivered);
  if (!err) CHECK(out.size() == delivered);
  return err;
}

}  // namespace

TEST_CASE("fast paths: block-scanning JSON string writer and UTF-8 scans agree with byte-at-a-time references") {
  std::mt19937_64 rng(4242);
  for (int n = 0; n < 20000; ++n) {
    const std::string s = random_text(rng);
    const az::detail::utf8_scan want = reference_scan(s);
    std::string out;
    az::detail::append_json_string(out, s);
    REQUIRE(out == reference_json_string(s));
    const az::detail::utf8_scan key = az::detail::scan_utf8(s);
    REQUIRE(key.valid == want.valid);
    if (want.valid) {
      REQUIRE(key.utf16_units == want.utf16_units);
      REQUIRE(key.has_key_forbidden == want.has_key_forbidden);
      if (want.has_key_forbidden) REQUIRE(key.forbidden_cp == want.forbidden_cp);
    }
    const az::detail::utf8_scan text = az::detail::scan_utf8_text(s);
    REQUIRE(text.valid == want.valid);
    if (want.valid) REQUIRE(text.utf16_units == want.utf16_units);
    std::string fused;
    std::size_t units = 12345;
    const bool ok = az::detail::append_json_string_measured(fused, s, units);
    REQUIRE(ok == want.valid);
    if (ok) {
      REQUIRE(fused == out);
      REQUIRE(units == want.utf16_units);
    }
  }
}

TEST_CASE("fast paths: property-name check's ASCII fast path agrees with the full rules") {
  std::mt19937_64 rng(99);
  static const char alphabet[] = "aZ_09-. $@\xc3\xa9";
  for (int n = 0; n < 20000; ++n) {
    std::string name;
    const std::size_t len = rng() % 12;
    for (std::size_t k = 0; k < len; ++k) name += alphabet[rng() % (sizeof alphabet - 1)];
    if (n % 1000 == 0) name = std::string(255 + rng() % 3, 'a');
    // The full rules, written out.
    bool want = !name.empty() && name != "PartitionKey" && name != "RowKey" && name != "Timestamp";
    std::size_t i = 0, chars = 0, units = 0;
    while (want && i < name.size()) {
      std::uint32_t cp;
      if (!az::detail::next_code_point(name, i, cp)) {
        want = false;
        break;
      }
      ++chars;
      units += cp >= 0x10000 ? 2 : 1;
      const bool letter = (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_' || cp >= 0xc0;
      const bool digit = cp >= '0' && cp <= '9';
      if ((chars == 1 && !letter) || (!letter && !digit)) want = false;
    }
    if (chars > 255) want = false;
    INFO(name);
    std::size_t got_units = 12345;
    CHECK(!az::detail::check_property_name(name, &got_units) == want);
    if (want) CHECK(got_units == units);
  }
  // The UTF-16 length the size formula uses, for names outside ASCII.
  std::size_t units = 0;
  CHECK(!az::detail::check_property_name("Gr\xc3\xb6\xc3\x9f" "e", &units));
  CHECK(units == 5);
  CHECK(!az::detail::check_property_name("\xe5\x90\x8d\xe5\x89\x8d", &units));  // two CJK letters
  CHECK(units == 2);
  CHECK(!az::detail::check_property_name("a\xf0\x9d\x90\x80", &units));  // U+1D400: a surrogate pair
  CHECK(units == 3);
}

TEST_CASE("fast paths: base64 encoder (six bytes per step) agrees with a group-at-a-time reference") {
  auto reference = [](const az::binary& b) {
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < b.size(); i += 3) {
      const std::size_t n = std::min<std::size_t>(3, b.size() - i);
      std::uint32_t v = std::uint32_t(b[i]) << 16;
      if (n > 1) v |= std::uint32_t(b[i + 1]) << 8;
      if (n > 2) v |= b[i + 2];
      out += chars[(v >> 18) & 63];
      out += chars[(v >> 12) & 63];
      out += n > 1 ? chars[(v >> 6) & 63] : '=';
      out += n > 2 ? chars[v & 63] : '=';
    }
    return out;
  };
  std::mt19937_64 rng(777);
  for (std::size_t len = 0; len < 300; ++len) {
    az::binary bytes(len);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    if (len % 3 == 0) std::fill(bytes.begin(), bytes.end(), static_cast<std::uint8_t>(len % 2 ? 0xff : 0x00));
    std::string got = "prefix:";  // appends after what the string holds
    az::detail::base64_encode_to(got, bytes.data(), bytes.size());
    INFO(len);
    REQUIRE(got == "prefix:" + reference(bytes));
  }
  CHECK(az::detail::base64_encode("foobar") == "Zm9vYmFy");  // RFC 4648 section 10
  CHECK(az::detail::base64_encode("fooba") == "Zm9vYmE=");
}

TEST_CASE("fast paths: entity bodies are byte-identical to the straightforward writer's") {
  // Every Edm type, edge doubles, escapes, non-ASCII; the expected text is
  // written out by hand in the service's form.
  az::entity e("p\"k", "r/k");
  e.partition_key = "pk\"1";
  e.row_key = "rk 1";
  e.set("S", std::string("a\"b\\c\nd\x01 é 中 😀 ") + std::string(40, 'x'))
      .set("B", true)
      .set("I", std::int32_t(-7))
      .set("L", std::int64_t(-9223372036854775807LL - 1))
      .set("D", 2.0)
      .set("D2", 1e300)
      .set("Nan", std::numeric_limits<double>::quiet_NaN())
      .set("Inf", -std::numeric_limits<double>::infinity())
      .set("T", az::datetime(az::ticks(17672256001234567LL)))
      .set("G", az::guid::parse("C9DA6455-213D-42C9-9A79-3E9149A57833").value())
      .set("X", az::binary{1, 2, 3, 255})
      .set("Empty", std::string());
  std::string out;
  REQUIRE_FALSE(az::detail::append_entity_json(out, e));
  CHECK(out ==
        "{\"PartitionKey\":\"pk\\\"1\",\"RowKey\":\"rk 1\","
        "\"S\":\"a\\\"b\\\\c\\nd\\u0001 é 中 😀 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","
        "\"B\":true,\"I\":-7,"
        "\"L\":\"-9223372036854775808\",\"L@odata.type\":\"Edm.Int64\","
        "\"D\":2.0,\"D@odata.type\":\"Edm.Double\","
        "\"D2\":1e+300,\"D2@odata.type\":\"Edm.Double\","
        "\"Nan\":\"NaN\",\"Nan@odata.type\":\"Edm.Double\","
        "\"Inf\":\"-Infinity\",\"Inf@odata.type\":\"Edm.Double\","
        "\"T\":\"2026-01-01T00:00:00.1234567Z\",\"T@odata.type\":\"Edm.DateTime\","
        "\"G\":\"c9da6455-213d-42c9-9a79-3e9149a57833\",\"G@odata.type\":\"Edm.Guid\","
        "\"X\":\"AQID/w==\",\"X@odata.type\":\"Edm.Binary\","
        "\"Empty\":\"\"}");
  // Invalid UTF-8 in a String value is still refused, naming the property.
  az::entity bad("p", "r");
  bad.set("Ok", "fine").set("Bad", std::string("abc\xff") + std::string(30, 'y'));
  std::string ignored;
  auto err = az::detail::append_entity_json(ignored, bad);
  REQUIRE(err);
  CHECK(err->message.find("'Bad'") != std::string::npos);
  CHECK(err->message.find("UTF-8") != std::string::npos);
  // A duplicate name (fingerprint equal, then names equal) is refused.
  az::entity dup("p", "r");
  dup.append_unchecked("Name", az::value(1));
  dup.append_unchecked("Name", az::value(2));
  err = az::detail::append_entity_json(ignored, dup);
  REQUIRE(err);
  CHECK(err->message.find("appears twice") != std::string::npos);
}

namespace {
struct fast_item {
  std::string pk, rk;
  std::string name;
  std::string text;
  az::guid id;
  az::datetime when{};
  std::optional<std::string> note;
};
}  // namespace

template <>
struct aztables::entity_traits<fast_item> {
  static constexpr auto partition_key = &fast_item::pk;
  static constexpr auto row_key = &fast_item::rk;
  static constexpr auto properties =
      aztables::fields(aztables::field("Name", &fast_item::name), aztables::field("Text", &fast_item::text),
                       aztables::field("Id", &fast_item::id), aztables::field("When", &fast_item::when),
                       aztables::field("Note", &fast_item::note));
};

TEST_CASE("fast paths: keys and strings read in place, escapes and whitespace handled the slow way") {
  // Escaped keys ("N\u0061me" is "Name"), escaped strings, whitespace around
  // tokens, empty strings, a string ending right before the document's end.
  std::string body = "{ \"value\" : [ "
                     "{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Name\":\"plain\",\"Text\":\"a\\\"b\\u00e9\","
                     "\"Id@odata.type\":\"Edm.Guid\",\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\","
                     "\"When@odata.type\":\"Edm.DateTime\",\"When\":\"2026-01-02T03:04:05.1234567Z\"} ,"
                     "{ \"PartitionKey\" : \"p\" , \"RowKey\" : \"2\" , \"N\\u0061me\" : \"\" , \"Text\" :\t\"x\" ,"
                     " \"Id\" : \"C9DA6455-213D-42C9-9A79-3E9149A57833\" , \"Id@odata.type\" : \"Edm.Guid\" ,"
                     " \"When\u0040odata.type\":\"Edm.DateTime\", \"When\" : \"2026-01-02T03:04:05Z\" ,"
                     " \"Note\" : \"last\\\\\" } ] }";
  const auto& schema = az::detail::schema_of<fast_item>();
  for (bool minimal : {true, false}) {
    simdjson::ondemand::parser parser;
    std::vector<fast_item> out;
    auto err = decode(body, parser, &schema, minimal, out);
    INFO((err ? err->message : std::string("ok")) << " minimal=" << minimal);
    REQUIRE_FALSE(err);
    REQUIRE(out.size() == 2);
    CHECK(out[0].name == "plain");
    CHECK(out[0].text == "a\"b\xc3\xa9");
    CHECK(out[0].id.to_string() == "c9da6455-213d-42c9-9a79-3e9149a57833");
    CHECK_FALSE(out[0].note);
    CHECK(out[1].rk == "2");
    CHECK(out[1].name.empty());
    CHECK(out[1].text == "x");
    CHECK(out[1].id == out[0].id);
    CHECK(out[1].note == std::optional<std::string>("last\\"));
    // The dynamic reader over the same page.
    std::vector<az::entity> dyn;
    err = decode(body, parser, nullptr, minimal, dyn);
    REQUIRE_FALSE(err);
    REQUIRE(dyn.size() == 2);
    CHECK(*dyn[0].get("Text")->as_string() == "a\"b\xc3\xa9");
    CHECK(*dyn[1].get("Name")->as_string() == "");
    CHECK(*dyn[1].get("Note")->as_string() == "last\\");
  }
}

namespace {
// Mapped names of 1, 8, 16 and 17 bytes: the next name in order is matched
// on the document's bytes for names of up to 16 bytes, the slow way above.
struct name_item {
  std::string pk, rk;
  std::optional<std::string> opt;
  std::int32_t a = 0;
  std::string eight;
  std::string sixteen;
  std::string seventeen;
};
}  // namespace

template <>
struct aztables::entity_traits<name_item> {
  static constexpr auto partition_key = &name_item::pk;
  static constexpr auto row_key = &name_item::rk;
  static constexpr auto properties =
      aztables::fields(aztables::field("Opt", &name_item::opt), aztables::field("A", &name_item::a),
                       aztables::field("EightChr", &name_item::eight),
                       aztables::field("SixteenCharsLong", &name_item::sixteen),
                       aztables::field("SeventeenCharsLng", &name_item::seventeen));
};

TEST_CASE("fast paths: the next mapped name matched on the document's bytes, and its near misses") {
  // In order; out of order; keys that extend or shorten a mapped name, or
  // share its first 16 bytes; a mapped name written with an escape; the
  // last key of the document a mapped one. "OptX" and "Op" come first, while
  // "Opt" is the next name, and "Opt" never comes: they must not be read as it.
  const std::string body =
      "{\"value\":["
      "{\"OptX\":\"no\",\"Op\":\"no\",\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"A\":1,\"EightChr\":\"e\",\"SixteenCharsLong\":\"s\","
      "\"SeventeenCharsLng\":\"t\"},"
      "{\"SeventeenCharsLng\":\"t2\",\"SixteenCharsLong\":\"s2\",\"EightChr\":\"e2\",\"A\":2,"
      "\"PartitionKey\":\"p\",\"RowKey\":\"2\"},"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"3\",\"AA\":9,\"A\":3,\"EightChrX\":\"no\",\"EightCh\":\"no\","
      "\"EightChr\":\"e3\",\"SixteenCharsLongX\":\"no\",\"SixteenCharsLon\":\"no\",\"SixteenCharsLong\":\"s3\","
      "\"SeventeenCharsLngX\":\"no\",\"SeventeenCharsLn\":\"no\",\"SeventeenCharsLng\":\"t3\"},"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"4\",\"\\u0041\":4,\"Eight\\u0043hr\":\"e4\","
      "\"SixteenCharsLon\\u0067\":\"s4\",\"SeventeenCharsLn\\u0067\":\"t4\"},"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"5\",\"A\":5,\"EightChr\":\"e5\",\"SixteenCharsLong\":\"s5\","
      "\"SeventeenCharsLng\":\"t5\"}]}";
  const auto& schema = az::detail::schema_of<name_item>();
  simdjson::ondemand::parser parser;
  for (bool minimal : {false, true}) {
    std::vector<name_item> out;
    auto err = decode(body, parser, &schema, minimal, out);
    INFO((err ? err->message : std::string("ok")) << " minimal=" << minimal);
    REQUIRE_FALSE(err);
    REQUIRE(out.size() == 5);
    for (int i = 0; i < 5; ++i) {
      const std::string n = i == 0 ? "" : std::to_string(i + 1);
      INFO("entity " << i + 1);
      CHECK(out[static_cast<std::size_t>(i)].rk == std::to_string(i + 1));
      CHECK(out[static_cast<std::size_t>(i)].a == i + 1);
      CHECK(out[static_cast<std::size_t>(i)].eight == "e" + n);
      CHECK(out[static_cast<std::size_t>(i)].sixteen == "s" + n);
      CHECK(out[static_cast<std::size_t>(i)].seventeen == "t" + n);
      CHECK_FALSE(out[static_cast<std::size_t>(i)].opt);
    }
  }
}

TEST_CASE("fast paths: the next mapped name's annotation matched on the document's bytes") {
  const auto& schema = az::detail::schema_of<name_item>();
  simdjson::ondemand::parser parser;
  const std::string head = "{\"value\":[{\"PartitionKey\":\"p\",\"RowKey\":\"1\",";
  const std::string tail = "\"A\":1,\"EightChr\":\"e\",\"SixteenCharsLong\":\"s\",\"SeventeenCharsLng\":\"t\"}]}";
  std::vector<name_item> out;
  // Annotations of the next name and near misses of one (not annotations).
  auto ok = decode(head + "\"A@odata.typeX\":\"Edm.Int64\",\"A@odata.typ\":\"Edm.Int64\",\"A@odata.type\":\"Edm.Int32\"," +
                       "\"A\":1,\"EightChr@odata.type\":\"Edm.String\",\"EightChr\":\"e\"," +
                       "\"SixteenCharsLong@odata.type\":\"Edm.String\",\"SixteenCharsLong\":\"s\"," +
                       "\"SeventeenCharsLng@odata.type\":\"Edm.String\",\"SeventeenCharsLng\":\"t\"}]}",
                   parser, &schema, true, out);
  INFO((ok ? ok->message : std::string("ok")));
  REQUIRE_FALSE(ok);
  REQUIRE(out.size() == 1);
  CHECK(out[0].a == 1);
  CHECK(out[0].seventeen == "t");
  // A wrong type, and an annotation that is not a string, name the property.
  auto wrong = decode(head + "\"EightChr@odata.type\":\"Edm.Int64\"," + tail, parser, &schema, true, out);
  REQUIRE(wrong);
  CHECK(wrong->message.find("'EightChr'") != std::string::npos);
  CHECK(wrong->message.find("Edm.Int64") != std::string::npos);
  auto not_string = decode(head + "\"A\":1,\"EightChr@odata.type\":5," + tail, parser, &schema, true, out);
  REQUIRE(not_string);
  CHECK(not_string->message.find("annotation 'EightChr@odata.type' is not a string") != std::string::npos);
}

namespace {
struct typed_item {
  std::string pk, rk;
  az::etag tag;
  std::int64_t big = 0;
  double d = 0;
  az::guid id;
  az::binary bytes;
};
}  // namespace

template <>
struct aztables::entity_traits<typed_item> {
  static constexpr auto partition_key = &typed_item::pk;
  static constexpr auto row_key = &typed_item::rk;
  static constexpr auto etag = &typed_item::tag;
  static constexpr auto properties =
      aztables::fields(aztables::field("Big", &typed_item::big), aztables::field("D", &typed_item::d),
                       aztables::field("Id", &typed_item::id), aztables::field("Bytes", &typed_item::bytes));
};

TEST_CASE("fast paths: an annotation naming the member's own type, odata.etag and Timestamp matched on the bytes") {
  // The typed reader takes `"<next name>@odata.type":"Edm.<own type>"` from
  // the bytes after the key, without reading the value; anything else about
  // the annotation (space, escape, another fitting type, a longer or shorter
  // name) is read and checked the slow way.
  const auto& schema = az::detail::schema_of<typed_item>();
  simdjson::ondemand::parser parser;
  auto page = [](const std::string& big_annotation, const std::string& etag_value) {
    return "{\"value\":[{\"odata.etag\":" + etag_value + ",\"PartitionKey\":\"p\",\"RowKey\":\"1\"," + big_annotation +
           "\"Big\":\"123\",\"D@odata.type\":\"Edm.Double\",\"D\":\"NaN\",\"Id@odata.type\":\"Edm.Guid\","
           "\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\",\"Bytes@odata.type\":\"Edm.Binary\",\"Bytes\":\"AQID\","
           "\"Timestamp\":\"2026-01-02T03:04:05.1234567Z\"}]}";
  };
  const std::string service_etag = "\"W/\\\"datetime'2026-01-02T03%3A04%3A05.1234567Z'\\\"\"";
  for (const char* annotation : {"\"Big@odata.type\":\"Edm.Int64\",", "\"Big@odata.type\" : \"Edm.Int64\",",
                                 "\"Big@odata.type\":\"Edm.Int\\u00364\","}) {
    INFO(annotation);
    std::vector<typed_item> out;
    auto err = decode(page(annotation, service_etag), parser, &schema, true, out);
    INFO((err ? err->message : std::string("ok")));
    REQUIRE_FALSE(err);
    REQUIRE(out.size() == 1);
    CHECK(out[0].big == 123);
    CHECK(std::isnan(out[0].d));
    CHECK(out[0].id.to_string() == "c9da6455-213d-42c9-9a79-3e9149a57833");
    CHECK(out[0].bytes == az::binary{1, 2, 3});
    CHECK(out[0].tag.str() == "W/\"datetime'2026-01-02T03%3A04%3A05.1234567Z'\"");
    // Decoding again into the used vector, with a plain ETag.
    REQUIRE_FALSE(decode(page(annotation, "\"abc\""), parser, &schema, true, out));
    CHECK(out[0].tag.str() == "abc");
  }
  // A string-form Int64 with no annotation, or one that does not fit, is refused.
  struct refused {
    const char* annotation;
    const char* says;
  };
  for (const refused& r : {refused{"", "Edm.String"}, refused{"\"Big@odata.type\":\"Edm.String\",", "Edm.String"},
                           refused{"\"Big@odata.type\":\"Edm.Int64x\",", "unknown type Edm.Int64x"},
                           refused{"\"Big@odata.type\":\"Edm.Int6\",", "unknown type Edm.Int6"}}) {
    INFO(r.annotation);
    std::vector<typed_item> out;
    auto err = decode(page(r.annotation, service_etag), parser, &schema, true, out);
    REQUIRE(err);
    CHECK(err->message.find(r.says) != std::string::npos);
  }
  // Int64 text with an escape is unescaped, then parsed; a JSON number is read too.
  std::vector<typed_item> out;
  const std::string head = "{\"value\":[{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Big@odata.type\":\"Edm.Int64\",";
  const std::string rest = ",\"D\":1.5,\"Id@odata.type\":\"Edm.Guid\",\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\","
                           "\"Bytes@odata.type\":\"Edm.Binary\",\"Bytes\":\"AQID\"}]}";
  auto escaped = decode(head + "\"Big\":\"-1\\u00323\"" + rest, parser, &schema, true, out);
  INFO((escaped ? escaped->message : std::string("ok")));
  REQUIRE_FALSE(escaped);
  CHECK(out[0].big == -123);
  REQUIRE_FALSE(decode(head + "\"Big\":77" + rest, parser, &schema, true, out));
  CHECK(out[0].big == 77);
  auto bad_int = decode(head + "\"Big\":\"12x\"" + rest, parser, &schema, true, out);
  REQUIRE(bad_int);
  CHECK(bad_int->message.find("stored Edm.Int64 value '12x' is not a 64-bit integer") != std::string::npos);
  // An annotated Double in text form: both readers take a number or the
  // three specials and refuse anything else.
  for (const char* text : {"1.5", "-2e-3", "Infinity", "1.5x", "", " 1"}) {
    INFO(text);
    const std::string entity = "{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Big\":1,\"D@odata.type\":\"Edm.Double\","
                               "\"D\":\"" + std::string(text) + "\",\"Id@odata.type\":\"Edm.Guid\","
                               "\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\",\"Bytes@odata.type\":\"Edm.Binary\","
                               "\"Bytes\":\"AQID\"}";
    std::string dynamic_body = entity;
    auto dynamic = az::detail::parse_entity(dynamic_body);
    auto typed = decode("{\"value\":[" + entity + "]}", parser, &schema, true, out);
    REQUIRE(static_cast<bool>(dynamic) == !typed);
    if (dynamic) CHECK(out[0].d == *dynamic->get("D")->as_double());
    if (dynamic && std::string(text) == "1.5") CHECK(out[0].d == 1.5);
  }
  // An ETag that is not a string; an annotation that ends the document.
  auto err = decode(page("", "5"), parser, &schema, true, out);
  REQUIRE(err);
  CHECK(err->message.find("odata.etag is not a string") != std::string::npos);
  err = decode("{\"value\":[{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Big@odata.type\":\"Edm.Int64\"}]}", parser, &schema,
               true, out);
  REQUIRE(err);
  CHECK(err->message.find("'Big'") != std::string::npos);
  CHECK(err->message.find("is missing") != std::string::npos);
}

TEST_CASE("fast paths: guid parsing (both readers) and Edm type names agree with the rules") {
  std::mt19937_64 rng(5);
  static const char chars[] = "0123456789abcdefABCDEF-gG {}";
  const az::guid before = *az::guid::parse("00112233-4455-6677-8899-aabbccddeeff");
  for (int n = 0; n < 60000; ++n) {
    std::string s = "c9da6455-213d-42c9-9a79-3e9149a57833";
    if (n % 2) s = "{" + s + "}";
    // Any byte, a third of the time: the digits are checked eight at a time
    // (SWAR), so the neighbours of each range ('/', ':', '@', 'G', '`', 'g',
    // bytes >= 0x80) must all be refused.
    for (int k = 0; k < 1 + static_cast<int>(rng() % 2); ++k)
      s[rng() % s.size()] = rng() % 3 == 0 ? static_cast<char>(rng() % 256) : chars[rng() % (sizeof chars - 1)];
    // Reference: braces optional, dashes at 8/13/18/23, hex elsewhere.
    std::string_view v = s;
    if (v.size() == 38 && v.front() == '{' && v.back() == '}') v = v.substr(1, 36);
    bool want = v.size() == 36;
    for (std::size_t i = 0; want && i < 36; ++i) {
      const char c = v[i];
      if (i == 8 || i == 13 || i == 18 || i == 23) want = c == '-';
      else want = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
    // Both readers: guid::parse (portable, eight digits per word) and the
    // query readers' detail::parse_guid (16 per register where the CPU has
    // SSSE3), which must leave its target alone on failure.
    auto g = az::guid::parse(s);
    az::guid fast = before;
    const bool fast_ok = az::detail::parse_guid(s, fast);
    INFO(s);
    REQUIRE(static_cast<bool>(g) == want);
    REQUIRE(fast_ok == want);
    if (g) {
      std::string lower(v);
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      CHECK(g->to_string() == lower);
      CHECK(fast == *g);
    } else {
      CHECK(fast == before);
    }
  }
  using az::edm;
  const std::pair<const char*, edm> names[] = {{"Edm.String", edm::string},     {"Edm.Int64", edm::int64},
                                               {"Edm.Int32", edm::int32},       {"Edm.Double", edm::double_},
                                               {"Edm.DateTime", edm::datetime}, {"Edm.Guid", edm::guid},
                                               {"Edm.Binary", edm::binary},     {"Edm.Boolean", edm::boolean}};
  for (const auto& [n, t] : names) CHECK(az::detail::edm_from_name(n) == t);
  for (const char* bad : {"", "Edm.", "Edm.Foo", "Edm.int64", "edm.Int64", "Edm.Int6", "Edm.Int644", "Edm.Guid ",
                          "Edm.DateTimeOffset", "Edm.Bool"})
    CHECK_FALSE(az::detail::edm_from_name(bad));
}

TEST_CASE("fast paths: decoding into a used vector overwrites every member and drops the surplus") {
  // Page 1 fills every member (ETag-less nometadata and a Note); page 2 has
  // fewer entities, no Note, other strings, and - for dynamic entities -
  // other property sets and types in the same slots.
  const std::string page1 =
      "{\"value\":[{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Name\":\"a long name that does not fit SSO\","
      "\"Text\":\"t1\",\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\",\"When\":\"2026-01-02T03:04:05Z\","
      "\"Note\":\"n1\"},"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"2\",\"Name\":\"b\",\"Text\":\"t2\","
      "\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57834\",\"When\":\"2026-01-02T03:04:06Z\",\"Note\":\"n2\"},"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"3\",\"Name\":\"c\",\"Text\":\"t3\","
      "\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57835\",\"When\":\"2026-01-02T03:04:07Z\"}]}";
  const std::string page2 =
      "{\"value\":[{\"PartitionKey\":\"q\",\"RowKey\":\"9\",\"Name\":\"z\",\"Text\":\"\","
      "\"Id\":\"00000000-0000-0000-0000-000000000001\",\"When\":\"2030-01-01T00:00:00Z\"}]}";
  const auto& schema = az::detail::schema_of<fast_item>();
  simdjson::ondemand::parser parser;
  std::vector<fast_item> used;
  REQUIRE_FALSE(decode(page1, parser, &schema, false, used));
  REQUIRE(used.size() == 3);
  REQUIRE_FALSE(decode(page2, parser, &schema, false, used));
  std::vector<fast_item> fresh;
  REQUIRE_FALSE(decode(page2, parser, &schema, false, fresh));
  REQUIRE(used.size() == 1);
  CHECK(used[0].pk == "q");
  CHECK(used[0].rk == "9");
  CHECK(used[0].name == "z");
  CHECK(used[0].text.empty());
  CHECK(used[0].id == fresh[0].id);
  CHECK(used[0].when == fresh[0].when);
  CHECK_FALSE(used[0].note);  // absent on page 2: reset, not kept from page 1

  std::vector<az::entity> dyn;
  REQUIRE_FALSE(decode(page1, parser, nullptr, false, dyn));
  REQUIRE(dyn.size() == 3);
  const std::string page3 =
      "{\"value\":[{\"PartitionKey\":\"r\",\"RowKey\":\"1\",\"Other\":5,\"Name\":true},"
      "{\"PartitionKey\":\"r\",\"RowKey\":\"2\"}]}";
  REQUIRE_FALSE(decode(page3, parser, nullptr, false, dyn));
  std::vector<az::entity> dyn_fresh;
  REQUIRE_FALSE(decode(page3, parser, nullptr, false, dyn_fresh));
  REQUIRE(dyn.size() == 2);
  CHECK(dyn == dyn_fresh);
  CHECK(dyn[0].size() == 2);
  CHECK(*dyn[0].get("Other")->as_int32() == 5);
  CHECK(*dyn[0].get("Name")->as_bool());
  CHECK_FALSE(dyn[0].contains("Text"));
  CHECK(dyn[1].empty());
  CHECK(dyn[1].etag.empty());
}

TEST_CASE("fast paths: SSSE3 base64 blocks agree with the reference for every byte at every position") {
#if defined(AZTABLES_SSSE3)
  INFO("SSSE3 block decoder in use: " << az::detail::ssse3_available());
  CHECK(az::detail::ssse3_available());  // every x86-64 CI machine has SSSE3
#endif
  std::mt19937_64 rng(77);
  // 60 bytes -> 80 characters: four whole 16-character blocks, then the
  // scalar groups and the last one. Every byte value at every position.
  az::binary bytes(60);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  std::string text;
  az::detail::base64_encode_to(text, bytes.data(), bytes.size());
  REQUIRE(text.size() == 80);
  az::binary got, want;
  for (std::size_t pos = 0; pos < text.size(); ++pos)
    for (int c = 0; c < 256; ++c) {
      std::string t = text;
      t[pos] = static_cast<char>(c);
      const bool a = az::detail::base64_decode_to(t, got), b = reference_base64_decode(t, want);
      INFO("position " << pos << " byte " << c);
      REQUIRE(a == b);
      if (a) REQUIRE(got == want);
    }
  // Every alphabet character in every lane of a block, and long inputs (many
  // blocks, a bad block after good ones).
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int lane = 0; lane < 16; ++lane)
    for (int k = 0; k < 64; ++k) {
      std::string t = text;
      t[static_cast<std::size_t>(lane)] = alphabet[k];
      REQUIRE(az::detail::base64_decode_to(t, got));
      REQUIRE(reference_base64_decode(t, want));
      REQUIRE(got == want);
    }
  for (std::size_t len : {1000u, 1001u, 4096u}) {
    az::binary big(len);
    for (auto& b : big) b = static_cast<std::uint8_t>(rng());
    std::string t;
    az::detail::base64_encode_to(t, big.data(), big.size());
    REQUIRE(az::detail::base64_decode_to(t, got));
    REQUIRE(got == big);
    t[t.size() / 2] = '.';
    CHECK_FALSE(az::detail::base64_decode_to(t, got));
    CHECK(got.empty());
  }
}

TEST_CASE("fast paths: string values copied while scanned for escapes") {
  // copy_plain_string against the plain definition (the text between the
  // quotes when it has no backslash), for every length up to 70, with an
  // escape at each position or none, into strings shorter, as long and longer.
  simdjson::ondemand::parser parser;
  std::mt19937_64 rng(9);
  for (std::size_t n = 0; n <= 70; ++n)
    for (std::size_t esc = 0; esc <= n; ++esc) {  // esc == n: no escape
      std::string text;
      for (std::size_t i = 0; i < n; ++i) text += static_cast<char>('a' + rng() % 26);
      std::string json_text = text;
      if (esc < n) json_text.replace(esc, 1, "\\n");
      for (const char* after : {"", " ", "\n\t "})
        for (std::size_t before : {std::size_t(0), n / 2, n, n + 1, std::size_t(100)}) {
          std::string doc = "{\"v\":\"" + json_text + "\"" + after + ",\"w\":\"\\\\ tail\"}";
          std::string dst(before, 'x');
          doc.reserve(doc.size() + simdjson::SIMDJSON_PADDING);
          simdjson::ondemand::document d;
          REQUIRE_FALSE(parser.iterate(az::detail::padded_view(doc)).get(d));
          simdjson::ondemand::value v;
          REQUIRE_FALSE(d["v"].get(v));
          INFO("length " << n << " escape at " << esc << " dst size " << before << " after '" << after << "'");
          const bool copied = az::detail::copy_plain_string(v, dst);
          REQUIRE(copied == (esc == n));
          if (copied) REQUIRE(dst == text);
        }
    }
  // Not a string: refused.
  std::string doc = "{\"v\":12345678901234567890123}";
  simdjson::ondemand::document d;
  REQUIRE_FALSE(parser.iterate(az::detail::padded_view(doc)).get(d));
  simdjson::ondemand::value v;
  REQUIRE_FALSE(d["v"].get(v));
  std::string dst = "keep";
  CHECK_FALSE(az::detail::copy_plain_string(v, dst));
}

TEST_CASE("fast paths: DateTime, Guid, Binary and Int64 text with escapes is unescaped, then parsed") {
  // The typed reader parses these forms as written first; escaped text (legal
  // JSON, though the service never writes it) fails that parse and must then
  // be read the slow way, not refused.
  const std::string body =
      "{\"value\":[{\"PartitionKey\":\"p\\u0031\",\"RowKey\":\"1\",\"Name\":\"n\",\"Text\":\"t\","
      "\"Id@odata.type\":\"Edm.Guid\",\"Id\":\"c9da6455\\u002d213d-42c9-9a79-3e9149a57833\","
      "\"When@odata.type\":\"Edm.DateTime\",\"When\":\"2026-01-02T03:04:05\\u005a\"}]}";
  const auto& schema = az::detail::schema_of<fast_item>();
  simdjson::ondemand::parser parser;
  for (bool minimal : {true, false}) {
    std::vector<fast_item> out;
    auto err = decode(body, parser, &schema, minimal, out);
    INFO((err ? err->message : std::string("ok")) << " minimal=" << minimal);
    REQUIRE_FALSE(err);
    REQUIRE(out.size() == 1);
    CHECK(out[0].pk == "p1");
    CHECK(out[0].id.to_string() == "c9da6455-213d-42c9-9a79-3e9149a57833");
    az::datetime want{};
    REQUIRE(az::detail::parse_iso8601_to("2026-01-02T03:04:05Z", want));
    CHECK(out[0].when == want);
  }
  // Text that is still not a DateTime once unescaped is the member's error.
  std::string bad = "{\"value\":[{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"Name\":\"n\",\"Text\":\"t\","
                    "\"Id\":\"c9da6455-213d-42c9-9a79-3e9149a57833\","
                    "\"When@odata.type\":\"Edm.DateTime\",\"When\":\"2026-01-02T03:04:05\\u0059\"}]}";
  std::vector<fast_item> out;
  auto err = decode(bad, parser, &schema, true, out);
  REQUIRE(err);
  CHECK(err->message.find("When") != std::string::npos);
  CHECK(err->message.find("ISO 8601") != std::string::npos);
}

namespace {
// 70 mapped members: the typed reader's member bit sets span two words.
#define AZT_WIDE_MEMBERS(X)                                                                                         \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19)     \
  X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32) X(33) X(34) X(35) X(36) X(37)      \
  X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55)      \
  X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63) X(64) X(65) X(66) X(67) X(68)
struct wide_item {
  std::string pk, rk;
#define AZT_MEMBER(i) std::int32_t f##i = 0;
  AZT_WIDE_MEMBERS(AZT_MEMBER)
#undef AZT_MEMBER
  std::optional<std::int32_t> last;  // member 69, optional
};
}  // namespace

template <>
struct aztables::entity_traits<wide_item> {
  static constexpr auto partition_key = &wide_item::pk;
  static constexpr auto row_key = &wide_item::rk;
#define AZT_FIELD(i) aztables::field("F" #i, &wide_item::f##i),
  static constexpr auto properties = aztables::fields(AZT_WIDE_MEMBERS(AZT_FIELD) aztables::field("Last", &wide_item::last));
#undef AZT_FIELD
};

TEST_CASE("fast paths: a struct of more than 64 members: missing, optional and annotated members past the first 64") {
  const auto& schema = az::detail::schema_of<wide_item>();
  REQUIRE(schema.size == 70);
  auto page = [](int skip, bool with_last, const std::string& extra) {
    std::string e = "{\"PartitionKey\":\"p\",\"RowKey\":\"r\"" + extra;
    for (int i = 0; i < 69; ++i)
      if (i != skip) e += ",\"F" + std::to_string(i) + "\":" + std::to_string(i * 3);
    if (with_last) e += ",\"Last\":7";
    return "{\"value\":[" + e + "}," + e + "}]}";
  };
  simdjson::ondemand::parser parser;
  for (bool minimal : {false, true}) {
    std::vector<wide_item> out;
    auto err = decode(page(-1, true, ""), parser, &schema, minimal, out);
    INFO((err ? err->message : std::string("ok")) << " minimal=" << minimal);
    REQUIRE_FALSE(err);
    REQUIRE(out.size() == 2);
    CHECK(out[1].f0 == 0);
    CHECK(out[1].f63 == 189);
    CHECK(out[1].f64 == 192);
    CHECK(out[1].f68 == 204);
    CHECK(out[1].last == 7);
    // The optional member past the first word: absent reads as empty, in a used vector too.
    err = decode(page(-1, false, ""), parser, &schema, minimal, out);
    REQUIRE_FALSE(err);
    CHECK_FALSE(out[1].last);
    // A required member past the first word, and one in it, missing.
    for (int skip : {66, 5}) {
      err = decode(page(skip, true, ""), parser, &schema, minimal, out);
      REQUIRE(err);
      CHECK(err->message.find("'F" + std::to_string(skip) + "'") != std::string::npos);
      CHECK(err->message.find("is missing") != std::string::npos);
    }
  }
  // An annotation of a member past the first word is checked against it.
  std::vector<wide_item> out;
  auto err = decode(page(-1, true, ",\"F67@odata.type\":\"Edm.Guid\""), parser, &schema, true, out);
  REQUIRE(err);
  CHECK(err->message.find("'F67'") != std::string::npos);
  CHECK_FALSE(decode(page(-1, true, ",\"F67@odata.type\":\"Edm.Int32\""), parser, &schema, true, out));
}

TEST_CASE("fast paths: the dynamic reader unescapes typed text and type names that its first parse refused") {
  std::string body =
      "{\"PartitionKey\":\"p\\u0031\",\"RowKey\":\"r\",\"N@odata.type\":\"Edm.Int\\u00364\",\"N\":\"1\\u0032\","
      "\"W@odata.type\":\"Edm.DateTime\",\"W\":\"2026-01-02T03:04:05\\u005a\","
      "\"G@odata.type\":\"Edm.Guid\",\"G\":\"c9da6455\\u002d213d-42c9-9a79-3e9149a57833\","
      "\"B@odata.type\":\"Edm.Binary\",\"B\":\"AQID\\/w==\",\"S\":\"a\\\"b\",\"T\":\"plain\","
      "\"D@odata.type\":\"Edm.Double\",\"D\":\"N\\u0061N\",\"E@odata.type\":\"Edm.Double\",\"E\":\"-Infinity\"}";
  auto e = az::detail::parse_entity(body);
  REQUIRE(e);
  CHECK(e->partition_key == "p1");
  CHECK(*e->get("N")->as_int64() == 12);
  az::datetime want{};
  REQUIRE(az::detail::parse_iso8601_to("2026-01-02T03:04:05Z", want));
  CHECK(*e->get("W")->as_datetime() == want);
  CHECK(e->get("G")->as_guid()->to_string() == "c9da6455-213d-42c9-9a79-3e9149a57833");
  CHECK(*e->get("B")->as_binary() == az::binary{1, 2, 3, 255});
  CHECK(*e->get("S")->as_string() == "a\"b");
  CHECK(*e->get("T")->as_string() == "plain");
  CHECK(std::isnan(*e->get("D")->as_double()));
  CHECK(*e->get("E")->as_double() == -std::numeric_limits<double>::infinity());
  // Still wrong once unescaped: the property's error.
  std::string bad = "{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"W@odata.type\":\"Edm.DateTime\",\"W\":\"2026\\u002d13-02T03:04:05Z\"}";
  auto err = az::detail::parse_entity(bad);
  REQUIRE_FALSE(err);
  CHECK(err.error().message.find("'W'") != std::string::npos);
  CHECK(err.error().message.find("ISO 8601") != std::string::npos);
}
