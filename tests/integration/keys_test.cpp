// Key helpers against Azurite: the service's own order agrees with the
// helpers' promises (numeric, newest first, tuple order), and a spread
// partition reads back whole through fan_out_query.
#include <aztables/fan_out.hpp>
#include <aztables/keys.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace keys = aztables::keys;

namespace {

std::vector<aztables::entity> read_partition(const aztables::table_client& t, const std::string& pk,
                                             aztables::key_range rows = {}) {
  std::vector<aztables::entity> out;
  for (auto& e : t.query(aztables::query::row_range(pk, std::move(rows)))) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("Azurite sorts zero-padded keys numerically and inverted ticks newest first", "[azurite][keys]") {
  aztables_test::scoped_table st(aztables_test::azurite_service(), "keys");
  auto t = st.client();
  std::vector<int> nums = {0, 7, 10, 99, 100, 111, 2, 1000, 25};
  aztables::bulk_writer w(t);
  for (int n : nums) w.insert(aztables::entity("num", keys::zero_padded(n, 4).value()));
  const auto t0 = aztables::datetime(aztables::ticks(638501040000000000LL - 621355968000000000LL));
  for (int i = 0; i < 30; ++i) {
    aztables::entity e("log", keys::inverted_ticks(t0 + std::chrono::milliseconds(i * 137)).value());
    e.set("I", i);
    w.insert(std::move(e));
  }
  REQUIRE(w.write().value().ok());

  std::vector<int> got;
  for (auto& e : read_partition(t, "num")) got.push_back(static_cast<int>(keys::parse_zero_padded(e.row_key).value()));
  std::sort(nums.begin(), nums.end());
  CHECK(got == nums);

  auto log = read_partition(t, "log");
  REQUIRE(log.size() == 30);
  for (std::size_t i = 0; i < log.size(); ++i) {
    CHECK(*log[i].get("I")->as_int32() == 29 - static_cast<int>(i));  // newest first
    CHECK(keys::parse_inverted_ticks(log[i].row_key).value() == t0 + std::chrono::milliseconds((29 - static_cast<int>(i)) * 137));
  }
}

TEST_CASE("Azurite orders composite keys as tuples, and a composite prefix is a range of whole parts", "[azurite][keys]") {
  aztables_test::scoped_table st(aztables_test::azurite_service(), "keys");
  auto t = st.client();
  std::mt19937 rng(5);
  const std::vector<std::string> words = {"", " ", "!", "a", "a b", "a!b", "ab", "b", "\"", "z z"};
  std::vector<std::vector<std::string>> tuples;
  for (int i = 0; i < 60; ++i) {
    std::vector<std::string> parts(1 + rng() % 3);
    for (auto& p : parts) p = words[rng() % words.size()];
    if (std::find(tuples.begin(), tuples.end(), parts) == tuples.end()) tuples.push_back(parts);
  }
  aztables::bulk_writer w(t);
  for (const auto& parts : tuples) w.insert(aztables::entity("c", keys::composite(parts).value()));
  REQUIRE(w.write().value().ok());

  std::vector<std::vector<std::string>> got;
  for (auto& e : read_partition(t, "c")) got.push_back(keys::split_composite(e.row_key).value());
  auto sorted = tuples;
  std::sort(sorted.begin(), sorted.end());
  CHECK(got == sorted);

  // All tuples starting with ("a b"): a prefix range over whole parts (not "a b!..." or "a bc").
  std::vector<std::vector<std::string>> expected;
  for (const auto& p : sorted)
    if (p.size() > 1 && p[0] == "a b") expected.push_back(p);
  std::vector<std::vector<std::string>> in_range;
  for (auto& e : read_partition(t, "c", aztables::key_range::prefix(keys::composite_prefix({"a b"}).value())))
    in_range.push_back(keys::split_composite(e.row_key).value());
  CHECK(in_range == expected);

  // Point operations with a space in the key (URL escaping).
  const auto k = keys::composite({"a b", "c"}).value();
  REQUIRE(t.upsert(aztables::entity("c", k)).value().etag.str().size() > 0);
  REQUIRE(t.get({"c", k}).value().has_value());
  REQUIRE(t.erase({"c", k}, aztables::etag::any()));
}

TEST_CASE("A spread partition reads back whole and newest first through fan_out_query", "[azurite][keys][fan_out]") {
  aztables_test::scoped_table st(aztables_test::azurite_service(), "spread");
  auto t = st.client();
  auto spread = keys::hash_spread::create(6).value();
  const auto t0 = aztables::datetime(aztables::ticks(17000000000000000LL));
  aztables::bulk_writer w(t);
  for (int i = 0; i < 300; ++i) {
    const std::string id = "e" + std::to_string(i);
    aztables::entity e(spread.partition_key("2024-05-01", id).value(),
                       keys::composite({keys::inverted_ticks(t0 + std::chrono::seconds(i)).value(), id}).value());
    e.set("I", i);
    w.insert(std::move(e));
  }
  auto wr = w.write().value();
  REQUIRE(wr.ok());
  CHECK(wr.batches >= 6);  // at least one batch per partition: the writes were spread

  aztables::fan_out_options o;
  o.limit = 25;
  auto newest = aztables::fan_out_query(t, spread.partition_keys("2024-05-01").value(),
                                        [](const std::string& pk) { return aztables::query::row_range(pk).limit(25); }, o)
                    .value();
  REQUIRE(newest.size() == 25);
  for (std::size_t i = 0; i < newest.size(); ++i) CHECK(*newest[i].get("I")->as_int32() == 299 - static_cast<int>(i));

  auto all = aztables::fan_out_query(t, spread.partition_keys("2024-05-01").value(),
                                     [](const std::string& pk) { return aztables::query::row_range(pk); })
                 .value();
  REQUIRE(all.size() == 300);
  for (std::size_t i = 0; i < all.size(); ++i) CHECK(*all[i].get("I")->as_int32() == 299 - static_cast<int>(i));
}
