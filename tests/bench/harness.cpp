// SPDX-License-Identifier: MIT
#include "harness.hpp"

#include <cstdio>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define AZTABLES_BENCH_HAVE_CALLGRIND 1
#endif
#endif

namespace bench {

void callgrind_section(const std::string& label, const timed_fn& f, std::size_t iterations) {
#if defined(AZTABLES_BENCH_HAVE_CALLGRIND)
  // The label becomes the dump's trigger text; callgrind.sh divides by the count.
  const std::string name = label + " x" + std::to_string(iterations);
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  f(iterations);
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT(name.c_str());
  std::printf("callgrind section: %s\n", name.c_str());
#else
  (void)label;
  f(iterations);
  std::printf("callgrind section (no valgrind headers): %s\n", label.c_str());
#endif
}

void context::add(row r, const comparison& c) {
  r.ours_s = c.ours_s;
  r.baseline_s = c.baseline_s;
  r.ratio = c.ratio;
  r.rounds = c.rounds;
  if (s.m == mode::callgrind) {
    r.status = "CALLGRIND";
  } else if (s.m == mode::smoke) {
    r.status = "SMOKE";  // one short round: proves the row runs, says nothing about speed
  } else if (r.target > 0) {
    r.status = r.ratio >= r.target ? "PASS" : "FAIL";
    if (r.max_ours_s > 0 && r.ours_s > r.max_ours_s) {
      r.status = "FAIL";
      r.note += (r.note.empty() ? "" : "; ") + std::string("over the ") + human_time(r.max_ours_s) + " ceiling";
    }
  } else {
    r.status = "INFO";
  }
  if (s.m != mode::callgrind) print(r);
  rows.push_back(std::move(r));
}

void context::skip(row r, const std::string& why) {
  r.status = "SKIP";
  r.note = why;
  print(r);
  rows.push_back(std::move(r));
}

void context::print_header() {
  std::printf("%-4s %-46s %16s %16s %9s %-20s %s\n", "row", "benchmark", "ours", "baseline", "ratio", "target",
              "result");
  std::fflush(stdout);
}

void context::print(const row& r) const {
  char ratio[32] = "-";
  if (r.ratio > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.ratio);
  std::printf("%-4s %-46s %16s %16s %9s %-20s %s%s%s\n", r.id.c_str(), r.title.c_str(), cell(r, r.ours_s).c_str(),
              cell(r, r.baseline_s).c_str(), ratio, r.target_text.c_str(), r.status.c_str(),
              r.note.empty() ? "" : "  ", r.note.c_str());
  std::fflush(stdout);
}

}  // namespace bench
