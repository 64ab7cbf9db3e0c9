// SPDX-License-Identifier: MIT
#pragma once

#include <aztables/detail/json_writer.hpp>
#include <aztables/keys.hpp>

AZTABLES_NAMESPACE_BEGIN

namespace detail {

AZTABLES_DECL result<std::string> zero_padded_key(std::uint64_t value, std::size_t width) {
  if (width < 1 || width > keys::max_zero_padded_width)
    return error::invalid_argument("width", "is " + std::to_string(width) + "; it must be 1 to 20 digits");
  std::string digits = std::to_string(value);
  if (digits.size() > width)
    return error::invalid_argument("value", std::to_string(value) + " has " + std::to_string(digits.size()) +
                                                " digits; the width is " + std::to_string(width) +
                                                " (a wider key would sort out of order)");
  return std::string(width - digits.size(), '0') + digits;
}

AZTABLES_DECL error negative_zero_padded_key(std::int64_t value) {
  return error::invalid_argument("value", std::to_string(value) +
                                              " is negative; zero-padded keys hold non-negative numbers "
                                              "(add an offset to store negative ones)");
}

// .NET DateTime.MaxValue.Ticks (9999-12-31T23:59:59.9999999) counted from the
// Unix epoch, and DateTime.MinValue (0001-01-01) likewise.
inline constexpr std::int64_t dotnet_max_ticks_unix = 2534023007999999999LL;
inline constexpr std::int64_t dotnet_min_ticks_unix = -621355968000000000LL;

// Encodes one composite part (order-preserving, prefix-free codes).
inline void append_composite_part(std::string& out, std::string_view part) {
  for (char c : part) {
    if (c == keys::composite_separator) {
      out += keys::composite_escape;
      out += keys::composite_escape;
    } else if (c == keys::composite_escape) {
      out += keys::composite_escape;
      out += '"';
    } else {
      out += c;
    }
  }
}

template <class Parts>
result<std::string> join_composite(const Parts& parts, bool trailing_separator) {
  if (parts.size() == 0) return error::invalid_argument("composite key", "needs at least one part");
  std::string key;
  std::size_t i = 0;
  for (const auto& p : parts) {
    const std::string_view part(p);
    if (auto e = check_key("composite key part " + std::to_string(i), part)) return std::move(*e);
    if (i++ > 0) key += keys::composite_separator;
    append_composite_part(key, part);
  }
  if (trailing_separator) key += keys::composite_separator;
  if (auto e = check_key("composite key", key)) return std::move(*e);
  return key;
}

}  // namespace detail

namespace keys {

AZTABLES_DECL result<std::uint64_t> parse_zero_padded(std::string_view key) {
  if (key.empty() || key.size() > max_zero_padded_width)
    return error::invalid_argument("zero-padded key", "must be 1 to 20 digits");
  std::uint64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return error::invalid_argument("zero-padded key", "may contain only the digits 0-9");
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return error::invalid_argument("zero-padded key", "is larger than UINT64_MAX");
    v = v * 10 + d;
  }
  return v;
}

AZTABLES_DECL result<std::string> inverted_ticks(datetime t) {
  const std::int64_t tk = t.time_since_epoch().count();
  if (tk < aztables::detail::dotnet_min_ticks_unix || tk > aztables::detail::dotnet_max_ticks_unix)
    return error::invalid_argument("time", "is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.9999999Z");
  return aztables::detail::zero_padded_key(static_cast<std::uint64_t>(aztables::detail::dotnet_max_ticks_unix - tk),
                                           inverted_ticks_width);
}

AZTABLES_DECL result<datetime> parse_inverted_ticks(std::string_view key) {
  if (key.size() != inverted_ticks_width)
    return error::invalid_argument("inverted-ticks key", "must be exactly 19 digits");
  auto v = parse_zero_padded(key);
  if (!v) return error::invalid_argument("inverted-ticks key", "may contain only the digits 0-9");
  constexpr auto span = static_cast<std::uint64_t>(aztables::detail::dotnet_max_ticks_unix -
                                                   aztables::detail::dotnet_min_ticks_unix);
  if (*v > span) return error::invalid_argument("inverted-ticks key", "encodes a time before 0001-01-01");
  return datetime(ticks(aztables::detail::dotnet_max_ticks_unix - static_cast<std::int64_t>(*v)));
}

AZTABLES_DECL result<std::string> composite(std::initializer_list<std::string_view> parts) {
  return aztables::detail::join_composite(parts, false);
}

AZTABLES_DECL result<std::string> composite(const std::vector<std::string>& parts) {
  return aztables::detail::join_composite(parts, false);
}

AZTABLES_DECL result<std::string> composite_prefix(std::initializer_list<std::string_view> parts) {
  return aztables::detail::join_composite(parts, true);
}

AZTABLES_DECL result<std::vector<std::string>> split_composite(std::string_view key) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c == composite_separator) {
      parts.emplace_back();
    } else if (c == composite_escape) {
      const char next = i + 1 < key.size() ? key[i + 1] : '\0';
      if (next == composite_escape) parts.back() += composite_separator;
      else if (next == '"') parts.back() += composite_escape;
      else
        return error::invalid_argument("composite key", "has a '!' at byte " + std::to_string(i) +
                                                            " not followed by '!' or '\"' (not made by keys::composite)");
      ++i;
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

AZTABLES_DECL result<hash_spread> hash_spread::create(std::uint32_t buckets) {
  if (buckets < 1 || buckets > max_buckets)
    return error::invalid_argument("buckets", "is " + std::to_string(buckets) + "; it must be 1 to 10000");
  return hash_spread(buckets, std::to_string(buckets - 1).size());
}

AZTABLES_DECL result<std::string> hash_spread::key_for(std::uint32_t bucket, std::string_view base) const {
  if (auto e = aztables::detail::check_key("partition key base", base)) return std::move(*e);
  std::string key = *aztables::detail::zero_padded_key(bucket, width_);
  key += '_';
  key.append(base.data(), base.size());
  if (auto e = aztables::detail::check_key("spread partition key", key)) return std::move(*e);
  return key;
}

AZTABLES_DECL result<std::string> hash_spread::partition_key(std::string_view base, std::string_view spread_by) const {
  return key_for(bucket_of(spread_by), base);
}

AZTABLES_DECL result<std::vector<std::string>> hash_spread::partition_keys(std::string_view base) const {
  std::vector<std::string> keys;
  keys.reserve(buckets_);
  for (std::uint32_t b = 0; b < buckets_; ++b) {
    auto k = key_for(b, base);
    if (!k) return std::move(k).error();
    keys.push_back(std::move(*k));
  }
  return keys;
}

}  // namespace keys

AZTABLES_NAMESPACE_END
