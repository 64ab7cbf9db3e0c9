// SPDX-License-Identifier: MIT
/// \file keys.hpp
/// Key helpers for the design guides' patterns: fixed-width numbers that sort
/// numerically, inverted ticks for newest-first RowKeys, composite keys that
/// split back exactly and sort in tuple order, and a stable hash prefix that
/// spreads an append-only key over N partitions (with the list of partition
/// keys a reader must query). Std-only.
///
/// Every key these helpers return passes the service's key rules (no `/ \ # ?`
/// or control characters, at most 1 KiB); a part that would break them is an
/// `invalid_argument` error naming the part.
#pragma once

#include <aztables/config.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {
AZTABLES_DECL result<std::string> zero_padded_key(std::uint64_t value, std::size_t width);
AZTABLES_DECL error negative_zero_padded_key(std::int64_t value);
}  // namespace detail

/// Key helpers (see the file description).
namespace keys {

/// The widest zero-padded key: 20 digits hold every `std::uint64_t`.
inline constexpr std::size_t max_zero_padded_width = 20;

/// `value` as exactly `width` decimal digits, zero-padded on the left, so that
/// keys sort numerically under the service's string order ("002" < "111").
///
/// \param value  a non-negative integer (any integral type except bool/char).
/// \param width  1 to 20 digits.
/// \returns the key, or `invalid_argument` when `value` is negative, has more
///          digits than `width` (a wider key would sort wrongly), or `width`
///          is out of range.
///
/// \code
/// keys::zero_padded(55, 3).value();     // "055"
/// keys::zero_padded(1234, 3);           // error: value has 4 digits; the width is 3
/// \endcode
template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool> &&
                                          !std::is_same_v<Int, char>,
                                      int> = 0>
result<std::string> zero_padded(Int value, std::size_t width) {
  if constexpr (std::is_signed_v<Int>) {
    if (value < 0) return aztables::detail::negative_zero_padded_key(static_cast<std::int64_t>(value));
  }
  return aztables::detail::zero_padded_key(static_cast<std::uint64_t>(value), width);
}

/// Reads a key made by `zero_padded` (1 to 20 ASCII digits).
/// \returns the number, or `invalid_argument` for anything else (a sign,
///          spaces, non-digits, an empty key, a value above `UINT64_MAX`).
AZTABLES_DECL result<std::uint64_t> parse_zero_padded(std::string_view key);

/// The width of an inverted-ticks key (always 19 digits).
inline constexpr std::size_t inverted_ticks_width = 19;

/// A RowKey that sorts newest first: the .NET idiom
/// `(DateTime.MaxValue.Ticks - t.Ticks).ToString("D19")`, byte for byte, so
/// keys interoperate with data written by the other Azure SDKs. Ascending key
/// order is descending time, so "the latest N" is the first N of a row-range
/// query. Make the key unique by appending a composite part (see `composite`).
///
/// \param t  a time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.9999999Z.
/// \returns the 19-digit key, or `invalid_argument` outside that range.
///
/// \code
/// entity e("device-7", keys::inverted_ticks(keys::datetime_now()).value());
/// \endcode
AZTABLES_DECL result<std::string> inverted_ticks(datetime t);

/// Reads a key made by `inverted_ticks` back into the time it encodes.
/// \returns the time, or `invalid_argument` unless `key` is 19 digits in range.
AZTABLES_DECL result<datetime> parse_inverted_ticks(std::string_view key);

/// The current UTC time at the service's 100 ns precision (for `inverted_ticks`).
inline datetime datetime_now() {
  return std::chrono::time_point_cast<ticks>(std::chrono::system_clock::now());
}

/// The separator between the parts of a composite key: a space, the smallest
/// character a key may contain, so composite keys sort in tuple order.
inline constexpr char composite_separator = ' ';
/// The escape character inside parts: a space in a part is written `!!` and a
/// `!` is written `!"`; every other character is itself.
inline constexpr char composite_escape = '!';

/// Joins parts into one key that `split_composite` splits back exactly. The
/// encoding preserves order: comparing two composite keys as strings compares
/// their parts as tuples (first part first, a shorter tuple before a longer
/// one with the same leading parts), so row-range and prefix queries over
/// leading parts work (see `composite_prefix`).
///
/// \param parts  at least one part; each valid UTF-8 without `/ \ # ?` or
///               control characters (the service's key rules).
/// \returns the key, or `invalid_argument` naming the part at fault (or the
///          whole key, when it is longer than 1 KiB).
///
/// \code
/// keys::composite({"AGE", "055", "John Smith"}).value();   // "AGE 055 John!!Smith"
/// \endcode
AZTABLES_DECL result<std::string> composite(std::initializer_list<std::string_view> parts);
/// As `composite(std::initializer_list<std::string_view>)`, for parts in a vector.
AZTABLES_DECL result<std::string> composite(const std::vector<std::string>& parts);

/// The prefix shared by every composite key whose leading parts are `parts`
/// (the joined parts plus a trailing separator). Use it for a row-key prefix
/// query: all keys under ("AGE", "055").
/// \returns the prefix, or the same errors as `composite`.
AZTABLES_DECL result<std::string> composite_prefix(std::initializer_list<std::string_view> parts);

/// Splits a key made by `composite` into its parts.
/// \returns the parts (at least one), or `invalid_argument` when `key` has a
///          `!` not followed by `!` or `"` (it was not made by `composite`).
AZTABLES_DECL result<std::vector<std::string>> split_composite(std::string_view key);

/// 32-bit FNV-1a over the bytes of `bytes` (offset basis 2166136261, prime
/// 16777619). Stable across platforms, compilers and runs, unlike `std::hash`,
/// so writers and readers always agree on a bucket.
constexpr std::uint32_t fnv1a_32(std::string_view bytes) noexcept {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

/// Spreads an append-only (hot) partition over N partitions: the partition
/// key gets a bucket prefix chosen by a stable hash (`fnv1a_32`) of a value
/// that varies between writes, e.g. the RowKey or a device id. Writers call
/// `partition_key`; readers query every key of `partition_keys` and merge
/// the results (`fan_out_query` in fan_out.hpp does both).
///
/// Writers and readers must use the same bucket count: changing it moves
/// existing entities to other keys.
///
/// \code
/// auto spread = keys::hash_spread::create(16).value();
/// e.partition_key = spread.partition_key("2024-05-01", e.row_key).value();   // e.g. "07_2024-05-01"
/// for (const auto& pk : spread.partition_keys("2024-05-01").value()) { /* query pk */ }
/// \endcode
class hash_spread {
 public:
  /// Largest supported bucket count.
  static constexpr std::uint32_t max_buckets = 10000;

  /// A spreader over `buckets` partitions (1 to 10,000).
  /// \returns the spreader, or `invalid_argument` outside that range.
  static AZTABLES_DECL result<hash_spread> create(std::uint32_t buckets);

  /// The number of buckets.
  std::uint32_t buckets() const noexcept { return buckets_; }

  /// The bucket of a value: `fnv1a_32(spread_by) % buckets()`.
  std::uint32_t bucket_of(std::string_view spread_by) const noexcept { return fnv1a_32(spread_by) % buckets_; }

  /// The partition key a writer uses: the bucket of `spread_by`, zero-padded
  /// to the width of the largest bucket number ("07" for 16 buckets, "3" for
  /// 10), then `_`, then `base`.
  /// \param base      the natural (hot) partition key, e.g. a date.
  /// \param spread_by the value hashed to pick the bucket; it should differ
  ///                  between writes (the RowKey, an id), never be `base`.
  /// \returns the key, or `invalid_argument` when `base` breaks the key rules.
  AZTABLES_DECL result<std::string> partition_key(std::string_view base, std::string_view spread_by) const;

  /// Every partition key `base` is spread over, in bucket order: what a reader
  /// of `base` must query (a fan-out of `buckets()` queries).
  /// \returns the keys, or `invalid_argument` when `base` breaks the key rules.
  AZTABLES_DECL result<std::vector<std::string>> partition_keys(std::string_view base) const;

 private:
  AZTABLES_DECL result<std::string> key_for(std::uint32_t bucket, std::string_view base) const;
  explicit hash_spread(std::uint32_t buckets, std::size_t width) : buckets_(buckets), width_(width) {}
  std::uint32_t buckets_;
  std::size_t width_;
};

}  // namespace keys

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/keys.ipp>
#endif
