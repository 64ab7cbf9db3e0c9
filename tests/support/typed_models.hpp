// Mapped structs shared by the typed-entity and query tests.
#pragma once

#include <aztables/mapping.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace typed_models {

enum class color { red = 1, green = 2, blue = 3 };
enum class size : std::uint8_t { small, large };
enum class huge : std::int64_t { big = std::int64_t(1) << 40 };

/// One member of every supported type, plain and optional.
struct everything {
  std::string pk, rk;
  std::string s;
  bool b = false;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  double d = 0;
  aztables::datetime t{};
  aztables::guid g;
  aztables::binary bin;
  color c = color::red;
  size sz = size::small;
  huge h = huge::big;
  std::optional<std::string> os;
  std::optional<bool> ob;
  std::optional<std::int32_t> oi32;
  std::optional<std::int64_t> oi64;
  std::optional<double> od;
  std::optional<aztables::datetime> ot;
  std::optional<aztables::guid> og;
  std::optional<aztables::binary> obin;
  std::optional<size> osz;
  aztables::etag etag;
};

/// A runner of the partitioning guide's foot race, mapped with the macro.
struct runner {
  std::string race, key;
  std::string name;
  std::int32_t age = 0;
};

/// A projection of `everything`: fewer properties, no ETag member (so typed
/// queries use odata=nometadata).
struct everything_view {
  std::string pk, rk;
  std::int64_t i64 = 0;
  std::optional<std::string> s;
};

}  // namespace typed_models

template <>
struct aztables::enum_traits<typed_models::color> : aztables::enum_as_integer {};
template <>
struct aztables::enum_traits<typed_models::huge> : aztables::enum_as_integer {};
template <>
struct aztables::enum_traits<typed_models::size> {
  static constexpr std::pair<typed_models::size, const char*> names[] = {{typed_models::size::small, "Small"},
                                                                         {typed_models::size::large, "Large"}};
};

template <>
struct aztables::entity_traits<typed_models::everything> {
  using T = typed_models::everything;
  static constexpr auto partition_key = &T::pk;
  static constexpr auto row_key = &T::rk;
  static constexpr auto etag = &T::etag;
  static constexpr auto properties = aztables::fields(
      aztables::field("S", &T::s), aztables::field("B", &T::b), aztables::field("I32", &T::i32),
      aztables::field("I64", &T::i64), aztables::field("D", &T::d), aztables::field("T", &T::t),
      aztables::field("G", &T::g), aztables::field("Bin", &T::bin), aztables::field("Color", &T::c),
      aztables::field("Size", &T::sz), aztables::field("Huge", &T::h), aztables::field("OS", &T::os),
      aztables::field("OB", &T::ob), aztables::field("OI32", &T::oi32), aztables::field("OI64", &T::oi64),
      aztables::field("OD", &T::od), aztables::field("OT", &T::ot), aztables::field("OG", &T::og),
      aztables::field("OBin", &T::obin), aztables::field("OSize", &T::osz));
};

template <>
struct aztables::entity_traits<typed_models::everything_view> {
  using T = typed_models::everything_view;
  static constexpr auto partition_key = &T::pk;
  static constexpr auto row_key = &T::rk;
  static constexpr auto properties = aztables::fields(aztables::field("I64", &T::i64), aztables::field("S", &T::s));
};

AZTABLES_MAP(typed_models::runner, race, key, name, age);
