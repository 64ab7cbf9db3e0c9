// SPDX-License-Identifier: MIT
// Row 6: bulk ingest into Azurite (wall clock; Azurite is another process).
//   ours: bulk_writer with default options (entity group transactions of up
//         to 100, 4 workers, default pacing) writing 20,000 ~1 KB entities
//         over 50 partitions into a fresh table.
//   baseline: table_client::insert one entity at a time into another fresh
//         table (2,000 of the same entities: a rate, so a tenth of the count
//         keeps the run short; both are entities per second).
// Needs AZTABLES_TEST_CONNECTION_STRING (tests/bench/run.sh starts an Azurite).
#include "harness.hpp"
#include "rows.hpp"
#include "workload.hpp"

#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace bench {

void rows_ingest(context& ctx) {
  row r;
  r.id = "6";
  r.title = "bulk ingest into Azurite (entities/s)";
  r.ours = "bulk_writer (default options) writing 20,000 entities over 50 partitions";
  r.baseline = "table_client::insert, one entity at a time (2,000 of the same entities)";
  r.unit = "entity";
  r.target = 10;
  r.target_text = ">= 10x";
  if (!ctx.wants(r.id) || ctx.s.m == mode::callgrind) return;
  const char* cs = std::getenv("AZTABLES_TEST_CONNECTION_STRING");
  if (!cs || !*cs) {
    ctx.skip(r, "no Azurite (AZTABLES_TEST_CONNECTION_STRING unset; tests/bench/run.sh starts one)");
    return;
  }
  const bool smoke = ctx.s.m == mode::smoke;
  const std::size_t n_bulk = smoke ? 200 : 20000, n_single = smoke ? 20 : 2000;
  const int rounds = ctx.s.m == mode::full ? 3 : 1;
  std::vector<aztables::entity> entities;
  entities.reserve(n_bulk);
  for (std::size_t i = 0; i < n_bulk; ++i) entities.push_back(aztables::to_entity(make_order(i, 50)).value());

  auto svc = aztables::service_client::from_connection_string(cs).value();
  int table_counter = 0;
  auto fresh_table = [&] {
    std::string name = "benchingest" + std::to_string(getpid()) + "n" + std::to_string(table_counter++);
    svc.create_table(name).value();
    return name;
  };
  auto bulk_seconds = [&]() {
    const std::string t = fresh_table();
    aztables::bulk_writer w(svc.table(t));
    for (const auto& e : entities) w.insert(e);
    const auto t0 = std::chrono::steady_clock::now();
    auto res = w.write();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    (void)svc.delete_table(t);
    if (!res) throw std::runtime_error("row 6: bulk write failed: " + res.error().message);
    if (!res->ok() || res->written != n_bulk) throw std::runtime_error("row 6: bulk write did not write everything");
    return s / static_cast<double>(n_bulk);
  };
  auto single_seconds = [&]() {
    const std::string t = fresh_table();
    auto client = svc.table(t);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n_single; ++i) {
      auto w = client.insert(entities[i]);
      if (!w) throw std::runtime_error("row 6: insert failed: " + w.error().message);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    (void)svc.delete_table(t);
    return s / static_cast<double>(n_single);
  };
  std::vector<double> o, b, ratio;
  for (int i = 0; i < rounds; ++i) {
    double to, tb;
    if (i % 2 == 0) {
      to = bulk_seconds();
      tb = single_seconds();
    } else {
      tb = single_seconds();
      to = bulk_seconds();
    }
    o.push_back(to);
    b.push_back(tb);
    ratio.push_back(tb / to);
  }
  comparison c;
  c.ours_s = median(o);
  c.baseline_s = median(b);
  c.ratio = median(ratio);
  c.rounds = rounds;
  r.note = std::to_string(n_bulk) + " vs " + std::to_string(n_single) + " entities per round";
  ctx.add(r, c);
}

}  // namespace bench
