// SPDX-License-Identifier: MIT
/// \file entity.hpp
/// The dynamic entity and the eight Edm value types. Needs only std headers,
/// so model code that includes it stays cheap to compile.
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
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// Edm.Binary: raw bytes (at most 64 KiB per property).
using binary = std::vector<std::uint8_t>;

/// 100-nanosecond ticks: the service's DateTime precision.
using ticks = std::chrono::duration<std::int64_t, std::ratio<1, 10000000>>;

/// Edm.DateTime: a UTC time point with 100 ns precision.
using datetime = std::chrono::time_point<std::chrono::system_clock, ticks>;

namespace detail {
struct value_access;
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
  friend struct detail::value_access;

  /// Parses into `g` (left unchanged on failure). The 32 digits are read as
  /// four words of 8 (SWAR: checked and converted 8 at a time) and the bytes
  /// stored as two words: byte-wise stores read back as one 16-byte copy
  /// stalled store forwarding, in profiles.
  static bool parse_to(std::string_view s, guid& g) noexcept {
    if (s.size() == 38 && s.front() == '{' && s.back() == '}') s = s.substr(1, 36);
    if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return false;
    const char* p = s.data();
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
  /// Eight hex digits (the first in the low byte of `x`) to four bytes (the
  /// first in the low byte of `out`); false if any is not a hex digit.
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

namespace detail {
struct entity_access;
}  // namespace detail

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
  friend struct detail::value_access;
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

/// One typed property value. Construction picks the Edm type from the C++
/// type: `std::string`/`const char*` -> String, `bool` -> Boolean,
/// `std::int32_t` (and smaller ints) -> Int32, `std::int64_t` -> Int64,
/// `double` -> Double, `datetime` -> DateTime, `guid` -> Guid, `binary` -> Binary.
class value {
 public:
  /// The stored alternatives, in `edm` order.
  using storage = std::variant<std::string, binary, bool, datetime, double, guid, std::int32_t, std::int64_t>;

  /// An empty Edm.String.
  value() : v_(std::string()) {}
  /// Edm.String (valid UTF-8, checked when sent).
  value(std::string s) : v_(std::in_place_index<0>, std::move(s)) {}              // NOLINT
  /// Edm.String.
  value(std::string_view s) : v_(std::in_place_index<0>, std::string(s)) {}       // NOLINT
  /// Edm.String.
  value(const char* s) : v_(std::in_place_index<0>, std::string(s)) {}            // NOLINT
  /// Edm.Binary.
  value(binary b) : v_(std::in_place_index<1>, std::move(b)) {}                   // NOLINT
  /// Edm.Boolean.
  value(bool b) : v_(std::in_place_index<2>, b) {}                                // NOLINT
  /// Edm.DateTime.
  value(datetime t) : v_(std::in_place_index<3>, t) {}                            // NOLINT
  /// Edm.Double (NaN and the infinities included).
  value(double d) : v_(std::in_place_index<4>, d) {}                              // NOLINT
  /// Edm.Guid.
  value(guid g) : v_(std::in_place_index<5>, g) {}                                // NOLINT
  /// Integers: signed types of up to 32 bits and unsigned types of up to 16
  /// bits become Int32; wider ones (and uint32) become Int64. uint64 is not
  /// accepted: it does not fit Int64.
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                          !std::is_same_v<I, char>,
                                      int> = 0>
  value(I i) : v_(make_int(i)) {}  // NOLINT

  /// The Edm type of the value.
  edm type() const noexcept { return static_cast<edm>(v_.index()); }

  /// Pointer to the value if it has type `T` (one of the storage types), else nullptr.
  template <class T>
  const T* get_if() const noexcept {
    return std::get_if<T>(&v_);
  }
  /// The string if the type is Edm.String, else nullptr.
  const std::string* as_string() const noexcept { return std::get_if<0>(&v_); }
  /// The bytes if the type is Edm.Binary, else nullptr.
  const binary* as_binary() const noexcept { return std::get_if<1>(&v_); }
  /// The flag if the type is Edm.Boolean, else nullptr.
  const bool* as_bool() const noexcept { return std::get_if<2>(&v_); }
  /// The time if the type is Edm.DateTime, else nullptr.
  const datetime* as_datetime() const noexcept { return std::get_if<3>(&v_); }
  /// The number if the type is Edm.Double, else nullptr.
  const double* as_double() const noexcept { return std::get_if<4>(&v_); }
  /// The GUID if the type is Edm.Guid, else nullptr.
  const guid* as_guid() const noexcept { return std::get_if<5>(&v_); }
  /// The number if the type is Edm.Int32, else nullptr (an Int64 is not converted).
  const std::int32_t* as_int32() const noexcept { return std::get_if<6>(&v_); }
  /// The number if the type is Edm.Int64, else nullptr (an Int32 is not converted).
  const std::int64_t* as_int64() const noexcept { return std::get_if<7>(&v_); }

  /// The underlying variant, for `std::visit`.
  const storage& variant() const noexcept { return v_; }

  /// Equal when type and value are equal. Doubles compare bitwise-exact except
  /// that all NaNs are equal (so a round trip of NaN compares equal).
  friend bool operator==(const value& a, const value& b) noexcept {
    if (a.v_.index() != b.v_.index()) return false;
    if (const double* x = a.as_double()) {
      const double y = *b.as_double();
      if (*x != *x) return y != y;
      return *x == y;
    }
    // One switch instead of std::variant's operator== (cheaper to compile).
    switch (a.v_.index()) {
      case 0: return *std::get_if<0>(&a.v_) == *std::get_if<0>(&b.v_);
      case 1: return *std::get_if<1>(&a.v_) == *std::get_if<1>(&b.v_);
      case 2: return *std::get_if<2>(&a.v_) == *std::get_if<2>(&b.v_);
      case 3: return *std::get_if<3>(&a.v_) == *std::get_if<3>(&b.v_);
      case 5: return *std::get_if<5>(&a.v_) == *std::get_if<5>(&b.v_);
      case 6: return *std::get_if<6>(&a.v_) == *std::get_if<6>(&b.v_);
      case 7: return *std::get_if<7>(&a.v_) == *std::get_if<7>(&b.v_);
      default: return true;  // valueless (never: every alternative is nothrow-movable)
    }
  }
  friend bool operator!=(const value& a, const value& b) noexcept { return !(a == b); }

 private:
  template <class I>
  static storage make_int(I i) {
    static_assert(!(std::is_unsigned_v<I> && sizeof(I) >= 8),
                  "aztables::value: uint64 does not fit Edm.Int64; convert explicitly");
    if constexpr ((std::is_signed_v<I> && sizeof(I) <= 4) || (std::is_unsigned_v<I> && sizeof(I) <= 2))
      return storage(std::in_place_index<6>, static_cast<std::int32_t>(i));
    else
      return storage(std::in_place_index<7>, static_cast<std::int64_t>(i));
  }
  friend struct detail::value_access;
  storage v_;
};

/// A named property of an entity.
struct property {
  std::string name;       ///< the property name (a C# identifier)
  aztables::value value;  ///< the typed value
};

/// The primary key of an entity. A struct, so the two strings cannot be swapped:
/// `client.get({.partition_key = "p", .row_key = "r"})` (C++20) or `{"p", "r"}`.
struct entity_key {
  std::string partition_key;  ///< the PartitionKey
  std::string row_key;        ///< the RowKey
};

/// A dynamic entity: the keys, the system properties (Timestamp, ETag) kept
/// apart, and an ordered list of user properties with unique names.
class entity {
 public:
  /// An entity with empty keys and no properties.
  entity() = default;
  /// An entity with these keys and no properties (keys are checked when sent).
  entity(std::string partition_key, std::string row_key)
      : partition_key(std::move(partition_key)), row_key(std::move(row_key)) {}

  std::string partition_key;  ///< the PartitionKey
  std::string row_key;        ///< the RowKey
  /// Set by the service on read; sent as If-Match where an operation needs it.
  aztables::etag etag;
  /// Set by the service on every write; ignored when sent.
  std::optional<datetime> timestamp;

  /// Sets (or replaces) a property; returns *this for chaining.
  entity& set(std::string_view name, aztables::value v) {
    for (auto& p : props_)
      if (p.name == name) {
        p.value = std::move(v);
        return *this;
      }
    props_.push_back(property{std::string(name), std::move(v)});
    return *this;
  }
  /// The property's value, or nullptr when absent.
  const aztables::value* get(std::string_view name) const noexcept {
    for (auto& p : props_)
      if (p.name == name) return &p.value;
    return nullptr;
  }
  /// Removes a property; returns whether it was there.
  bool erase(std::string_view name) {
    for (auto it = props_.begin(); it != props_.end(); ++it)
      if (it->name == name) {
        props_.erase(it);
        return true;
      }
    return false;
  }
  /// Whether a property of that name is set.
  bool contains(std::string_view name) const noexcept { return get(name) != nullptr; }
  /// The number of user properties (keys, ETag and Timestamp not counted).
  std::size_t size() const noexcept { return props_.size(); }
  /// True when there are no user properties.
  bool empty() const noexcept { return props_.empty(); }
  /// Reserves room for `n` user properties.
  void reserve(std::size_t n) { props_.reserve(n); }
  /// Removes every user property (keys, ETag and Timestamp stay).
  void clear() { props_.clear(); }
  /// The user properties, in the order they were set.
  const std::vector<property>& properties() const noexcept { return props_; }
  /// Iteration over the user properties.
  std::vector<property>::const_iterator begin() const noexcept { return props_.begin(); }
  /// End of the user properties.
  std::vector<property>::const_iterator end() const noexcept { return props_.end(); }

  /// The entity's primary key.
  entity_key key() const { return {partition_key, row_key}; }

  /// Appends without checking for a duplicate name (used by parsers that
  /// already know names are unique).
  void append_unchecked(std::string name, aztables::value v) {
    props_.push_back(property{std::move(name), std::move(v)});
  }

  /// Keys and user properties equal, in any order (ETag/Timestamp ignored).
  friend bool operator==(const entity& a, const entity& b) {
    if (a.partition_key != b.partition_key || a.row_key != b.row_key || a.size() != b.size()) return false;
    for (auto& p : a.props_) {
      const aztables::value* o = b.get(p.name);
      if (!o || !(*o == p.value)) return false;
    }
    return true;
  }
  friend bool operator!=(const entity& a, const entity& b) { return !(a == b); }

 private:
  friend struct detail::entity_access;
  std::vector<property> props_;
};

namespace detail {
/// The readers' way to overwrite a value or an entity in place, reusing the
/// storage of its strings (not part of the public API).
struct value_access {
  /// Parses a GUID straight into `g`; false (g unchanged) if `s` is not one.
  static bool parse_guid(std::string_view s, guid& g) noexcept { return guid::parse_to(s, g); }
  /// The text of an ETag, to assign in place.
  static std::string& text(aztables::etag& t) noexcept { return t.value_; }
  /// The string alternative of `v`, made the current one if it is not.
  static std::string& string_slot(value& v) {
    if (v.v_.index() != 0) v.v_.emplace<0>();
    return *std::get_if<0>(&v.v_);
  }
  /// The binary alternative of `v`, made the current one if it is not.
  static binary& binary_slot(value& v) {
    if (v.v_.index() != 1) v.v_.emplace<1>();
    return *std::get_if<1>(&v.v_);
  }
};
struct entity_access {
  static std::vector<property>& properties(entity& e) noexcept { return e.props_; }
};
}  // namespace detail

AZTABLES_NAMESPACE_END
