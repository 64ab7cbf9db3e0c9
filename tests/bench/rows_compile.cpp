// SPDX-License-Identifier: MIT
// Row 7: compile cost, measured as the compiler's CPU time (user + system, from
// wait4), so the shared machine's load does not count.
//   7a ours: a model TU that includes only <aztables/mapping.hpp> and maps a
//      struct (tests/bench/compile/model.cpp); baseline: the same model with
//      <aztables/aztables.hpp> in header-only mode (compile/full.cpp).
//   7b ours: the full TU in separate-compilation mode (the library's
//      definitions compiled once elsewhere); baseline: header-only full TU.
//   7c ours: the model TU plus to_entity/from_entity instantiated for the
//      struct (compile/model_convert.cpp); baseline: the full TU. Information.
// Both at -O0 (the edit-compile loop). Smoke mode runs -fsyntax-only once.
#include "harness.hpp"
#include "rows.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

#ifndef AZTABLES_BENCH_COMPILER
#define AZTABLES_BENCH_COMPILER "c++"
#endif

namespace bench {
namespace {

/// Runs the compiler on `tu` and returns its CPU seconds (user + system).
double compile_cpu_seconds(const std::string& tu, const std::vector<std::string>& extra, bool syntax_only) {
  std::vector<std::string> args = {AZTABLES_BENCH_COMPILER, "-std=c++17", "-I" AZTABLES_BENCH_INCLUDE};
  for (const auto& e : extra) args.push_back(e);
  if (syntax_only) {
    args.push_back("-fsyntax-only");
  } else {
    args.insert(args.end(), {"-O0", "-c", "-o", "/dev/null"});
  }
  args.push_back(std::string(AZTABLES_BENCH_SOURCE_DIR) + "/compile/" + tu);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("row 7: compiling compile/" + tu + " failed");
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

/// A timed_fn over compiler runs: returns the CPU time of `n` compilations.
timed_fn compiler(std::string tu, std::vector<std::string> extra, bool syntax_only) {
  return [tu, extra, syntax_only](std::size_t n) {
    double t = 0;
    for (std::size_t i = 0; i < n; ++i) t += compile_cpu_seconds(tu, extra, syntax_only);
    return t;
  };
}

/// Interleaved rounds with one compilation per side per round (no calibration).
comparison compare_compiles(const settings& s, const timed_fn& ours, const timed_fn& base) {
  const int rounds = s.m == mode::full ? 5 : s.m == mode::quick ? 3 : 1;
  std::vector<double> o, b, r;
  for (int i = 0; i < rounds; ++i) {
    double to, tb;
    if (i % 2 == 0) {
      to = ours(1);
      tb = base(1);
    } else {
      tb = base(1);
      to = ours(1);
    }
    o.push_back(to);
    b.push_back(tb);
    r.push_back(tb / to);
  }
  comparison c;
  c.ours_s = median(o);
  c.baseline_s = median(b);
  c.ratio = median(r);
  c.rounds = rounds;
  c.ours_iters = c.baseline_iters = 1;
  return c;
}

}  // namespace

void rows_compile(context& ctx) {
  if (ctx.s.m == mode::callgrind) return;  // not an instruction-count row
  const bool syntax_only = ctx.s.m == mode::smoke;
  {
    row r;
    r.id = "7a";
    r.title = "compile: model TU vs full-SDK TU (-O0, CPU)";
    r.ours = "compile/model.cpp: <aztables/mapping.hpp>, a struct and its entity_traits";
    r.baseline = "compile/full.cpp: the same with <aztables/aztables.hpp>, header-only";
    r.unit = "s";
    r.target = 1 / 0.3;
    r.max_ours_s = 0.5;
    r.target_text = ">= 3.33x, ours < 0.5 s";
    if (ctx.wants(r.id)) {
      auto c = compare_compiles(ctx.s, compiler("model.cpp", {}, syntax_only), compiler("full.cpp", {}, syntax_only));
      char note[96];
      std::snprintf(note, sizeof note, "model TU takes %.2fx the full TU's time", c.baseline_s > 0 ? c.ours_s / c.baseline_s : 0);
      r.note = note;
      ctx.add(r, c);
    }
  }
  {
    row r;
    r.id = "7b";
    r.title = "compile: full TU, separate vs header-only (-O0)";
    r.ours = "compile/full.cpp with -DAZTABLES_SEPARATE_COMPILATION (definitions in one src TU)";
    r.baseline = "compile/full.cpp, header-only";
    r.unit = "s";
    r.target_text = "(info)";
    if (ctx.wants(r.id) && ctx.s.m == mode::smoke) {
      ctx.skip(r, "not in smoke mode (7a already compiles the full TU)");
    } else if (ctx.wants(r.id)) {
      auto c = compare_compiles(ctx.s, compiler("full.cpp", {"-DAZTABLES_SEPARATE_COMPILATION"}, syntax_only),
                                compiler("full.cpp", {}, syntax_only));
      ctx.add(r, c);
    }
  }
  {
    row r;
    r.id = "7c";
    r.title = "compile: model TU + conversions vs full TU (-O0)";
    r.ours = "compile/model_convert.cpp: the model TU plus to_entity/from_entity for the struct";
    r.baseline = "compile/full.cpp, header-only";
    r.unit = "s";
    r.target_text = "(info)";
    if (ctx.wants(r.id) && ctx.s.m == mode::smoke) {
      ctx.skip(r, "not in smoke mode");
    } else if (ctx.wants(r.id)) {
      ctx.add(r, compare_compiles(ctx.s, compiler("model_convert.cpp", {}, syntax_only), compiler("full.cpp", {}, syntax_only)));
    }
  }
}

}  // namespace bench
