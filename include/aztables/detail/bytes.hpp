// SPDX-License-Identifier: MIT
// Little-endian word loads and stores for the SWAR parsers (GUID, ISO 8601,
// base64, name matching). Kept apart so the light model header (edm.hpp)
// can use them without the codecs.
#pragma once

#include <aztables/config.hpp>

#include <cstdint>
#include <cstring>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// The sizeof(W) bytes at `p` as a little-endian word.
template <class W>
inline W load_le(const char* p) noexcept {
  W w;
  std::memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  if constexpr (sizeof w == 8) w = __builtin_bswap64(w);
  else w = __builtin_bswap32(w);
#endif
  return w;
}
inline std::uint64_t load8(const char* p) noexcept { return load_le<std::uint64_t>(p); }
inline std::uint32_t load4(const char* p) noexcept { return load_le<std::uint32_t>(p); }

/// Stores `w` at `p` as 8 little-endian bytes.
inline void store8(void* p, std::uint64_t w) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  std::memcpy(p, &w, 8);
}

/// The 8 bytes at `p` as a big-endian word (the first byte in the top bits).
inline std::uint64_t load8_be(const char* p) noexcept { return __builtin_bswap64(load8(p)); }
/// Stores `w` at `p` as 8 big-endian bytes (its top bits first).
inline void store8_be(void* p, std::uint64_t w) noexcept { store8(p, __builtin_bswap64(w)); }

}  // namespace detail
AZTABLES_NAMESPACE_END
