// SPDX-License-Identifier: MIT
// aztables benchmark suite: ours against a baseline measured in the same run.
//
//   aztables_bench [--quick | --smoke | --callgrind N] [--only 1a,3,5] [--json FILE]
//
// Run it through tests/bench/run.sh, which builds it with optimisation first.
#include "harness.hpp"
#include "rows.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

#ifndef AZTABLES_BENCH_CXX
#define AZTABLES_BENCH_CXX "unknown"
#endif
#ifndef AZTABLES_BENCH_FLAGS
#define AZTABLES_BENCH_FLAGS "unknown"
#endif

namespace {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o;
}

std::string first_line_of(const char* path, const char* prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) {
      auto p = line.find(':');
      std::string v = p == std::string::npos ? line : line.substr(p + 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      return v;
    }
  return "";
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void write_json(const std::string& path, const bench::context& ctx, const std::string& started) {
  std::ostringstream o;
  const char* mode = ctx.s.m == bench::mode::full    ? "full"
                     : ctx.s.m == bench::mode::quick ? "quick"
                     : ctx.s.m == bench::mode::smoke ? "smoke"
                                                     : "callgrind";
  o << "{\n  \"date\": \"" << started << "\",\n  \"mode\": \"" << mode << "\",\n";
  o << "  \"cpu\": \"" << json_escape(first_line_of("/proc/cpuinfo", "model name")) << "\",\n";
  o << "  \"load_average\": \"" << json_escape(first_line_of("/proc/loadavg", "")) << "\",\n";
  o << "  \"compiler\": \"" << json_escape(AZTABLES_BENCH_CXX) << "\",\n";
  o << "  \"flags\": \"" << json_escape(AZTABLES_BENCH_FLAGS) << "\",\n";
  o << "  \"simdjson_builtin\": \"" << bench::simdjson_builtin() << "\",\n";
  o << "  \"simdjson_active\": \"" << bench::simdjson_active() << "\",\n";
  o << "  \"rows\": [";
  for (std::size_t i = 0; i < ctx.rows.size(); ++i) {
    const auto& r = ctx.rows[i];
    o << (i ? ",\n" : "\n") << "    {\"id\": \"" << r.id << "\", \"title\": \"" << json_escape(r.title)
      << "\", \"ours\": \"" << json_escape(r.ours) << "\", \"baseline\": \"" << json_escape(r.baseline)
      << "\", \"unit\": \"" << r.unit << "\", \"units_per_op\": " << num(r.units_per_op)
      << ", \"ours_seconds_per_op\": " << num(r.ours_s) << ", \"baseline_seconds_per_op\": " << num(r.baseline_s)
      << ", \"ours_display\": \"" << json_escape(bench::cell(r, r.ours_s)) << "\", \"baseline_display\": \""
      << json_escape(bench::cell(r, r.baseline_s)) << "\", \"ratio\": " << num(r.ratio)
      << ", \"target\": " << num(r.target) << ", \"target_text\": \"" << json_escape(r.target_text)
      << "\", \"status\": \"" << r.status << "\", \"rounds\": " << r.rounds << ", \"note\": \""
      << json_escape(r.note) << "\"}";
  }
  o << "\n  ]\n}\n";
  std::ofstream out(path);
  out << o.str();
}

void usage() {
  std::puts(
      "usage: aztables_bench [--quick | --smoke | --callgrind N] [--only IDS] [--json FILE]\n"
      "  --quick        fewer rounds (5), shorter samples\n"
      "  --smoke        one tiny round per row: checks the suite runs (CI); no pass/fail on ratios\n"
      "  --callgrind N  run each side N times between callgrind dumps (see tests/bench/callgrind.sh)\n"
      "  --only IDS     comma-separated row ids or prefixes (1, 1a, 3b, ...)\n"
      "  --json FILE    write the results as JSON\n"
      "Row 6 needs AZTABLES_TEST_CONNECTION_STRING (an Azurite; tests/bench/run.sh starts one).");
}

}  // namespace

int main(int argc, char** argv) {
  bench::context ctx;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") ctx.s.m = bench::mode::quick;
    else if (a == "--smoke") ctx.s.m = bench::mode::smoke;
    else if (a == "--callgrind") {
      ctx.s.m = bench::mode::callgrind;
      ctx.s.callgrind_iterations = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--only") {
      std::stringstream ss(next());
      std::string id;
      while (std::getline(ss, id, ','))
        if (!id.empty()) ctx.only.push_back(id);
    } else if (a == "--json") json_path = next();
    else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  const std::string started = now_utc();
  std::printf("aztables benchmarks  %s  cpu: %s  load: %s\n", started.c_str(),
              first_line_of("/proc/cpuinfo", "model name").c_str(), first_line_of("/proc/loadavg", "").c_str());
  std::printf("compiler: %s  flags: %s\n", AZTABLES_BENCH_CXX, AZTABLES_BENCH_FLAGS);
  std::printf("simdjson: On-Demand compiled for '%s', runtime dispatch picked '%s' (stage 1)\n",
              bench::simdjson_builtin().c_str(), bench::simdjson_active().c_str());
  std::printf("ratio = baseline time / our time (our speed relative to the baseline); medians of %d interleaved "
              "rounds\n\n",
              ctx.s.rounds());
  if (ctx.s.m != bench::mode::callgrind) bench::context::print_header();
  int rc = 0;
  try {
    bench::rows_decode(ctx);
    bench::rows_write(ctx);
    bench::rows_sign(ctx);
    bench::rows_http(ctx);
    bench::rows_ingest(ctx);
    bench::rows_compile(ctx);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aztables_bench: %s\n", e.what());
    rc = 1;
  }
  if (!json_path.empty()) {
    write_json(json_path, ctx, started);
    std::printf("\nresults written to %s\n", json_path.c_str());
  }
  if (ctx.s.m == bench::mode::full || ctx.s.m == bench::mode::quick) {
    int fails = 0;
    for (const auto& r : ctx.rows) fails += r.status == "FAIL";
    std::printf("%d row(s) below target\n", fails);
  }
  return rc;
}
