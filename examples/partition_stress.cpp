// partition_stress: the partitioning guide's stress-test procedure as a tool.
//
// Creates a test table, loads it (N partitions x M entities of about B bytes),
// then drives a configurable mix of point reads, upserts, batches and
// row-range queries against those partitions from a bounded number of
// threads, for a bounded time and number of operations. It reports, per
// partition, entities/s against the service's scalability target of about
// 2,000 entities/s per partition (and 20,000 per account), with latency
// percentiles per operation, error and throttle counts, and a live progress
// line on stderr. Every entity read, written or returned counts, as the
// service counts it.
//
//   AZTABLES_CONNECTION_STRING=... ./partition_stress [options]   (default: UseDevelopmentStorage=true)
//
// It talks only to the endpoint of the connection string; an endpoint that is
// not loopback (a real account: it costs money and can throttle neighbours)
// needs --yes. Run with --help for the options.
#include <aztables/aztables.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

constexpr double partition_target = 2000.0;  // entities/s per partition
constexpr double account_target = 20000.0;   // entities/s per account

const char* const usage_text = R"(usage: partition_stress [options]

  --connection-string CS     default: $AZTABLES_CONNECTION_STRING, else UseDevelopmentStorage=true
  --table NAME               the test table (default: a new "stress<N>"; deleted afterwards)
  --keep                     keep the table afterwards
  --partitions N             partitions driven (default 1; 1 to 1000)
  --entities M               entities loaded per partition (default 1000; 1 to 1000000)
  --entity-bytes B           approximate size of each entity (default 1024: the target's unit)
  --duration S               seconds of load (default 10; at most 3600)
  --max-operations N         stop after N operations (default 10000000)
  --concurrency C            operations in flight (threads; default 8; 1 to 256)
  --mix read=R,upsert=U,batch=B,query=Q
                             relative weights (default read=60,upsert=25,batch=10,query=5)
  --batch-size K             upserts per batch (default 100; 1 to 100)
  --query-size Q             entities per row-range query ($top; default 100; 1 to 1000)
  --retries N                SDK retries per operation (default 0: throttling shows as it happens)
  --seed S                   random seed (default 1)
  --yes                      allow an endpoint that is not loopback
  --help                     this text
)";

struct usage_error {
  std::string message;
};

struct options {
  std::string connection_string;
  std::string table;
  bool keep = false;
  int partitions = 1;
  int entities = 1000;
  int entity_bytes = 1024;
  double duration_s = 10;
  std::uint64_t max_operations = 10000000;
  int concurrency = 8;
  int weights[4] = {60, 25, 10, 5};  // read, upsert, batch, query
  int batch_size = 100;
  int query_size = 100;
  int retries = 0;
  std::uint64_t seed = 1;
  bool yes = false;
};

enum op_kind { op_read = 0, op_upsert, op_batch, op_query, op_count };
const char* const op_names[op_count] = {"read", "upsert", "batch", "query"};

long long parse_int(const std::string& s, const char* name, long long lo, long long hi) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < lo || v > hi)
    throw usage_error{std::string(name) + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi)};
  return v;
}

options parse(int argc, char** argv) {
  options o;
  if (const char* cs = std::getenv("AZTABLES_CONNECTION_STRING"); cs && *cs) o.connection_string = cs;
  else o.connection_string = "UseDevelopmentStorage=true";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error{a + " needs a value"};
      return argv[++i];
    };
    if (a == "--help") throw usage_error{""};
    else if (a == "--connection-string") o.connection_string = value();
    else if (a == "--table") o.table = value();
    else if (a == "--keep") o.keep = true;
    else if (a == "--yes") o.yes = true;
    else if (a == "--partitions") o.partitions = static_cast<int>(parse_int(value(), "--partitions", 1, 1000));
    else if (a == "--entities") o.entities = static_cast<int>(parse_int(value(), "--entities", 1, 1000000));
    else if (a == "--entity-bytes") o.entity_bytes = static_cast<int>(parse_int(value(), "--entity-bytes", 64, 900000));
    else if (a == "--duration") o.duration_s = static_cast<double>(parse_int(value(), "--duration", 1, 3600));
    else if (a == "--max-operations")
      o.max_operations = static_cast<std::uint64_t>(parse_int(value(), "--max-operations", 1, 1000000000));
    else if (a == "--concurrency") o.concurrency = static_cast<int>(parse_int(value(), "--concurrency", 1, 256));
    else if (a == "--batch-size") o.batch_size = static_cast<int>(parse_int(value(), "--batch-size", 1, 100));
    else if (a == "--query-size") o.query_size = static_cast<int>(parse_int(value(), "--query-size", 1, 1000));
    else if (a == "--retries") o.retries = static_cast<int>(parse_int(value(), "--retries", 0, 10));
    else if (a == "--seed") o.seed = static_cast<std::uint64_t>(parse_int(value(), "--seed", 0, 1LL << 62));
    else if (a == "--mix") {
      std::fill(std::begin(o.weights), std::end(o.weights), 0);
      std::string m = value();
      std::size_t pos = 0;
      while (pos < m.size()) {
        std::size_t comma = m.find(',', pos);
        if (comma == std::string::npos) comma = m.size();
        const std::string item = m.substr(pos, comma - pos);
        const auto eq = item.find('=');
        int k = -1;
        for (int j = 0; j < op_count; ++j)
          if (eq != std::string::npos && item.compare(0, eq, op_names[j]) == 0 && std::strlen(op_names[j]) == eq) k = j;
        if (k < 0) throw usage_error{"--mix: expected read=R,upsert=U,batch=B,query=Q, got '" + item + "'"};
        o.weights[k] = static_cast<int>(parse_int(item.substr(eq + 1), "--mix weight", 0, 1000000));
        pos = comma + 1;
      }
      if (o.weights[0] + o.weights[1] + o.weights[2] + o.weights[3] == 0) throw usage_error{"--mix: all weights are 0"};
    } else {
      throw usage_error{"unknown option " + a};
    }
  }
  return o;
}

std::string partition_name(int p) { return "stress-" + aztables::keys::zero_padded(p, 4).value(); }
std::string row_name(int r) { return aztables::keys::zero_padded(r, 7).value(); }

aztables::entity make_entity(int p, int r, const std::string& payload, std::uint64_t version) {
  aztables::entity e(partition_name(p), row_name(r));
  e.set("Data", payload).set("Version", static_cast<std::int64_t>(version));
  return e;
}

// Per-thread measurements, merged at the end (no shared writes on the hot path
// besides a few relaxed atomics).
struct thread_stats {
  std::vector<std::uint32_t> latency_us[op_count];
  std::uint64_t ops[op_count] = {};
  std::uint64_t entities[op_count] = {};
  std::uint64_t errors[op_count] = {};
  std::map<std::string, std::uint64_t> error_kinds;  // "throttled (503 ServerBusy)" -> n
};

struct shared_state {
  std::vector<std::atomic<std::uint64_t>> partition_entities;
  std::atomic<std::uint64_t> operations{0}, entities{0}, errors{0}, throttled_attempts{0};
  std::atomic<bool> stop{false};
  explicit shared_state(int partitions) : partition_entities(static_cast<std::size_t>(partitions)) {}
};

bool is_throttle(int http_status) { return http_status == 429 || http_status == 503 || http_status == 500; }

double percentile(std::vector<std::uint32_t>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k] / 1000.0;
}

int run(const options& o) {
  auto cfg = aztables::parse_connection_string(o.connection_string);
  if (!cfg) {
    std::fprintf(stderr, "partition_stress: %s\n", cfg.error().to_string().c_str());
    return 2;
  }
  const std::string& ep = cfg->table_endpoint;
  const bool loopback = ep.find("://127.") != std::string::npos || ep.find("://localhost") != std::string::npos ||
                        ep.find("://[::1]") != std::string::npos;
  if (!loopback && !o.yes) {
    std::fprintf(stderr,
                 "partition_stress: %s is not a loopback endpoint; a stress run there costs money and may be "
                 "throttled. Pass --yes to run anyway.\n",
                 ep.c_str());
    return 2;
  }

  shared_state st(o.partitions);
  aztables::client_options copt;
  copt.retry = o.retries == 0 ? aztables::retry_options::none() : aztables::retry_options{};
  if (o.retries > 0) copt.retry.max_retries = o.retries;
  copt.retry.on_attempt = [&st](const aztables::attempt_info& a) {
    if (a.failure && is_throttle(a.http_status)) st.throttled_attempts.fetch_add(1, std::memory_order_relaxed);
  };
  auto svc = aztables::service_client::from_connection_string(o.connection_string, copt);
  if (!svc) {
    std::fprintf(stderr, "partition_stress: %s\n", svc.error().to_string().c_str());
    return 2;
  }
  const std::string table_name = !o.table.empty() ? o.table
                                                  : "stress" + std::to_string(std::chrono::system_clock::now()
                                                                                   .time_since_epoch()
                                                                                   .count() %
                                                                               1000000000);
  auto created = svc->create_table_if_not_exists(table_name);
  if (!created) {
    std::fprintf(stderr, "partition_stress: create table %s: %s\n", table_name.c_str(),
                 created.error().to_string().c_str());
    return 1;
  }
  const bool drop_table = *created && !o.keep;
  aztables::table_client table = svc->table(table_name);
  // ~entity_bytes per entity by the service's size formula (UTF-16 strings).
  const std::string payload(static_cast<std::size_t>(std::max(16, (o.entity_bytes - 120) / 2)), 'x');

  // ---- load -------------------------------------------------------------
  std::printf("endpoint %s, table %s: loading %d partition(s) x %d entities of ~%d bytes\n", ep.c_str(),
              table_name.c_str(), o.partitions, o.entities, o.entity_bytes);
  {
    aztables::bulk_options bo;
    bo.concurrency = static_cast<std::size_t>(std::min(o.concurrency, 16));
    aztables::bulk_writer w(table, bo);
    for (int p = 0; p < o.partitions; ++p)
      for (int r = 0; r < o.entities; ++r) w.upsert(make_entity(p, r, payload, 0), aztables::update_mode::replace);
    const auto t0 = clock_type::now();
    auto lr = w.write();
    const double secs = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (!lr || !lr->ok()) {
      std::fprintf(stderr, "partition_stress: load failed: %s\n",
                   !lr ? lr.error().to_string().c_str() : lr->failures.front().error.to_string().c_str());
      if (drop_table) (void)svc->delete_table(table_name);
      return 1;
    }
    std::printf("loaded %zu entities in %zu batches, %.2f s (%.0f entities/s)\n", lr->written, lr->batches, secs,
                static_cast<double>(lr->written) / secs);
  }

  // ---- drive ------------------------------------------------------------
  std::printf("driving %d thread(s) for %.0f s (at most %" PRIu64 " operations), mix read=%d upsert=%d batch=%d query=%d\n",
              o.concurrency, o.duration_s, o.max_operations, o.weights[0], o.weights[1], o.weights[2], o.weights[3]);
  std::fflush(stdout);
  const auto start = clock_type::now();
  const auto deadline = start + std::chrono::milliseconds(static_cast<long long>(o.duration_s * 1000));
  std::vector<thread_stats> stats(static_cast<std::size_t>(o.concurrency));
  std::atomic<std::uint64_t> budget{0};
  std::atomic<std::uint64_t> version{1};
  const int weight_total = o.weights[0] + o.weights[1] + o.weights[2] + o.weights[3];

  auto worker = [&](int id) {
    thread_stats& ts = stats[static_cast<std::size_t>(id)];
    std::mt19937_64 rng(o.seed * 1000003u + static_cast<std::uint64_t>(id));
    std::uniform_int_distribution<int> pick_weight(0, weight_total - 1), pick_p(0, o.partitions - 1),
        pick_r(0, o.entities - 1);
    while (!st.stop.load(std::memory_order_relaxed) && clock_type::now() < deadline) {
      if (budget.fetch_add(1, std::memory_order_relaxed) >= o.max_operations) break;
      int w = pick_weight(rng), kind = 0;
      while (w >= o.weights[kind]) w -= o.weights[kind++];
      const int p = pick_p(rng);
      std::uint64_t n = 0;
      std::optional<aztables::error> err;
      const auto t0 = clock_type::now();
      switch (kind) {
        case op_read: {
          auto r = table.get({partition_name(p), row_name(pick_r(rng))});
          if (!r) err = r.error();
          else n = *r ? 1 : 0;
          break;
        }
        case op_upsert: {
          auto r = table.upsert(make_entity(p, pick_r(rng), payload, version.fetch_add(1)), aztables::update_mode::replace);
          if (!r) err = r.error();
          else n = 1;
          break;
        }
        case op_batch: {
          aztables::batch b(table);
          const int size = std::min(o.batch_size, o.entities);
          const int first = std::uniform_int_distribution<int>(0, o.entities - size)(rng);
          for (int r = first; r < first + size; ++r)
            b.upsert(make_entity(p, r, payload, version.fetch_add(1)), aztables::update_mode::replace);
          auto r = b.submit();
          if (!r) err = r.error();
          else n = r->actions.size();
          break;
        }
        case op_query: {
          auto q = aztables::query::row_range(partition_name(p), aztables::key_range::at_least(row_name(pick_r(rng))))
                       .limit(static_cast<std::size_t>(o.query_size));
          auto pager = table.query(std::move(q));
          while (!pager.done()) {
            auto pg = pager.next_page();
            if (!pg) {
              err = pg.error();
              break;
            }
            n += pg->items.size();
          }
          break;
        }
      }
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t0).count();
      ts.latency_us[kind].push_back(static_cast<std::uint32_t>(std::min<long long>(us, UINT32_MAX)));
      ++ts.ops[kind];
      if (err) {
        ++ts.errors[kind];
        ++ts.error_kinds[std::string(aztables::to_string(err->code)) + " (" + std::to_string(err->http_status) +
                         (err->service_code.empty() ? "" : " " + err->service_code) + ")"];
        st.errors.fetch_add(1, std::memory_order_relaxed);
      }
      ts.entities[kind] += n;
      st.partition_entities[static_cast<std::size_t>(p)].fetch_add(n, std::memory_order_relaxed);
      st.entities.fetch_add(n, std::memory_order_relaxed);
      st.operations.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < o.concurrency; ++i) threads.emplace_back(worker, i);

  // Live progress line: totals and the hottest partition's rate over the last second.
  std::vector<std::uint64_t> last(static_cast<std::size_t>(o.partitions), 0);
  auto last_t = start;
  std::uint64_t last_entities = 0;
  for (;;) {
    std::this_thread::sleep_until(std::min(deadline, clock_type::now() + std::chrono::seconds(1)));
    const auto now = clock_type::now();
    const double dt = std::chrono::duration<double>(now - last_t).count();
    double hottest = 0;
    for (int p = 0; p < o.partitions; ++p) {
      const std::uint64_t v = st.partition_entities[static_cast<std::size_t>(p)].load();
      hottest = std::max(hottest, static_cast<double>(v - last[static_cast<std::size_t>(p)]) / dt);
      last[static_cast<std::size_t>(p)] = v;
    }
    const std::uint64_t ent = st.entities.load();
    std::fprintf(stderr,
                 "\r[%5.1fs/%.0fs] %" PRIu64 " ops, %" PRIu64 " entities, %.0f entities/s, hottest partition %.0f/s "
                 "(%.0f%% of 2,000), errors %" PRIu64 ", throttled %" PRIu64 "   ",
                 std::chrono::duration<double>(now - start).count(), o.duration_s, st.operations.load(), ent,
                 static_cast<double>(ent - last_entities) / dt, hottest, hottest / partition_target * 100,
                 st.errors.load(), st.throttled_attempts.load());
    std::fflush(stderr);
    last_t = now;
    last_entities = ent;
    if (now >= deadline || budget.load() >= o.max_operations) break;
  }
  st.stop = true;
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
  std::fputc('\n', stderr);

  // ---- report -----------------------------------------------------------
  std::printf("\n%-16s %12s %12s %16s\n", "partition", "entities", "entities/s", "of 2,000 target");
  std::uint64_t total = 0;
  for (int p = 0; p < o.partitions; ++p) {
    const std::uint64_t v = st.partition_entities[static_cast<std::size_t>(p)].load();
    total += v;
    const double rate = static_cast<double>(v) / elapsed;
    std::printf("%-16s %12" PRIu64 " %12.0f %15.0f%%\n", partition_name(p).c_str(), v, rate, rate / partition_target * 100);
  }
  const double total_rate = static_cast<double>(total) / elapsed;
  std::printf("%-16s %12" PRIu64 " %12.0f %15.0f%% of the account's 20,000\n", "all partitions", total, total_rate,
              total_rate / account_target * 100);

  std::printf("\n%-8s %10s %10s %8s %9s %9s %9s %9s\n", "op", "count", "entities", "errors", "p50 ms", "p90 ms",
              "p99 ms", "max ms");
  std::map<std::string, std::uint64_t> error_kinds;
  std::uint64_t total_errors = 0;
  for (int k = 0; k < op_count; ++k) {
    std::vector<std::uint32_t> lat;
    std::uint64_t ops = 0, ents = 0, errs = 0;
    for (auto& ts : stats) {
      lat.insert(lat.end(), ts.latency_us[k].begin(), ts.latency_us[k].end());
      ops += ts.ops[k];
      ents += ts.entities[k];
      errs += ts.errors[k];
    }
    total_errors += errs;
    const double mx = lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end()) / 1000.0;
    std::printf("%-8s %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %9.2f %9.2f %9.2f %9.2f\n", op_names[k], ops, ents, errs,
                percentile(lat, 0.50), percentile(lat, 0.90), percentile(lat, 0.99), mx);
  }
  for (auto& ts : stats)
    for (auto& [kind, n] : ts.error_kinds) error_kinds[kind] += n;
  std::printf("\nthrottled attempts (429/500/503): %" PRIu64 "\n", st.throttled_attempts.load());
  for (auto& [kind, n] : error_kinds) std::printf("errors: %" PRIu64 " x %s\n", n, kind.c_str());
  std::printf("elapsed %.2f s, %" PRIu64 " operations\n", elapsed, st.operations.load());

  if (drop_table) {
    auto d = svc->delete_table(table_name);
    if (!d) std::fprintf(stderr, "partition_stress: delete table %s: %s\n", table_name.c_str(), d.error().to_string().c_str());
  }
  // Throttling is an observation, not a failure; any other error is.
  std::uint64_t throttle_errors = 0;
  for (auto& [kind, n] : error_kinds)
    if (kind.rfind("throttled", 0) == 0 || kind.find("(500") != std::string::npos) throttle_errors += n;
  return total_errors > throttle_errors ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const usage_error& e) {
    if (!e.message.empty()) std::fprintf(stderr, "partition_stress: %s\n\n", e.message.c_str());
    std::fputs(usage_text, e.message.empty() ? stdout : stderr);
    return e.message.empty() ? 0 : 2;
  }
}
