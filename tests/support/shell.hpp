// SPDX-License-Identifier: MIT
// Running a shell command from a test or benchmark (the JS SDK cross-checks):
// quoting, and the command's exit status and output.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include <stdio.h>
#include <sys/wait.h>

namespace aztables_test {

/// `s` as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `cmd` with /bin/sh: its exit status (-1 when it did not exit
/// normally) and its stdout and stderr together.
inline std::pair<int, std::string> run_command(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace aztables_test
