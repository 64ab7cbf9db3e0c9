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
// Row 6d: how close the bulk_writer comes to the emulator's own limit. With
//   AZTABLES_TEST_AZURITE_PID set (tests/azurite.sh env sets it), the CPU time
//   Azurite's JavaScript thread spends in each write is read from /proc.
//   Azurite runs its requests on that one thread, so its CPU time per entity
//   in the bulk write bounds the rate of any client: 6d's baseline is that
//   time. Row 6's note adds how busy the thread was in both writes and the
//   ratio no client can pass against the same one-by-one baseline.
// Row 6e: row 6 with small entities (a sensor reading: two keys and three
//   properties, ~150 bytes as JSON), the shape of the many-small-entities
//   tables our users write: same counts, same writers, same target.
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
#include <iterator>
#include <memory>
#include <sstream>
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

/// CPU seconds (user + system) the main thread of process `pid` has used so
/// far, from /proc/PID/task/PID/stat; negative when it cannot be read. For
/// Node.js that is the thread running JavaScript (its helper threads, such as
/// the garbage collector's, run beside it and are not counted).
double main_thread_cpu_seconds(long pid) {
  const std::string id = std::to_string(pid);
  std::ifstream f("/proc/" + id + "/task/" + id + "/stat");
  if (!f) return -1;
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces, so find its closing
  // parenthesis): state is field 3, utime and stime are fields 14 and 15.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (!rest || ticks <= 0) return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(ticks);
}

}  // namespace

void rows_ingest(context& ctx) {
  // The four rows, all in entities per second against a minimum ratio.
  auto entity_row = [](const char* id, const char* title, std::string ours, const char* baseline, double target,
                       const char* target_text) {
    row x;
    x.id = id;
    x.title = title;
    x.ours = std::move(ours);
    x.baseline = baseline;
    x.unit = "entity";
    x.target = target;
    x.target_text = target_text;
    return x;
  };
  const std::string bulk = "bulk_writer (default options) writing 20,000 entities over 50 partitions";
  row r = entity_row("6", "bulk ingest into Azurite (entities/s)", bulk,
                     "table_client::insert, one entity at a time (2,000 of the same entities)", 10, ">= 10x");
  row rb = entity_row("6b", "bulk ingest vs the official JS SDK (entities/s)", bulk,
                      "@azure/data-tables submitTransaction, 100 per transaction, 4 in flight, same entities", 1,
                      ">= 1x");
  row rc = entity_row("6c", "one-by-one insert vs the official JS SDK (entities/s)",
                      "table_client::insert, one entity at a time (2,000 entities)",
                      "@azure/data-tables createEntity, one at a time, same entities", 1, ">= 1x");
  row rd = entity_row("6d", "bulk ingest vs the emulator's limit (entities/s)", bulk,
                      "Azurite's own CPU time per entity in that bulk write: the rate no client can pass there", 0.9,
                      ">= 0.9x");
  row re = entity_row("6e", "bulk ingest of small entities into Azurite (entities/s)",
                      "bulk_writer (default options) writing 20,000 small entities (2 keys + 3 properties) over 50 "
                      "partitions",
                      "table_client::insert, one entity at a time (2,000 of the same small entities)", 10, ">= 10x");
  const bool want_js = ctx.wants(rb.id) || ctx.wants(rc.id);
  const bool want_small = ctx.wants(re.id);
  if (!(ctx.wants(r.id) || want_js || ctx.wants(rd.id) || want_small) || ctx.s.m == mode::callgrind) return;
  const char* cs = std::getenv("AZTABLES_TEST_CONNECTION_STRING");
  if (!cs || !*cs) {
    for (const row* x : {&r, &rb, &rc, &rd, &re})
      if (ctx.wants(x->id)) ctx.skip(*x, "no Azurite (AZTABLES_TEST_CONNECTION_STRING unset; tests/bench/run.sh starts one)");
    return;
  }
  const bool smoke = ctx.s.m == mode::smoke;
  const std::size_t n_bulk = smoke ? 200 : 20000, n_single = smoke ? 20 : 2000;
  const int rounds = ctx.s.m == mode::full ? 3 : 1;
  std::vector<aztables::entity> entities;
  entities.reserve(n_bulk);
  for (std::size_t i = 0; i < n_bulk; ++i) entities.push_back(aztables::to_entity(make_order(i, 50)).value());
  // Row 6e's: a sensor reading per entity, over the same 50 partitions.
  std::vector<aztables::entity> small;
  if (want_small) {
    small.reserve(n_bulk);
    for (std::size_t i = 0; i < n_bulk; ++i) {
      aztables::entity e;
      e.partition_key = "device-" + pad(i % 50, 3);
      e.row_key = pad(i, 10);
      e.set("Temp", 18.0 + static_cast<double>(i % 97) / 8);
      e.set("Count", static_cast<std::int32_t>(i));
      e.set("State", std::string(i % 10 ? "ok" : "warn"));
      small.push_back(std::move(e));
    }
  }
  std::unique_ptr<js_side> js;
  if (want_js) {
    js = std::make_unique<js_side>(entities);
    if (!js->unavailable.empty()) {
      for (const row* x : {&rb, &rc})
        if (ctx.wants(x->id)) ctx.skip(*x, js->unavailable);
      js.reset();
    }
  }

  // Azurite's CPU time, when its pid is known.
  const char* pid_text = std::getenv("AZTABLES_TEST_AZURITE_PID");
  const long azurite_pid = pid_text && *pid_text ? std::strtol(pid_text, nullptr, 10) : 0;
  auto azurite_cpu = [&] { return azurite_pid > 0 ? main_thread_cpu_seconds(azurite_pid) : -1.0; };
  const bool azurite_known = azurite_pid > 0 && azurite_cpu() >= 0;
  if (!azurite_known && ctx.wants(rd.id))
    ctx.skip(rd, "Azurite's CPU time is unknown (AZTABLES_TEST_AZURITE_PID unset or /proc unreadable; "
                 "tests/azurite.sh env sets it)");
  /// Azurite's CPU seconds and the wall seconds of one write, per entity.
  struct server_load {
    double cpu = -1, wall = 0;
  };
  std::vector<server_load> load_bulk, load_single;
  auto svc = aztables::service_client::from_connection_string(cs).value();
  int table_counter = 0;
  auto fresh_table = [&] {
    std::string name = "benchingest" + std::to_string(getpid()) + "n" + std::to_string(table_counter++);
    svc.create_table(name).value();
    return name;
  };
  std::vector<server_load> load_small_bulk, load_small_single;
  auto bulk_seconds = [&](const std::vector<aztables::entity>& es, std::vector<server_load>& load) {
    const std::string t = fresh_table();
    aztables::bulk_writer w(svc.table(t));
    for (const auto& e : es) w.insert(e);
    const double c0 = azurite_cpu();
    const auto t0 = std::chrono::steady_clock::now();
    auto res = w.write();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double c1 = azurite_cpu();
    load.push_back({c0 < 0 || c1 < 0 ? -1 : (c1 - c0) / static_cast<double>(n_bulk), s / static_cast<double>(n_bulk)});
    (void)svc.delete_table(t);
    if (!res) throw std::runtime_error("row 6: bulk write failed: " + res.error().message);
    if (!res->ok() || res->written != n_bulk) throw std::runtime_error("row 6: bulk write did not write everything");
    return s / static_cast<double>(n_bulk);
  };
  auto single_seconds = [&](const std::vector<aztables::entity>& es, std::vector<server_load>& load) {
    const std::string t = fresh_table();
    auto client = svc.table(t);
    const double c0 = azurite_cpu();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n_single; ++i) {
      auto w = client.insert(es[i]);
      if (!w) throw std::runtime_error("row 6: insert failed: " + w.error().message);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double c1 = azurite_cpu();
    load.push_back({c0 < 0 || c1 < 0 ? -1 : (c1 - c0) / static_cast<double>(n_single), s / static_cast<double>(n_single)});
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
  std::vector<double> ob, os, jb, js_s, sb, ss, ratio6, ratio6b, ratio6c, ratio6e;
  for (int i = 0; i < rounds; ++i) {
    std::vector<std::function<void()>> steps = {[&] { ob.push_back(bulk_seconds(entities, load_bulk)); },
                                                [&] { os.push_back(single_seconds(entities, load_single)); }};
    if (want_small) {
      steps.push_back([&] { sb.push_back(bulk_seconds(small, load_small_bulk)); });
      steps.push_back([&] { ss.push_back(single_seconds(small, load_small_single)); });
    }
    if (js) {
      steps.push_back([&] { jb.push_back(js_seconds("bulk", n_bulk)); });
      steps.push_back([&] { js_s.push_back(js_seconds("single", n_single)); });
    }
    if (i % 2 == 1) std::reverse(steps.begin(), steps.end());
    for (auto& step : steps) step();
    ratio6.push_back(os.back() / ob.back());
    if (want_small) ratio6e.push_back(ss.back() / sb.back());
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
  // Per round: how busy Azurite's JavaScript thread was in each write, and
  // the ratio a client costing nothing would reach (its bulk rate capped by
  // that thread's CPU time per entity) against the same one-by-one baseline.
  std::string note6 = std::to_string(n_bulk) + " vs " + std::to_string(n_single) + " entities per round";
  auto measured = [](const std::vector<server_load>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](const server_load& l) { return l.cpu > 0; });
  };
  const bool have_load = measured(load_bulk) && measured(load_single);
  comparison limit6d;
  if (have_load) {
    std::vector<double> busy_b, busy_s, limit, cpu_b, cpu_s;
    for (std::size_t i = 0; i < load_bulk.size(); ++i) {
      busy_b.push_back(load_bulk[i].cpu / load_bulk[i].wall);
      busy_s.push_back(load_single[i].cpu / load_single[i].wall);
      limit.push_back(load_single[i].wall / load_bulk[i].cpu);
      cpu_b.push_back(load_bulk[i].cpu);
      cpu_s.push_back(load_single[i].cpu);
    }
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "; Azurite's JavaScript thread %.0f%% busy in the bulk write, %.0f%% one by one: no client passes "
                  "%.1fx here (row 6d)",
                  100 * median(busy_b), 100 * median(busy_s), median(limit));
    note6 += buf;
    limit6d.ours_s = median(ob);
    limit6d.baseline_s = median(cpu_b);
    limit6d.ratio = median(busy_b);
    limit6d.rounds = rounds;
    std::snprintf(buf, sizeof buf, "Azurite's CPU: %.0f us per entity in $batch, %.0f us per one-by-one insert",
                  1e6 * median(cpu_b), 1e6 * median(cpu_s));
    rd.note = buf;
  }
  finish(r, median(ob), median(os), ratio6, note6);
  if (want_small) {
    std::string note6e = std::to_string(n_bulk) + " vs " + std::to_string(n_single) + " entities per round";
    if (measured(load_small_bulk) && measured(load_small_single)) {
      std::vector<double> busy_b, busy_s, limit;
      for (std::size_t i = 0; i < load_small_bulk.size(); ++i) {
        busy_b.push_back(load_small_bulk[i].cpu / load_small_bulk[i].wall);
        busy_s.push_back(load_small_single[i].cpu / load_small_single[i].wall);
        limit.push_back(load_small_single[i].wall / load_small_bulk[i].cpu);
      }
      // Two ceilings: Azurite's CPU time per entity in the bulk write, and
      // the bulk writer's default pacing at the service's account target
      // (bulk_options::account_rate, 20,000 entities/s).
      const double paced = aztables::bulk_options{}.account_rate * median(ss);
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "; Azurite's JavaScript thread %.0f%% busy in the bulk write, %.0f%% one by one: no client passes "
                    "%.1fx here; the default pacing (%.0f entities/s) caps ours at %.1fx",
                    100 * median(busy_b), 100 * median(busy_s), median(limit), aztables::bulk_options{}.account_rate,
                    paced);
      note6e += buf;
    }
    finish(re, median(sb), median(ss), ratio6e, note6e);
  }
  if (js) {
    finish(rb, median(ob), median(jb), ratio6b, std::to_string(n_bulk) + " entities each per round");
    finish(rc, median(os), median(js_s), ratio6c, std::to_string(n_single) + " entities each per round");
  }
  if (ctx.wants(rd.id) && azurite_known) {
    if (have_load) ctx.add(rd, limit6d);
    else ctx.skip(rd, "Azurite's CPU time was too short to read (/proc counts in clock ticks)");
  }
}

}  // namespace bench
