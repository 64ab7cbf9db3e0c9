// Key helpers: zero-padded numbers, inverted ticks, composite keys, hash spread.
#include <aztables/detail/json_writer.hpp>
#include <aztables/keys.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace keys = aztables::keys;
using aztables::errc;

namespace {

// Every key a helper returns must pass the core's own key validation.
void require_valid_key(const std::string& k) {
  auto e = aztables::detail::check_key("key", k);
  INFO(k);
  REQUIRE_FALSE(e.has_value());
}

aztables::datetime at_ticks(std::int64_t t) { return aztables::datetime(aztables::ticks(t)); }

}  // namespace

TEST_CASE("zero_padded: fixed width, numeric order equals string order", "[keys]") {
  CHECK(keys::zero_padded(55, 3).value() == "055");
  CHECK(keys::zero_padded(0, 1).value() == "0");
  CHECK(keys::zero_padded(std::uint64_t{18446744073709551615u}, 20).value() == "18446744073709551615");
  CHECK(keys::zero_padded(std::int16_t{7}, 5).value() == "00007");
  CHECK(keys::zero_padded(std::uint8_t{255}, 3).value() == "255");

  std::vector<std::uint64_t> nums = {0, 1, 2, 9, 10, 11, 99, 100, 111, 999, 1000, 123456, 999999};
  std::vector<std::string> ks;
  for (auto n : nums) {
    ks.push_back(keys::zero_padded(n, 6).value());
    require_valid_key(ks.back());
    CHECK(keys::parse_zero_padded(ks.back()).value() == n);
  }
  CHECK(std::is_sorted(ks.begin(), ks.end()));  // string order == numeric order
}

TEST_CASE("zero_padded: bad input is invalid_argument naming the field", "[keys]") {
  auto too_wide = keys::zero_padded(1234, 3);
  REQUIRE_FALSE(too_wide);
  CHECK(too_wide.error().code == errc::invalid_argument);
  CHECK(too_wide.error().message.rfind("value: 1234 has 4 digits; the width is 3", 0) == 0);

  auto negative = keys::zero_padded(-1, 5);
  REQUIRE_FALSE(negative);
  CHECK(negative.error().code == errc::invalid_argument);
  CHECK(negative.error().message.find("negative") != std::string::npos);

  CHECK(keys::zero_padded(1, 0).error().message.rfind("width:", 0) == 0);
  CHECK(keys::zero_padded(1, 21).error().code == errc::invalid_argument);

  for (const char* bad : {"", "-1", "+1", " 1", "1a", "123456789012345678901", "18446744073709551616"}) {
    INFO(bad);
    auto r = keys::parse_zero_padded(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::invalid_argument);
  }
  CHECK(keys::parse_zero_padded("18446744073709551615").value() == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("inverted_ticks: the .NET D19 idiom, newest first, round trip", "[keys]") {
  // .NET: (DateTime.MaxValue.Ticks - new DateTime(1970,1,1).Ticks).ToString("D19")
  CHECK(keys::inverted_ticks(at_ticks(0)).value() == "2534023007999999999");
  // DateTime.MaxValue itself -> all zeros; DateTime.MinValue -> MaxValue.Ticks.
  CHECK(keys::inverted_ticks(at_ticks(2534023007999999999LL)).value() == "0000000000000000000");
  CHECK(keys::inverted_ticks(at_ticks(-621355968000000000LL)).value() == "3155378975999999999");
  // 2024-05-01T12:00:00Z = 638501040000000000 .NET ticks.
  const std::int64_t t2024 = 638501040000000000LL - 621355968000000000LL;
  CHECK(keys::inverted_ticks(at_ticks(t2024)).value() == std::to_string(3155378975999999999LL - 638501040000000000LL));

  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> dist(-621355968000000000LL, 2534023007999999999LL);
  std::vector<std::pair<std::int64_t, std::string>> samples;
  for (int i = 0; i < 2000; ++i) {
    const auto t = dist(rng);
    auto k = keys::inverted_ticks(at_ticks(t)).value();
    CHECK(k.size() == keys::inverted_ticks_width);
    require_valid_key(k);
    CHECK(keys::parse_inverted_ticks(k).value() == at_ticks(t));
    samples.emplace_back(t, k);
  }
  // Newer time <=> smaller key.
  std::sort(samples.begin(), samples.end());
  for (std::size_t i = 1; i < samples.size(); ++i)
    if (samples[i].first != samples[i - 1].first) CHECK(samples[i].second < samples[i - 1].second);

  auto now = keys::datetime_now();
  CHECK(keys::parse_inverted_ticks(keys::inverted_ticks(now).value()).value() == now);
}

TEST_CASE("inverted_ticks: out of range and malformed keys are rejected", "[keys]") {
  CHECK(keys::inverted_ticks(at_ticks(2534023007999999999LL + 1)).error().code == errc::invalid_argument);
  CHECK(keys::inverted_ticks(at_ticks(-621355968000000000LL - 1)).error().code == errc::invalid_argument);
  CHECK(keys::parse_inverted_ticks("3155378976000000000").error().code == errc::invalid_argument);  // < 0001-01-01
  CHECK(keys::parse_inverted_ticks("123").error().code == errc::invalid_argument);
  CHECK(keys::parse_inverted_ticks("25340230079999999x9").error().code == errc::invalid_argument);
}

TEST_CASE("composite: escaping round-trips every part exactly", "[keys]") {
  CHECK(keys::composite({"AGE", "055", "John Smith"}).value() == "AGE 055 John!!Smith");
  CHECK(keys::composite({"a!b"}).value() == "a!\"b");
  CHECK(keys::composite({""}).value() == "");
  CHECK(keys::composite({"", ""}).value() == " ");
  CHECK(keys::composite_prefix({"AGE", "055"}).value() == "AGE 055 ");

  std::vector<std::vector<std::string>> cases = {
      {""}, {"", ""}, {" "}, {"!"}, {"!!"}, {"! "}, {" !"}, {"a", ""}, {"", "a"}, {"  ", " !\" "},
      {"BIB", "01234", "John"}, {"\xc3\xa9t\xc3\xa9", "\xf0\x9f\x98\x80", "x"}, {"a\"b", "c'd", "e=f&g"},
  };
  for (const auto& parts : cases) {
    auto k = keys::composite(parts).value();
    require_valid_key(k);
    CHECK(keys::split_composite(k).value() == parts);
  }

  // Random parts over an alphabet heavy in the separator and the escape.
  std::mt19937 rng(7);
  const std::string alphabet = " !\"#az~";  // '#' is forbidden: generated parts skip it
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> parts(1 + rng() % 4);
    for (auto& p : parts)
      for (unsigned n = rng() % 6; n > 0; --n) {
        char c = alphabet[rng() % alphabet.size()];
        if (c != '#') p += c;
      }
    auto k = keys::composite(parts).value();
    require_valid_key(k);
    REQUIRE(keys::split_composite(k).value() == parts);
  }
}

TEST_CASE("composite: string order of keys is tuple order of parts", "[keys]") {
  std::mt19937 rng(11);
  const std::string alphabet = " !\"az";
  std::vector<std::vector<std::string>> tuples;
  for (int i = 0; i < 1500; ++i) {
    std::vector<std::string> parts(1 + rng() % 3);
    for (auto& p : parts)
      for (unsigned n = rng() % 4; n > 0; --n) p += alphabet[rng() % alphabet.size()];
    tuples.push_back(parts);
  }
  for (std::size_t i = 0; i + 1 < tuples.size(); ++i) {
    const auto& a = tuples[i];
    const auto& b = tuples[i + 1];
    const auto ka = keys::composite(a).value(), kb = keys::composite(b).value();
    INFO(ka << " | " << kb);
    CHECK((a < b) == (ka < kb));  // std::vector compares lexicographically: tuple order
    CHECK((a == b) == (ka == kb));
  }
  // A prefix query over leading parts finds exactly the tuples that start with them.
  const auto prefix = keys::composite_prefix({"a", "z"}).value();
  for (const auto& t : tuples) {
    const bool starts = t.size() > 2 && t[0] == "a" && t[1] == "z";
    const auto k = keys::composite(t).value();
    CHECK((k.rfind(prefix, 0) == 0) == starts);
  }
}

TEST_CASE("composite: parts breaking the key rules are rejected by name", "[keys]") {
  for (const char* bad : {"a/b", "a\\b", "a#b", "a?b", "a\tb", "\x7f"}) {
    auto r = keys::composite({"ok", bad});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::invalid_argument);
    CHECK(r.error().message.rfind("composite key part 1: contains", 0) == 0);
  }
  CHECK(keys::composite({"\xff"}).error().message == "composite key part 0: is not valid UTF-8");
  CHECK(keys::composite(std::vector<std::string>{}).error().message == "composite key: needs at least one part");
  // 300 spaces escape to 600 characters: the whole key breaks the 1 KiB limit.
  auto long_key = keys::composite({std::string(300, ' '), std::string(300, 'x')});
  REQUIRE_FALSE(long_key);
  CHECK(long_key.error().message.rfind("composite key: is ", 0) == 0);
  CHECK(keys::split_composite("a!b").error().code == errc::invalid_argument);
  CHECK(keys::split_composite("a!").error().code == errc::invalid_argument);
}

TEST_CASE("fnv1a_32: the published test vectors", "[keys]") {
  static_assert(keys::fnv1a_32("") == 0x811c9dc5u, "FNV-1a offset basis");
  CHECK(keys::fnv1a_32("a") == 0xe40c292cu);
  CHECK(keys::fnv1a_32("foobar") == 0xbf9cf968u);
}

TEST_CASE("hash_spread: stable buckets, fixed-width prefixes, the fan-out list", "[keys]") {
  auto spread = keys::hash_spread::create(16).value();
  CHECK(spread.buckets() == 16);
  CHECK(spread.bucket_of("foobar") == 0xbf9cf968u % 16);
  // Pinned values: a change here moves users' stored data. Never change them.
  CHECK(spread.partition_key("2024-05-01", "foobar").value() == "08_2024-05-01");
  CHECK(spread.partition_key("2024-05-01", "a").value() == "12_2024-05-01");

  auto all = spread.partition_keys("2024-05-01").value();
  REQUIRE(all.size() == 16);
  CHECK(all.front() == "00_2024-05-01");
  CHECK(all.back() == "15_2024-05-01");
  for (const auto& k : all) require_valid_key(k);
  // Every writer key is one of the reader's keys.
  std::set<std::string> all_set(all.begin(), all.end());
  std::vector<int> per_bucket(16);
  for (int i = 0; i < 16000; ++i) {
    auto rk = keys::zero_padded(i, 8).value();
    auto pk = spread.partition_key("2024-05-01", rk).value();
    CHECK(all_set.count(pk) == 1);
    ++per_bucket[spread.bucket_of(rk)];
  }
  // Sequential keys spread roughly evenly (each bucket within 25% of 1000).
  for (int n : per_bucket) CHECK((n > 750 && n < 1250));

  CHECK(keys::hash_spread::create(1).value().partition_keys("x").value() == std::vector<std::string>{"0_x"});
  CHECK(keys::hash_spread::create(10).value().partition_keys("x").value().back() == "9_x");
  CHECK(keys::hash_spread::create(11).value().partition_keys("x").value().back() == "10_x");
  CHECK(keys::hash_spread::create(10000).value().partition_keys("x").value().back() == "9999_x");
}

TEST_CASE("hash_spread: bad input is invalid_argument", "[keys]") {
  CHECK(keys::hash_spread::create(0).error().code == errc::invalid_argument);
  CHECK(keys::hash_spread::create(10001).error().message.rfind("buckets:", 0) == 0);
  auto spread = keys::hash_spread::create(4).value();
  CHECK(spread.partition_key("a/b", "x").error().message.rfind("partition key base: contains", 0) == 0);
  CHECK(spread.partition_keys("a?b").error().code == errc::invalid_argument);
  CHECK(spread.partition_key(std::string(511, 'x'), "x").error().message.rfind("spread partition key: is 513", 0) == 0);
}
