// SPDX-License-Identifier: MIT
// Links two TUs that include every header (plus, in separate-compilation mode,
// the src TU) and checks that both compute the same, correct results.
#include "common.hpp"

#include <cstdio>

int main() {
  const std::string a = linkage::work_a(), b = linkage::work_b(), here = linkage::work();
  std::printf("a:    %s\nb:    %s\nmain: %s\n", a.c_str(), b.c_str(), here.c_str());
  const bool same = a == b && b == here;
  const bool ok = a.find("|client|entity|upsert|back|name|") != std::string::npos &&
                  a.find("|00007|not_found|curl") != std::string::npos;
  if (!same) std::puts("FAIL: the translation units disagree");
  if (!ok) std::puts("FAIL: unexpected results");
  return same && ok ? 0 : 1;
}
