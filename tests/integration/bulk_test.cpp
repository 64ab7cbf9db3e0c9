// The bulk writer against Azurite: 20,000 entities over 50 partitions written
// and read back exactly, with a handful of invalid entities reported; a
// failed batch reported entity by entity while the others are written; a
// write cancelled from the progress callback.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/bulk.hpp>
#include <aztables/query.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Every entity of one partition: a row-range query (the pager follows
/// continuations; Azurite pages at 1,000).
std::vector<aztables::entity> read_partition(const aztables::table_client& tc, const std::string& pk) {
  std::vector<aztables::entity> out;
  for (const aztables::entity& e : tc.query(aztables::query::row_range(pk))) out.push_back(e);
  return out;
}

std::string pk_of(int p) {
  char b[8];
  std::snprintf(b, sizeof b, "P%02d", p);
  return b;
}

aztables::entity generated(int p, int i) {
  char rk[16];
  std::snprintf(rk, sizeof rk, "R%05d", i);
  aztables::entity e(pk_of(p), rk);
  const std::int64_t n = p * 1000 + i;
  e.set("Name", "runner-" + std::to_string(n) + " caf\xc3\xa9 \xf0\x9f\x8f\x83")
      .set("I", static_cast<std::int32_t>(n))
      .set("L", n * 1000000007LL)
      .set("D", static_cast<double>(n) + 0.25)
      .set("Flag", n % 2 == 0)
      .set("T", aztables::datetime(aztables::ticks(637000000000000000LL + n * 10000019LL)))
      .set("B", aztables::binary{std::uint8_t(n), std::uint8_t(n >> 8), 0, 255});
  return e;
}

}  // namespace

TEST_CASE("Azurite bulk: 20,000 entities over 50 partitions, read back exactly; invalid ones reported", "[bulk]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "bulk20k");
  auto tc = table.client();
  constexpr int partitions = 50, per_partition = 400;

  std::size_t last_done = 0, last_total = 0, progress_calls = 0;
  aztables::bulk_options o;
  o.concurrency = 4;
  o.on_progress = [&](std::size_t done, std::size_t total) {
    CHECK(done >= last_done);
    last_done = done;
    last_total = total;
    ++progress_calls;
  };
  aztables::bulk_writer w(tc, o);
  // Input order: round robin over partitions, with invalid entities mixed in.
  std::vector<std::size_t> invalid_at;
  auto add_invalid = [&](aztables::entity e, bool update = false) {
    invalid_at.push_back(w.size());
    if (update) w.update(std::move(e));
    else w.insert(std::move(e));
  };
  for (int i = 0; i < per_partition; ++i) {
    for (int p = 0; p < partitions; ++p) w.insert(generated(p, i));
    if (i == 10) add_invalid(aztables::entity("P03", "has/slash"));
    if (i == 50) add_invalid(aztables::entity("P#7", "r"));
    if (i == 90) {
      aztables::entity e = generated(5, 9999);
      e.set("bad-name", 1);
      add_invalid(e);
    }
    if (i == 150) {
      aztables::entity e = generated(6, 9998);
      e.set("Huge", std::string(40000, 'x'));
      add_invalid(e);
    }
    if (i == 200) add_invalid(generated(7, 9997), true);  // update without an ETag
    if (i == 399) {
      aztables::entity e = generated(8, 9996);
      for (int k = 0; k < 260; ++k) e.set("P" + std::to_string(k), k);
      add_invalid(e);
    }
  }
  const std::size_t total = w.size();
  REQUIRE(total == partitions * per_partition + 6);

  const auto t0 = std::chrono::steady_clock::now();
  auto r = w.write().value();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bulk: %zu entities in %zu batches, %.2f s (%.0f entities/s, paced at 20,000/s)\n", r.written,
              r.batches, secs, static_cast<double>(r.written) / secs);

  CHECK(r.total == total);
  CHECK(r.written == partitions * per_partition);
  CHECK(r.batches == partitions * 4);
  REQUIRE(r.failures.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    CHECK(r.failures[k].index == invalid_at[k]);
    CHECK(r.failures[k].error.code == aztables::errc::invalid_argument);
    CHECK(r.failures[k].error.action_index == invalid_at[k]);
  }
  CHECK(r.failures[0].error.message.find("RowKey") != std::string::npos);
  CHECK(r.failures[1].error.message.find("PartitionKey") != std::string::npos);
  CHECK(r.failures[2].error.message.find("bad-name") != std::string::npos);
  CHECK(r.failures[3].error.message.find("32768") != std::string::npos);
  CHECK(r.failures[4].error.message.find("etag") != std::string::npos);
  CHECK(r.failures[5].error.message.find("255") != std::string::npos);
  CHECK(last_done == total);
  CHECK(last_total == total);
  CHECK(progress_calls >= 2);

  std::size_t read = 0;
  for (int p = 0; p < partitions; ++p) {
    auto got = read_partition(tc, pk_of(p));
    REQUIRE(got.size() == per_partition);
    for (int i = 0; i < per_partition; ++i) {
      if (!(got[static_cast<std::size_t>(i)] == generated(p, i))) {
        FAIL("entity " << pk_of(p) << "/" << i << " differs after the round trip");
      }
    }
    read += got.size();
  }
  CHECK(read == partitions * per_partition);
}

TEST_CASE("Azurite bulk: a failed batch is reported entity by entity; the other batches are written", "[bulk]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "bulkfail");
  auto tc = table.client();
  REQUIRE(tc.insert(generated(1, 42)));  // makes P01's first batch fail at its 43rd insert
  aztables::bulk_writer w(tc, aztables::bulk_options{});
  for (int p = 0; p < 3; ++p)
    for (int i = 0; i < 150; ++i) w.insert(generated(p, i));
  auto r = w.write().value();
  CHECK(r.written == 350);
  CHECK(r.batches == 6);
  REQUIRE(r.failures.size() == 100);
  for (std::size_t k = 0; k < 100; ++k) {
    CHECK(r.failures[k].index == 150 + k);
    CHECK(r.failures[k].key.partition_key == "P01");
    CHECK(r.failures[k].error.code == aztables::errc::conflict);
    CHECK(r.failures[k].error.action_index == std::size_t{150 + 42});
  }
  CHECK(read_partition(tc, "P00").size() == 150);
  CHECK(read_partition(tc, "P01").size() == 51);  // the one inserted before + the second batch's 50
  CHECK(read_partition(tc, "P02").size() == 150);
}

TEST_CASE("Azurite bulk: throwing from on_progress cancels; only the batches in flight finish, each whole", "[bulk]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "bulkcancel");
  auto tc = table.client();
  aztables::bulk_options o;
  o.concurrency = 2;
  std::size_t seen = 0;  // the count reported to the call that threw
  o.on_progress = [&](std::size_t done, std::size_t) {
    if (done < 100) return;
    seen = done;
    throw std::runtime_error("cancelled at " + std::to_string(done));
  };
  aztables::bulk_writer w(tc, o);
  for (int p = 0; p < 20; ++p)
    for (int i = 0; i < 100; ++i) w.insert(generated(p, i));  // 20 batches of 100
  CHECK_THROWS_WITH(w.write(), Catch::Contains("cancelled at"));

  // What is stored: whole batches only; those reported when it threw plus at
  // most one per worker (the batches in flight), never the rest.
  std::map<std::string, std::size_t> per_partition;
  for (const aztables::entity& e : tc.query(aztables::query::table_scan())) ++per_partition[e.partition_key];
  std::size_t stored = 0;
  bool whole = true;
  for (const auto& [pk, n] : per_partition) {
    stored += n;
    whole = whole && n == 100;
  }
  INFO("reported " << seen << ", stored " << stored);
  CHECK(whole);
  CHECK(seen >= 100);
  CHECK(stored >= seen);
  CHECK(stored <= seen + 2 * 100);
  CHECK(stored < 2000);
}
