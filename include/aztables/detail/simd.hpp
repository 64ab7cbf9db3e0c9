// SPDX-License-Identifier: MIT
// SSSE3 code paths (byte shuffles) for the base64 and GUID readers
// (detail/codec.hpp): x86-64 builds compile them for SSSE3 and pick them at
// run time (every x86-64 CPU since 2007 has it), unless the build already
// targets SSSE3. Other targets use the portable code.
#pragma once

#include <aztables/config.hpp>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <tmmintrin.h>
#define AZTABLES_SSSE3 1
#if defined(__SSSE3__)
#define AZTABLES_SSSE3_TARGET
#else
#define AZTABLES_SSSE3_TARGET __attribute__((target("ssse3")))
#endif

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// Whether this CPU runs the AZTABLES_SSSE3_TARGET functions (asked once).
inline bool ssse3_available() noexcept {
#if defined(__SSSE3__)
  return true;
#else
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") != 0;
  }();
  return yes;
#endif
}

}  // namespace detail
AZTABLES_NAMESPACE_END
#endif
