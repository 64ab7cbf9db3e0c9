// SPDX-License-Identifier: MIT
// The benchmark harness: every row times "ours" against a baseline measured in
// the same run, interleaved (ours, baseline, baseline, ours, ...) over several
// rounds, and reports medians. The machine is shared and noisy, so the claim
// is always the ratio of two numbers taken side by side, never an absolute time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <time.h>

namespace bench {

/// Keeps a value alive so the optimiser cannot drop the work producing it.
template <class T>
inline void keep(T const& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

/// How hard to measure: full runs (the README table), a short run, the CI smoke
/// run (correctness of the suite only), or callgrind (fixed iteration counts,
/// instruction counts dumped per side by tests/bench/callgrind.sh).
enum class mode { full, quick, smoke, callgrind };

struct settings {
  mode m = mode::full;
  std::size_t callgrind_iterations = 20;
  int rounds() const { return m == mode::full ? 15 : m == mode::quick ? 5 : 1; }
  /// Wall time one sample should take.
  double sample_seconds() const { return m == mode::full ? 0.02 : m == mode::quick ? 0.01 : 0.0005; }
};

/// A timed operation: runs the work `iterations` times and returns seconds.
using timed_fn = std::function<double(std::size_t iterations)>;

/// CPU time of the calling thread: time spent descheduled (this machine is
/// shared) does not count. For work that waits on another process (a server,
/// Azurite, the compiler) use `loop_wall`.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Wraps a callable doing one CPU-bound operation into a loop timed by thread CPU time.
template <class F>
timed_fn loop(F f) {
  return [f](std::size_t n) mutable {
    const double t0 = thread_cpu_seconds();
    for (std::size_t i = 0; i < n; ++i) f();
    return thread_cpu_seconds() - t0;
  };
}

/// Wraps a callable into a loop timed by wall-clock time (I/O-bound work).
template <class F>
timed_fn loop_wall(F f) {
  return [f](std::size_t n) mutable {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Seconds per operation of both sides and the per-round speed ratios.
struct comparison {
  double ours_s = 0;      ///< median seconds per operation
  double baseline_s = 0;  ///< median seconds per operation
  double ratio = 0;       ///< median over rounds of baseline_time / ours_time (our speed relative to the baseline)
  std::size_t ours_iters = 0, baseline_iters = 0;
  int rounds = 0;
};

/// Iterations so that one sample takes about `seconds`.
inline std::size_t calibrate(const timed_fn& f, double seconds) {
  std::size_t n = 1;
  double t = f(1);  // warm-up and first estimate
  for (int i = 0; i < 30; ++i) {
    t = f(n);
    if (t >= seconds / 4 || n >= (std::size_t(1) << 30)) break;
    n *= t > 0 ? std::max<std::size_t>(2, std::min<std::size_t>(16, static_cast<std::size_t>(seconds / 4 / t) + 1)) : 16;
  }
  const double per = t / static_cast<double>(n);
  return std::max<std::size_t>(1, static_cast<std::size_t>(seconds / std::max(per, 1e-12)));
}

/// Under callgrind: runs `f` a fixed number of times between zeroing and
/// dumping the counters, so the dump named `label` holds exactly that work.
void callgrind_section(const std::string& label, const timed_fn& f, std::size_t iterations);

/// Times both sides interleaved over `s.rounds()` rounds (alternating which
/// goes first) and takes medians. Under callgrind, dumps instruction counts
/// for each side instead (labels "<id> ours" / "<id> baseline").
inline comparison compare(const settings& s, const timed_fn& ours, const timed_fn& baseline,
                          const std::string& id = "") {
  comparison c;
  if (s.m == mode::callgrind) {
    ours(1);  // warm: buffers, pools, connections
    baseline(1);
    callgrind_section(id + " ours", ours, s.callgrind_iterations);
    callgrind_section(id + " baseline", baseline, s.callgrind_iterations);
    c.ours_iters = c.baseline_iters = s.callgrind_iterations;
    return c;
  }
  c.ours_iters = calibrate(ours, s.sample_seconds());
  c.baseline_iters = calibrate(baseline, s.sample_seconds());
  std::vector<double> o, b, r;
  for (int round = 0; round < s.rounds(); ++round) {
    double to, tb;
    if (round % 2 == 0) {
      to = ours(c.ours_iters) / static_cast<double>(c.ours_iters);
      tb = baseline(c.baseline_iters) / static_cast<double>(c.baseline_iters);
    } else {
      tb = baseline(c.baseline_iters) / static_cast<double>(c.baseline_iters);
      to = ours(c.ours_iters) / static_cast<double>(c.ours_iters);
    }
    o.push_back(to);
    b.push_back(tb);
    r.push_back(tb / to);
  }
  c.ours_s = median(o);
  c.baseline_s = median(b);
  c.ratio = median(r);
  c.rounds = s.rounds();
  return c;
}

/// One line of the report.
struct row {
  std::string id;           ///< "1a"
  std::string title;        ///< what is measured
  std::string ours;         ///< what "ours" runs
  std::string baseline;     ///< what the baseline runs
  std::string unit;         ///< "B" (bytes: show GB/s), "op" (show per-op time and ops/s), "req", "entity", "s"
  double units_per_op = 1;  ///< bytes or entities per operation (throughput column)
  double ours_s = 0, baseline_s = 0, ratio = 0;
  double target = 0;        ///< minimum ratio; 0 = none
  double max_ours_s = 0;    ///< also an absolute ceiling on ours (seconds per op); 0 = none
  std::string target_text;  ///< e.g. ">= 0.5x"
  std::string status;       ///< PASS, FAIL, SKIP, INFO
  std::string note;
  int rounds = 0;
};

inline std::string human_rate(double per_second, const std::string& unit) {
  char buf[64];
  if (unit == "B") {
    if (per_second >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB/s", per_second / 1e9);
    else std::snprintf(buf, sizeof buf, "%.0f MB/s", per_second / 1e6);
  } else if (per_second >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM %s/s", per_second / 1e6, unit.c_str());
  } else if (per_second >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1fk %s/s", per_second / 1e3, unit.c_str());
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s/s", per_second, unit.c_str());
  }
  return buf;
}

inline std::string human_time(double s) {
  char buf[64];
  if (s >= 1) std::snprintf(buf, sizeof buf, "%.2f s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  return buf;
}

/// "ours" / "baseline" cell text: a rate for throughput rows, a time otherwise.
inline std::string cell(const row& r, double seconds_per_op) {
  if (seconds_per_op <= 0) return "-";
  if (r.unit == "s") return human_time(seconds_per_op);
  if (r.unit == "op") return human_time(seconds_per_op);
  return human_rate(r.units_per_op / seconds_per_op, r.unit);
}

/// Collects rows, prints each as it completes and writes the JSON report.
class context {
 public:
  settings s;
  std::vector<std::string> only;  ///< row ids or id prefixes to run; empty: all
  std::vector<row> rows;

  bool wants(const std::string& id) const {
    if (only.empty()) return true;
    for (const auto& o : only)
      if (id.compare(0, o.size(), o) == 0) return true;
    return false;
  }
  /// Fills the timing fields of `r` from `c`, decides pass/fail, prints it.
  void add(row r, const comparison& c);
  /// A row without a measurement (skipped, or pending a feature).
  void skip(row r, const std::string& why);
  static void print_header();
  void print(const row& r) const;
};

}  // namespace bench
