// SPDX-License-Identifier: MIT
/// \file edm.hpp
/// The Edm value types a mapped struct's members use: `binary`, `datetime`
/// (with `ticks`), `guid` and `etag`, plus the `edm` type enumeration. Std
/// headers only: model code includes it through mapping.hpp and stays cheap
/// to compile (the dynamic `value` and `entity` are in entity.hpp).
#pragma once

#include <aztables/config.hpp>
#include <aztables/detail/bytes.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ratio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// Edm.Binary: raw bytes (at most 64 KiB per property).
using binary = std::vector<std::uint8_t>;

/// 100-nanosecond ticks: the service's DateTime precision.
using ticks = std::chrono::duration<std::int64_t, std::ratio<1, 10000000>>;

/// Edm.DateTime: a UTC time point with 100 ns precision.
using datetime = std::chrono::time_point<std::chrono::system_clock, ticks>;

namespace detail {
struct edm_access;
}  // namespace detail

/// Edm.Guid: 16 bytes, written in the canonical lowercase 8-4-4-4-12 form.
class guid {
 public:
  /// The nil GUID (all zero).
  guid() = default;
  /// A GUID from its 16 bytes, in the order of its canonical text form.
  explicit guid(const std::array<std::uint8_t, 16>& bytes) : bytes_(bytes) {}

  /// Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (either case, optional
  /// braces). Returns nullopt for anything else.
  static std::optional<guid> parse(std::string_view s) {
    guid g;
    if (!parse_to(s, g)) return std::nullopt;
    return g;
  }
  /// The canonical lowercase form.
  std::string to_string() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(36);
    for (std::size_t i = 0; i < 16; ++i) {
      if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
      s += digits[bytes_[i] >> 4];
      s += digits[bytes_[i] & 15];
    }
    return s;
  }

  /// The 16 bytes, in the order of the canonical text form.
  const std::array<std::uint8_t, 16>& bytes() const noexcept { return bytes_; }
  friend bool operator==(const guid& a, const guid& b) noexcept { return a.bytes_ == b.bytes_; }
  friend bool operator!=(const guid& a, const guid& b) noexcept { return !(a == b); }
  friend bool operator<(const guid& a, const guid& b) noexcept { return a.bytes_ < b.bytes_; }

 private:
  friend struct detail::edm_access;

  /// Parses into `g` (left unchanged on failure). The 32 digits are read as
  /// four words of 8 (SWAR: checked and converted 8 at a time) and the bytes
  /// stored as two words: byte-wise stores read back as one 16-byte copy
  /// stalled store forwarding, in profiles. (The query readers use
  /// detail::parse_guid, which reads 16 digits per register where it can.)
  static bool parse_to(std::string_view s, guid& g) noexcept {
    const char* p = digits_of(s);
    if (!p) return false;
    std::uint32_t b0, b1, b2, b3;
    using detail::load4;
    using detail::load8;
    if (!hex8(load8(p), b0) || !hex8(load4(p + 9) | std::uint64_t(load4(p + 14)) << 32, b1) ||
        !hex8(load4(p + 19) | std::uint64_t(load4(p + 24)) << 32, b2) || !hex8(load8(p + 28), b3))
      return false;
    detail::store8(g.bytes_.data(), b0 | std::uint64_t(b1) << 32);
    detail::store8(g.bytes_.data() + 8, b2 | std::uint64_t(b3) << 32);
    return true;
  }
  /// The 36-character form in `s` (braces stripped) with its dashes checked,
  /// or nullptr; its digits are not checked yet.
  static const char* digits_of(std::string_view s) noexcept {
    if (s.size() == 38 && s.front() == '{' && s.back() == '}') s = s.substr(1, 36);
    if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return nullptr;
    return s.data();
  }
  /// Eight hex digits (the first in the low byte of `x`) to four bytes (the
  /// first in the low byte of `out`); false if any is not a hex digit.
  /// Inlined: as four calls it was a third of a GUID's cost.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  static bool hex8(std::uint64_t x, std::uint32_t& out) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
    if (x & high) return false;                                          // not ASCII
    const std::uint64_t digit = (x + ones * 0x50) & ~(x + ones * 0x46) & high;  // '0'..'9'
    const std::uint64_t l = x | ones * 0x20;                             // letters lowered
    const std::uint64_t alpha = (l + ones * 0x1F) & ~(l + ones * 0x19) & high;  // 'a'..'f'
    if ((digit | alpha) != high) return false;
    const std::uint64_t v = (x & ones * 0x0F) + (alpha >> 7) * 9;  // each byte's value
    std::uint64_t t = ((v << 4) | (v >> 8)) & 0x00FF00FF00FF00FFULL;  // pairs into bytes 0, 2, 4, 6
    t = (t | (t >> 8)) & 0x0000FFFF0000FFFFULL;
    out = static_cast<std::uint32_t>(t | (t >> 16));
    return true;
  }
  std::array<std::uint8_t, 16> bytes_{};
};

/// An entity's ETag, for optimistic concurrency. Empty means "none known";
/// `etag::any()` is `*` and matches any version.
class etag {
 public:
  /// No ETag ("none known").
  etag() = default;
  /// An ETag exactly as the service sent it (e.g. `W/"datetime'...'"`).
  explicit etag(std::string value) : value_(std::move(value)) {}
  /// `*`: matches whatever version is stored (an unconditional update/delete).
  static etag any() { return etag("*"); }
  /// True when no ETag is known.
  bool empty() const noexcept { return value_.empty(); }
  /// True for `etag::any()` (`*`).
  bool is_any() const noexcept { return value_ == "*"; }
  /// The ETag exactly as the service sent it.
  const std::string& str() const noexcept { return value_; }
  friend bool operator==(const etag& a, const etag& b) noexcept { return a.value_ == b.value_; }
  friend bool operator!=(const etag& a, const etag& b) noexcept { return !(a == b); }

 private:
  friend struct detail::edm_access;
  std::string value_;
};

/// The eight property types of the Table service.
enum class edm { string, binary, boolean, datetime, double_, guid, int32, int64 };

/// The OData name of an Edm type, e.g. "Edm.Int64".
inline const char* edm_name(edm t) noexcept {
  switch (t) {
    case edm::string: return "Edm.String";
    case edm::binary: return "Edm.Binary";
    case edm::boolean: return "Edm.Boolean";
    case edm::datetime: return "Edm.DateTime";
    case edm::double_: return "Edm.Double";
    case edm::guid: return "Edm.Guid";
    case edm::int32: return "Edm.Int32";
    case edm::int64: return "Edm.Int64";
  }
  return "Edm.Unknown";
}

namespace detail {
/// The readers' way into guid and etag (not part of the public API).
struct edm_access {
  /// Parses a GUID straight into `g`; false (g unchanged) if `s` is not one.
  static bool parse_guid(std::string_view s, guid& g) noexcept { return guid::parse_to(s, g); }
  /// guid::parse's shape check: the 36-character form (braces stripped), or nullptr.
  static const char* guid_digits(std::string_view s) noexcept { return guid::digits_of(s); }
  /// A GUID's bytes, to store in place.
  static std::uint8_t* bytes(guid& g) noexcept { return g.bytes_.data(); }
  /// The text of an ETag, to assign in place.
  static std::string& text(aztables::etag& t) noexcept { return t.value_; }
};
}  // namespace detail

AZTABLES_NAMESPACE_END
