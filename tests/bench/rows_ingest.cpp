// SPDX-License-Identifier: MIT
// Row 6: bulk ingest into Azurite (wall clock; Azurite is another process).
//   ours: bulk_writer with default options (entity group transactions of up
//         to 100, 4 workers, default pacing) writing 20,000 ~1 KB entities
//         over 50 partitions into a fresh table.
//   baseline: table_client::insert one entity at a time into another fresh
//         table (2,000 of the same entities: a rate, so a tenth of the count
//         keeps the run short; both are entities per second).
// Rows 6b and 6c: the same two writes against the field, the official JS SDK
// (@azure/data-tables from tests/node_modules, run by js_ingest.mjs with the
// same entities, serialised by aztables::to_json):
//   6b ours: the bulk_writer above; baseline: submitTransaction, 100 actions
//      per transaction, 4 in flight.
//   6c ours: the one-by-one inserts above; baseline: createEntity, one at a time.
// All four writes run in every round, in alternating order.
// Needs AZTABLES_TEST_CONNECTION_STRING (tests/bench/run.sh starts an Azurite).
#include "harness.hpp"
#include "rows.hpp"
#include "workload.hpp"

#include <shell.hpp>

#include <aztables/aztables.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

namespace bench {
namespace {

using aztables_test::run_command;
using aztables_test::shell_quote;

/// The JS SDK side of rows 6b/6c, or why it cannot run.
struct js_side {
  std::string script = std::string(AZTABLES_BENCH_SOURCE_DIR) + "/js_ingest.mjs";
  std::string entity_file;  ///< one entity per line (aztables::to_json)
  std::string unavailable;  ///< non-empty: why the rows are skipped

  explicit js_side(const std::vector<aztables::entity>& entities) {
    const std::string modules = std::string(AZTABLES_BENCH_SOURCE_DIR) + "/../node_modules/@azure/data-tables";
    if (run_command("node --version").first != 0) {
      unavailable = "node is not installed (tests/deps.sh installs it)";
      return;
    }
    if (run_command("test -d " + shell_quote(modules)).first != 0) {
      unavailable = "tests/node_modules/@azure/data-tables is missing (tests/deps.sh installs it)";
      return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/aztables-bench-entities-XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("row 6b: cannot create a temporary file in " + path);
    ::close(fd);
    entity_file = path;
    std::ofstream f(entity_file, std::ios::binary);
    for (const auto& e : entities) f << aztables::to_json(e).value() << '\n';
    if (!f) throw std::runtime_error("row 6b: cannot write " + entity_file);
  }
  ~js_side() {
    if (!entity_file.empty()) std::remove(entity_file.c_str());
  }
  js_side(const js_side&) = delete;
  js_side& operator=(const js_side&) = delete;

  /// Seconds the JS SDK took to write the first `count` entities ("bulk" or "single") into `table`.
  double seconds(const char* how, const std::string& table, std::size_t count) const {
    auto [status, out] = run_command("node " + shell_quote(script) + " " + how + " " + shell_quote(table) + " " +
                                     shell_quote(entity_file) + " " + std::to_string(count));
    if (status != 0) throw std::runtime_error(std::string("row 6b/6c: the JS SDK's ") + how + " write failed:\n" + out);
    return std::strtod(out.c_str(), nullptr);
  }
};

}  // namespace

void rows_ingest(context& ctx) {
  row r;
  r.id = "6";
  r.title = "bulk ingest into Azurite (entities/s)";
  r.ours = "bulk_writer (default options) writing 20,000 entities over 50 partitions";
  r.baseline = "table_client::insert, one entity at a time (2,000 of the same entities)";
  r.unit = "entity";
  r.target = 10;
  r.target_text = ">= 10x";
  row rb;
  rb.id = "6b";
  rb.title = "bulk ingest vs the official JS SDK (entities/s)";
  rb.ours = r.ours;
  rb.baseline = "@azure/data-tables submitTransaction, 100 per transaction, 4 in flight, same entities";
  rb.unit = "entity";
  rb.target = 1;
  rb.target_text = ">= 1x";
  row rc;
  rc.id = "6c";
  rc.title = "one-by-one insert vs the official JS SDK (entities/s)";
  rc.ours = "table_client::insert, one entity at a time (2,000 entities)";
  rc.baseline = "@azure/data-tables createEntity, one at a time, same entities";
  rc.unit = "entity";
  rc.target = 1;
  rc.target_text = ">= 1x";
  const bool want_js = ctx.wants(rb.id) || ctx.wants(rc.id);
  if (!(ctx.wants(r.id) || want_js) || ctx.s.m == mode::callgrind) return;
  const char* cs = std::getenv("AZTABLES_TEST_CONNECTION_STRING");
  if (!cs || !*cs) {
    for (const row* x : {&r, &rb, &rc})
      if (ctx.wants(x->id)) ctx.skip(*x, "no Azurite (AZTABLES_TEST_CONNECTION_STRING unset; tests/bench/run.sh starts one)");
    return;
  }
  const bool smoke = ctx.s.m == mode::smoke;
  const std::size_t n_bulk = smoke ? 200 : 20000, n_single = smoke ? 20 : 2000;
  const int rounds = ctx.s.m == mode::full ? 3 : 1;
  std::vector<aztables::entity> entities;
  entities.reserve(n_bulk);
  for (std::size_t i = 0; i < n_bulk; ++i) entities.push_back(aztables::to_entity(make_order(i, 50)).value());
  std::unique_ptr<js_side> js;
  if (want_js) {
    js = std::make_unique<js_side>(entities);
    if (!js->unavailable.empty()) {
      for (const row* x : {&rb, &rc})
        if (ctx.wants(x->id)) ctx.skip(*x, js->unavailable);
      js.reset();
    }
  }

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
  // The JS SDK's writes, checked by counting what landed (its script exits
  // non-zero on any failed write).
  auto js_seconds = [&](const char* how, std::size_t count) {
    const std::string t = fresh_table();
    const double s = js->seconds(how, t, count);
    std::size_t landed = 0;
    auto p = svc.table(t).query(aztables::query::table_scan().select({"RowKey"}));
    while (!p.done()) landed += p.next_page().value().items.size();
    (void)svc.delete_table(t);
    if (landed != count)
      throw std::runtime_error(std::string("row 6b/6c: the JS SDK's ") + how + " write left " + std::to_string(landed) +
                               " of " + std::to_string(count) + " entities");
    return s / static_cast<double>(count);
  };
  // Every write of a round, in alternating order (the emulator warms up and
  // its process grows over the run).
  std::vector<double> ob, os, jb, js_s, ratio6, ratio6b, ratio6c;
  for (int i = 0; i < rounds; ++i) {
    std::vector<std::function<void()>> steps = {[&] { ob.push_back(bulk_seconds()); },
                                                [&] { os.push_back(single_seconds()); }};
    if (js) {
      steps.push_back([&] { jb.push_back(js_seconds("bulk", n_bulk)); });
      steps.push_back([&] { js_s.push_back(js_seconds("single", n_single)); });
    }
    if (i % 2 == 1) std::reverse(steps.begin(), steps.end());
    for (auto& step : steps) step();
    ratio6.push_back(os.back() / ob.back());
    if (js) {
      ratio6b.push_back(jb.back() / ob.back());
      ratio6c.push_back(js_s.back() / os.back());
    }
  }
  auto finish = [&](row& x, double ours, double base, const std::vector<double>& ratios, std::string note) {
    if (!ctx.wants(x.id)) return;
    comparison c;
    c.ours_s = ours;
    c.baseline_s = base;
    c.ratio = median(ratios);
    c.rounds = rounds;
    x.note = std::move(note);
    ctx.add(x, c);
  };
  finish(r, median(ob), median(os), ratio6, std::to_string(n_bulk) + " vs " + std::to_string(n_single) + " entities per round");
  if (js) {
    finish(rb, median(ob), median(jb), ratio6b, std::to_string(n_bulk) + " entities each per round");
    finish(rc, median(os), median(js_s), ratio6c, std::to_string(n_single) + " entities each per round");
  }
}

}  // namespace bench
