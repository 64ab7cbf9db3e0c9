// SPDX-License-Identifier: MIT
/// \file entity.hpp
/// The dynamic entity (`entity`, `value`, `property`, `entity_key`), and the
/// conversions between it and a mapped struct (`to_entity`, `from_entity`).
#pragma once

#include <aztables/config.hpp>
#include <aztables/edm.hpp>
#include <aztables/error.hpp>
#include <aztables/detail/schema.hpp>
#include <aztables/mapping.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {
struct value_access;
struct entity_access;
}  // namespace detail

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

// ---- conversions between a mapped struct and a dynamic entity -------------

namespace detail {

/// Writes a dynamic value into the member described by `f`.
inline std::optional<error> assign_value(const field_info& f, const value& v, void* obj) {
  if (!fits(f.kind, v.type())) return type_mismatch(f, v.type());
  void* t = f.target(obj);
  switch (f.kind) {
    case field_kind::string: *static_cast<std::string*>(t) = *v.as_string(); break;
    case field_kind::boolean: *static_cast<bool*>(t) = *v.as_bool(); break;
    case field_kind::int32: *static_cast<std::int32_t*>(t) = *v.as_int32(); break;
    case field_kind::int64:
      *static_cast<std::int64_t*>(t) = v.as_int64() ? *v.as_int64() : static_cast<std::int64_t>(*v.as_int32());
      break;
    case field_kind::double_:
      *static_cast<double*>(t) = v.as_double() ? *v.as_double() : static_cast<double>(*v.as_int32());
      break;
    case field_kind::datetime: *static_cast<datetime*>(t) = *v.as_datetime(); break;
    case field_kind::guid: *static_cast<guid*>(t) = *v.as_guid(); break;
    case field_kind::binary: *static_cast<binary*>(t) = *v.as_binary(); break;
    case field_kind::enum_string:
      if (!f.enum_from_string(t, *v.as_string()))
        return mapping_error(f.name, "'" + v.as_string()->substr(0, 64) + "' is not a name in enum_traits<E>::names");
      break;
    case field_kind::enum_int32:
    case field_kind::enum_int64: {
      const std::int64_t i = v.as_int64() ? *v.as_int64() : static_cast<std::int64_t>(*v.as_int32());
      if (!f.enum_from_int(t, i))
        return mapping_error(f.name, std::to_string(i) + " is out of the range of the enum's underlying type");
      break;
    }
  }
  return std::nullopt;
}

/// Reads the member described by `f` as a dynamic value; nullopt (and no
/// error) for an empty optional.
inline result<std::optional<value>> member_value(const field_info& f, const void* obj) {
  const void* s = f.source(obj);
  if (!s) return std::optional<value>();
  switch (f.kind) {
    case field_kind::string: return std::optional<value>(value(*static_cast<const std::string*>(s)));
    case field_kind::boolean: return std::optional<value>(value(*static_cast<const bool*>(s)));
    case field_kind::int32: return std::optional<value>(value(*static_cast<const std::int32_t*>(s)));
    case field_kind::int64: return std::optional<value>(value(*static_cast<const std::int64_t*>(s)));
    case field_kind::double_: return std::optional<value>(value(*static_cast<const double*>(s)));
    case field_kind::datetime: return std::optional<value>(value(*static_cast<const datetime*>(s)));
    case field_kind::guid: return std::optional<value>(value(*static_cast<const guid*>(s)));
    case field_kind::binary: return std::optional<value>(value(*static_cast<const binary*>(s)));
    case field_kind::enum_string: {
      const char* n = f.enum_to_string(s);
      if (!n)
        return error::invalid_argument("property '" + std::string(f.name) + "'",
                                       "enum value " + std::to_string(f.enum_to_int(s)) +
                                           " has no name in aztables::enum_traits<E>::names");
      return std::optional<value>(value(n));
    }
    case field_kind::enum_int32:
      return std::optional<value>(value(static_cast<std::int32_t>(f.enum_to_int(s))));
    case field_kind::enum_int64: return std::optional<value>(value(f.enum_to_int(s)));
  }
  return std::optional<value>();
}

/// A mapped object as a dynamic entity (keys, ETag if mapped, properties;
/// empty optionals omitted).
inline result<entity> schema_to_entity(const entity_schema& s, const void* obj) {
  void* o = const_cast<void*>(obj);  // the accessors only read here
  entity e(*s.partition_key(o), *s.row_key(o));
  if (s.etag) e.etag = *s.etag(o);
  e.reserve(s.size);
  for (std::size_t i = 0; i < s.size; ++i) {
    auto v = member_value(s.fields[i], obj);
    if (!v) return std::move(v).error();
    if (*v) e.append_unchecked(std::string(s.fields[i].name), std::move(**v));
  }
  return e;
}

/// Fills a mapped object from a dynamic entity.
inline std::optional<error> schema_from_entity(const entity_schema& s, const entity& e, void* obj) {
  *s.partition_key(obj) = e.partition_key;
  *s.row_key(obj) = e.row_key;
  if (s.etag) *s.etag(obj) = e.etag;
  for (std::size_t i = 0; i < s.size; ++i) {
    const field_info& f = s.fields[i];
    const value* v = e.get(f.name);
    if (!v) {
      if (!f.optional)
        return mapping_error(f.name, "is missing from the stored entity (map it to a std::optional member to allow "
                                     "that)");
      f.reset(obj);
      continue;
    }
    if (auto err = assign_value(f, *v, obj)) return err;
  }
  return std::nullopt;
}

}  // namespace detail

/// Converts a mapped object to a dynamic entity: keys, the ETag member (if
/// mapped) and every property, empty optionals omitted. Errors:
/// `invalid_argument` for an enum value without a name. (Service rules such as
/// key characters and sizes are checked when the entity is written.)
template <class T>
result<entity> to_entity(const T& obj) {
  return detail::schema_to_entity(detail::schema_of<T>(), &obj);
}

/// Converts a dynamic entity to a mapped object. Stored properties the
/// mapping does not name are ignored. Errors (`errc::mapping`, naming the
/// property): a stored type that does not fit the member, a missing property
/// for a non-optional member, an unknown enum name or an out-of-range enum value.
template <class T>
result<T> from_entity(const entity& e) {
  const detail::entity_schema& s = detail::schema_of<T>();
  T obj{};
  if (auto err = detail::schema_from_entity(s, e, &obj)) return std::move(*err);
  return obj;
}


AZTABLES_NAMESPACE_END
