// SPDX-License-Identifier: MIT
/// \file mapping.hpp
/// Mapping a user's struct to an entity: the `entity_traits<T>` customisation
/// point, `field` / `fields`, the `AZTABLES_MAP` shorthand, opt-in enums
/// (`enum_traits<E>`). The conversions between a mapped struct and the
/// dynamic entity, `to_entity` / `from_entity`, are in entity.hpp.
///
/// Std-only (plus edm.hpp): model code may include it freely; no JSON, HTTP
/// or crypto header, not the dynamic entity and not the schema machinery the
/// client builds from these traits (detail/schema.hpp) come with it.
///
/// \code
/// struct order {
///   std::string customer, id;
///   std::int64_t quantity = 0;          // the member type decides the Edm type
///   double total = 0;
///   std::optional<std::string> note;    // omitted when empty, tolerated when absent
///   aztables::etag etag;                // optional: enables If-Match
/// };
/// template <> struct aztables::entity_traits<order> {
///   static constexpr auto partition_key = &order::customer;
///   static constexpr auto row_key = &order::id;
///   static constexpr auto etag = &order::etag;
///   static constexpr auto properties = aztables::fields(
///       aztables::field("Quantity", &order::quantity),
///       aztables::field("Total", &order::total),
///       aztables::field("Note", &order::note));
/// };
/// \endcode
///
/// Member types and the Edm type they are stored as: `std::string` (String),
/// `bool` (Boolean), `std::int32_t` (Int32), `std::int64_t` (Int64), `double`
/// (Double), `aztables::datetime` (DateTime, 100 ns), `aztables::guid` (Guid),
/// `aztables::binary` (Binary), an enum with `aztables::enum_traits` (String or
/// integer), and `std::optional` of any of these.
///
/// Reading is strict about types and lenient about presence: a stored value
/// whose Edm type does not fit the member is an `errc::mapping` error naming
/// the property; widening without loss is allowed (an Int32 into a
/// `std::int64_t` or `double` member). Stored properties the struct does not
/// map are ignored. A missing property is a `mapping` error unless the member
/// is a `std::optional`, which then becomes empty.
#pragma once

#include <aztables/config.hpp>
#include <aztables/edm.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

AZTABLES_NAMESPACE_BEGIN

class entity;  // the dynamic entity (entity.hpp): never mapped

namespace detail {
template <class>
inline constexpr bool always_false_v = false;
template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;
/// Enables the typed overloads of table_client for anything but the dynamic entity.
template <class T>
using enable_if_typed_t = std::enable_if_t<!std::is_same_v<remove_cvref_t<T>, entity>, int>;
}  // namespace detail

/// The customisation point that maps a struct `T` to an entity. Specialise it
/// for your type (see the file comment) or use `AZTABLES_MAP`. Members:
/// - `partition_key`, `row_key` (required): pointers to `std::string` members;
/// - `etag` (optional): a pointer to an `aztables::etag` member, used for
///   If-Match on update/delete and refreshed after writes and reads;
/// - `properties` (optional): `aztables::fields(aztables::field("Name", &T::m), ...)`.
///
/// The primary template is not a mapping: using an unmapped type is a compile
/// error that says how to map it.
template <class T>
struct entity_traits {
  static_assert(detail::always_false_v<T>,
                "aztables: this type has no entity mapping. Map it with `template <> struct "
                "aztables::entity_traits<T> { static constexpr auto partition_key = &T::pk_member; static constexpr "
                "auto row_key = &T::rk_member; static constexpr auto properties = aztables::fields(aztables::field("
                "\"Name\", &T::member), ...); };` (optionally `static constexpr auto etag = &T::etag_member;`), or "
                "with AZTABLES_MAP(T, pk_member, rk_member, members...) at global scope.");
};

/// One mapped property: the stored name and the member. Made by `field`.
template <class T, class M>
struct field_def {
  using class_type = T;   ///< the struct
  using member_type = M;  ///< the member's type
  const char* name;       ///< the stored property name
  M T::*member;           ///< the member
};

/// Maps the member `member` to the stored property `name`. The name is a wire
/// contract: renaming the member does not rename stored data.
template <class T, class M>
constexpr field_def<T, M> field(const char* name, M T::*member) noexcept {
  return field_def<T, M>{name, member};
}

namespace detail {
template <class F>
struct is_field_def : std::false_type {};
template <class T, class M>
struct is_field_def<field_def<T, M>> : std::true_type {};
}  // namespace detail

/// The list of mapped properties, for `entity_traits<T>::properties`.
template <class... F>
constexpr std::tuple<F...> fields(F... f) {
  static_assert((detail::is_field_def<F>::value && ...),
                "aztables::fields: every argument must be aztables::field(\"Name\", &T::member)");
  return std::tuple<F...>(f...);
}

/// Derive `enum_traits<E>` from this to store an enum as an integer: Int32
/// when the underlying type fits (signed up to 32 bits, unsigned up to 16),
/// else Int64.
struct enum_as_integer {};

/// Opt-in for enum members. Either integer storage:
/// \code
/// template <> struct aztables::enum_traits<color> : aztables::enum_as_integer {};
/// \endcode
/// or String storage with explicit names (a wire contract, like property names):
/// \code
/// template <> struct aztables::enum_traits<size> {
///   static constexpr std::pair<size, const char*> names[] = {{size::small, "Small"}, {size::large, "Large"}};
/// };
/// \endcode
/// Writing a value without a name is an `invalid_argument` error; reading an
/// unknown name is a `mapping` error.
template <class E>
struct enum_traits {
  static_assert(detail::always_false_v<E>,
                "aztables: an enum member needs aztables::enum_traits<E>: `template <> struct "
                "aztables::enum_traits<E> : aztables::enum_as_integer {};` stores it as an integer; `template <> struct "
                "aztables::enum_traits<E> { static constexpr std::pair<E, const char*> names[] = {{E::a, \"A\"}, ...}; "
                "};` stores it as a String.");
};

AZTABLES_NAMESPACE_END

/// Maps `Type` with PartitionKey = `pk_member`, RowKey = `rk_member` and one
/// property per listed member, named exactly like the member:
/// \code
/// struct runner { std::string race, bib; std::string name; std::int32_t age = 0; };
/// AZTABLES_MAP(runner, race, bib, name, age);   // properties "name", "age"
/// \endcode
/// Use at global scope, with at least one member (up to 64). Stored names
/// become a wire contract tied to member names; write the traits out (see
/// `aztables::entity_traits`) to choose names or to map an ETag member.
#define AZTABLES_MAP(Type, pk_member, rk_member, ...)                                                  \
  template <>                                                                                          \
  struct aztables::entity_traits<Type> {                                                               \
    static constexpr auto partition_key = &Type::pk_member;                                            \
    static constexpr auto row_key = &Type::rk_member;                                                  \
    static constexpr auto properties = ::aztables::fields(                                             \
        AZTABLES_DETAIL_EXPAND(AZTABLES_DETAIL_CAT(AZTABLES_DETAIL_FE_, AZTABLES_DETAIL_NARG(__VA_ARGS__))( \
            AZTABLES_DETAIL_FIELD, Type, __VA_ARGS__)));                                               \
  }

#define AZTABLES_DETAIL_FIELD(Type, m) ::aztables::field(#m, &Type::m)
#define AZTABLES_DETAIL_EXPAND(x) x
#define AZTABLES_DETAIL_CAT_(a, b) a##b
#define AZTABLES_DETAIL_CAT(a, b) AZTABLES_DETAIL_CAT_(a, b)
#define AZTABLES_DETAIL_FE_1(M, T, x) M(T, x)
#define AZTABLES_DETAIL_FE_2(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_1(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_3(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_2(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_4(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_3(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_5(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_4(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_6(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_5(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_7(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_6(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_8(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_7(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_9(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_8(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_10(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_9(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_11(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_10(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_12(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_11(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_13(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_12(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_14(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_13(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_15(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_14(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_16(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_15(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_17(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_16(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_18(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_17(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_19(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_18(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_20(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_19(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_21(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_20(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_22(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_21(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_23(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_22(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_24(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_23(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_25(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_24(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_26(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_25(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_27(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_26(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_28(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_27(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_29(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_28(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_30(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_29(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_31(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_30(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_32(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_31(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_33(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_32(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_34(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_33(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_35(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_34(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_36(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_35(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_37(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_36(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_38(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_37(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_39(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_38(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_40(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_39(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_41(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_40(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_42(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_41(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_43(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_42(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_44(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_43(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_45(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_44(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_46(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_45(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_47(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_46(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_48(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_47(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_49(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_48(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_50(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_49(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_51(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_50(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_52(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_51(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_53(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_52(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_54(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_53(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_55(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_54(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_56(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_55(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_57(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_56(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_58(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_57(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_59(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_58(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_60(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_59(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_61(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_60(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_62(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_61(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_63(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_62(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_FE_64(M, T, x, ...) M(T, x), AZTABLES_DETAIL_FE_63(M, T, __VA_ARGS__)
#define AZTABLES_DETAIL_NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, N, ...) N
#define AZTABLES_DETAIL_NARG(...) AZTABLES_DETAIL_NTH(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
