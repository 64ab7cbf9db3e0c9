// SPDX-License-Identifier: MIT
// The schema the client builds from a mapped struct's `entity_traits`: field
// kinds and accessors, the compile-time checks of a mapping, and the mapping
// errors. Kept out of mapping.hpp so that a TU which only declares a mapping
// compiles none of it (bench row 7a); the client headers include it.
#pragma once

#include <aztables/config.hpp>
#include <aztables/edm.hpp>
#include <aztables/error.hpp>
#include <aztables/mapping.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {

/// What the decoder writes into; decides the accepted Edm types.
enum class field_kind : std::uint8_t {
  string,
  boolean,
  int32,
  int64,
  double_,
  datetime,
  guid,
  binary,
  enum_string,
  enum_int32,
  enum_int64,
};

/// The member type a kind stands for, for messages.
inline const char* kind_name(field_kind k) noexcept {
  switch (k) {
    case field_kind::string: return "std::string";
    case field_kind::boolean: return "bool";
    case field_kind::int32: return "std::int32_t";
    case field_kind::int64: return "std::int64_t";
    case field_kind::double_: return "double";
    case field_kind::datetime: return "aztables::datetime";
    case field_kind::guid: return "aztables::guid";
    case field_kind::binary: return "aztables::binary";
    case field_kind::enum_string: return "an enum stored as Edm.String";
    case field_kind::enum_int32: return "an enum stored as Edm.Int32";
    case field_kind::enum_int64: return "an enum stored as Edm.Int64";
  }
  return "?";
}

/// The Edm type a kind is written as.
constexpr edm kind_edm(field_kind k) noexcept {
  switch (k) {
    case field_kind::string: return edm::string;
    case field_kind::boolean: return edm::boolean;
    case field_kind::int32: return edm::int32;
    case field_kind::int64: return edm::int64;
    case field_kind::double_: return edm::double_;
    case field_kind::datetime: return edm::datetime;
    case field_kind::guid: return edm::guid;
    case field_kind::binary: return edm::binary;
    case field_kind::enum_string: return edm::string;
    case field_kind::enum_int32: return edm::int32;
    case field_kind::enum_int64: return edm::int64;
  }
  return edm::string;
}

/// Whether a stored value of type `t` may be read into a member of kind `k`:
/// the same type, or an Int32 widened into an Int64 or Double member.
constexpr bool fits(field_kind k, edm t) noexcept {
  switch (k) {
    case field_kind::int64:
    case field_kind::enum_int64:
    case field_kind::double_: return t == kind_edm(k) || t == edm::int32;
    default: return t == kind_edm(k);
  }
}

template <class M>
struct optional_traits {
  static constexpr bool is_optional = false;
  using value_type = M;
};
template <class M>
struct optional_traits<std::optional<M>> {
  static constexpr bool is_optional = true;
  using value_type = M;
};

template <class Tr, class = void>
struct has_enum_names : std::false_type {};
template <class Tr>
struct has_enum_names<Tr, std::void_t<decltype(Tr::names)>> : std::true_type {};

/// The kind of a (non-optional) member value type; a static_assert for
/// anything else.
template <class V>
constexpr field_kind kind_of() {
  if constexpr (std::is_same_v<V, std::string>) {
    return field_kind::string;
  } else if constexpr (std::is_same_v<V, bool>) {
    return field_kind::boolean;
  } else if constexpr (std::is_same_v<V, std::int32_t>) {
    return field_kind::int32;
  } else if constexpr (std::is_same_v<V, std::int64_t>) {
    return field_kind::int64;
  } else if constexpr (std::is_same_v<V, double>) {
    return field_kind::double_;
  } else if constexpr (std::is_same_v<V, datetime>) {
    return field_kind::datetime;
  } else if constexpr (std::is_same_v<V, guid>) {
    return field_kind::guid;
  } else if constexpr (std::is_same_v<V, binary>) {
    return field_kind::binary;
  } else if constexpr (std::is_enum_v<V>) {
    using tr = enum_traits<V>;
    using u = std::underlying_type_t<V>;
    if constexpr (std::is_base_of_v<enum_as_integer, tr>) {
      static_assert(!(std::is_unsigned_v<u> && sizeof(u) >= 8),
                    "aztables: an enum with a 64-bit unsigned underlying type does not fit Edm.Int64");
      return ((std::is_signed_v<u> && sizeof(u) <= 4) || (std::is_unsigned_v<u> && sizeof(u) <= 2))
                 ? field_kind::enum_int32
                 : field_kind::enum_int64;
    } else {
      static_assert(has_enum_names<tr>::value,
                    "aztables: enum_traits<E> must either derive from aztables::enum_as_integer or define `static "
                    "constexpr std::pair<E, const char*> names[] = {{E::a, \"A\"}, ...};`");
      return field_kind::enum_string;
    }
  } else {
    static_assert(always_false_v<V>,
                  "aztables: unsupported member type in an entity mapping. Supported: std::string, bool, "
                  "std::int32_t, std::int64_t, double, aztables::datetime, aztables::guid, aztables::binary, an enum "
                  "with aztables::enum_traits<E>, and std::optional of one of these.");
    return field_kind::string;
  }
}

/// Everything the non-template code needs to read or write one mapped member.
struct field_info {
  std::string_view name;
  field_kind kind = field_kind::string;
  bool optional = false;
  /// The member's value storage (`std::string*`, `std::int64_t*`, `E*`, ...);
  /// an empty optional is emplaced first.
  void* (*target)(void* obj) = nullptr;
  /// The value storage, or nullptr for an empty optional.
  const void* (*source)(const void* obj) = nullptr;
  /// Optional members: makes the member empty.
  void (*reset)(void* obj) = nullptr;
  /// Enums: set from a stored name (false: unknown name) / integer (false: out of range).
  bool (*enum_from_string)(void* target, std::string_view name) = nullptr;
  bool (*enum_from_int)(void* target, std::int64_t v) = nullptr;
  /// Enums: the stored name (nullptr: none) / the integer value.
  const char* (*enum_to_string)(const void* source) = nullptr;
  std::int64_t (*enum_to_int)(const void* source) = nullptr;
};

/// A mapped type, type-erased: built once per type from `entity_traits<T>`.
struct entity_schema {
  const field_info* fields = nullptr;
  std::size_t size = 0;
  std::string* (*partition_key)(void* obj) = nullptr;
  std::string* (*row_key)(void* obj) = nullptr;
  aztables::etag* (*etag)(void* obj) = nullptr;  ///< nullptr: no ETag member
  /// Element `i` of a `std::vector<T>` (`i` <= size; at size a
  /// value-initialised T is appended first).
  void* (*element)(void* vec, std::size_t i) = nullptr;
  /// Shrinks a `std::vector<T>` to its first `n` elements.
  void (*truncate)(void* vec, std::size_t n) = nullptr;
  /// "PartitionKey,RowKey,Name1,..." for $select.
  std::string select;
};

// ---- compile-time checks -------------------------------------------------

template <class P>
struct member_pointer_traits {
  static constexpr bool valid = false;
};
template <class C, class M>
struct member_pointer_traits<M C::*> {
  static constexpr bool valid = true;
  using class_type = C;
  using member_type = M;
};

template <class Tr, class = void>
struct has_partition_key : std::false_type {};
template <class Tr>
struct has_partition_key<Tr, std::void_t<decltype(Tr::partition_key)>> : std::true_type {};
template <class Tr, class = void>
struct has_row_key : std::false_type {};
template <class Tr>
struct has_row_key<Tr, std::void_t<decltype(Tr::row_key)>> : std::true_type {};
template <class Tr, class = void>
struct has_etag_member : std::false_type {};
template <class Tr>
struct has_etag_member<Tr, std::void_t<decltype(Tr::etag)>> : std::true_type {};
template <class Tr, class = void>
struct has_properties : std::false_type {};
template <class Tr>
struct has_properties<Tr, std::void_t<decltype(Tr::properties)>> : std::true_type {};

template <class T, class P, class Want>
constexpr bool is_member_of() {
  using mp = member_pointer_traits<std::remove_cv_t<P>>;
  if constexpr (!mp::valid) {
    return false;
  } else {
    return std::is_same_v<typename mp::member_type, Want> &&
           (std::is_same_v<typename mp::class_type, T> || std::is_base_of_v<typename mp::class_type, T>);
  }
}

template <class Tuple>
struct is_fields_tuple : std::false_type {};
template <class... F>
struct is_fields_tuple<std::tuple<F...>> : std::bool_constant<(is_field_def<F>::value && ...)> {};

constexpr bool cstr_equal(const char* a, const char* b) noexcept {
  if (!a || !b) return a == b;
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

constexpr bool is_reserved_name(const char* n) noexcept {
  return cstr_equal(n, "PartitionKey") || cstr_equal(n, "RowKey") || cstr_equal(n, "Timestamp");
}

/// C# identifier rules (non-ASCII letters allowed), at most 255 characters.
constexpr bool is_valid_name(const char* n) noexcept {
  if (!n || !*n) return false;
  std::size_t chars = 0;
  for (const char* p = n; *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
    const bool digit = c >= '0' && c <= '9';
    if (p == n ? !letter : !(letter || digit)) return false;
    if ((c & 0xc0) != 0x80) ++chars;
  }
  return chars <= 255;
}

template <class Tuple, std::size_t... I>
constexpr bool names_ok(const Tuple& t, std::index_sequence<I...>, int what) {
  const char* names[sizeof...(I) + 1] = {std::get<I>(t).name..., nullptr};
  for (std::size_t i = 0; i < sizeof...(I); ++i) {
    if (what == 0 && is_reserved_name(names[i])) return false;
    if (what == 1)
      for (std::size_t j = i + 1; j < sizeof...(I); ++j)
        if (cstr_equal(names[i], names[j])) return false;
    if (what == 2 && !is_reserved_name(names[i]) && !is_valid_name(names[i])) return false;
  }
  return true;
}

template <class T, class Tr, bool HasProps = has_properties<Tr>::value>
struct property_checks {
  static constexpr bool ok = true;
  static constexpr std::size_t count = 0;
};
template <class T, class Tr>
struct property_checks<T, Tr, true> {
  using tuple_type = std::remove_cv_t<decltype(Tr::properties)>;
  static_assert(is_fields_tuple<tuple_type>::value,
                "aztables: entity_traits<T>::properties must be aztables::fields(aztables::field(\"Name\", "
                "&T::member), ...)");
  static constexpr std::size_t count = std::tuple_size_v<tuple_type>;
  static_assert(names_ok(Tr::properties, std::make_index_sequence<count>(), 0),
                "aztables: PartitionKey, RowKey and Timestamp are system properties and cannot be mapped as "
                "properties: map the keys with partition_key / row_key (Timestamp is set by the service)");
  static_assert(names_ok(Tr::properties, std::make_index_sequence<count>(), 1),
                "aztables: two mapped properties have the same stored name; each property name must be unique");
  static_assert(names_ok(Tr::properties, std::make_index_sequence<count>(), 2),
                "aztables: a property name must follow C# identifier rules: a letter or '_' first, then letters, "
                "digits or '_', at most 255 characters");
  static constexpr bool ok = true;
};

/// All compile-time checks of a mapping; instantiated by every conversion.
template <class T>
struct mapping_checks {
  using traits = entity_traits<T>;
  static_assert(has_partition_key<traits>::value,
                "aztables: entity_traits<T> needs `static constexpr auto partition_key = &T::member;` (a "
                "std::string member)");
  static_assert(has_row_key<traits>::value,
                "aztables: entity_traits<T> needs `static constexpr auto row_key = &T::member;` (a std::string "
                "member)");
  static constexpr bool keys_ok = [] {
    if constexpr (has_partition_key<traits>::value && has_row_key<traits>::value)
      return is_member_of<T, decltype(traits::partition_key), std::string>() &&
             is_member_of<T, decltype(traits::row_key), std::string>();
    else
      return true;
  }();
  static_assert(keys_ok, "aztables: entity_traits<T>::partition_key and row_key must point to std::string members of T");
  static constexpr bool etag_ok = [] {
    if constexpr (has_etag_member<traits>::value)
      return is_member_of<T, decltype(traits::etag), aztables::etag>();
    else
      return true;
  }();
  static_assert(etag_ok, "aztables: entity_traits<T>::etag must point to an aztables::etag member of T");
  static_assert(std::is_default_constructible_v<T>,
                "aztables: a mapped type must be default-constructible (reads fill a value-initialised T)");
  static constexpr bool ok = property_checks<T, traits>::ok;
  static constexpr std::size_t count = property_checks<T, traits>::count;
};

// ---- the type-erased accessors ------------------------------------------

template <class T, std::size_t I>
struct field_access {
  using traits = entity_traits<T>;
  using def_type = std::tuple_element_t<I, std::remove_cv_t<decltype(traits::properties)>>;
  using member_type = typename def_type::member_type;
  using opt = optional_traits<member_type>;
  using value_type = typename opt::value_type;
  static constexpr field_kind kind = kind_of<value_type>();

  static member_type& ref(void* obj) { return static_cast<T*>(obj)->*(std::get<I>(traits::properties).member); }
  static const member_type& cref(const void* obj) {
    return static_cast<const T*>(obj)->*(std::get<I>(traits::properties).member);
  }
  static void* target(void* obj) {
    member_type& m = ref(obj);
    if constexpr (opt::is_optional) {
      if (!m) m.emplace();
      return &*m;
    } else {
      return &m;
    }
  }
  static const void* source(const void* obj) {
    const member_type& m = cref(obj);
    if constexpr (opt::is_optional) {
      return m ? &*m : nullptr;
    } else {
      return &m;
    }
  }
  static void reset(void* obj) {
    if constexpr (opt::is_optional) ref(obj).reset();
  }
  static bool enum_from_string(void* t, std::string_view name) {
    if constexpr (kind == field_kind::enum_string) {
      for (const auto& n : enum_traits<value_type>::names)
        if (name == n.second) {
          *static_cast<value_type*>(t) = n.first;
          return true;
        }
    }
    (void)t;
    (void)name;
    return false;
  }
  static bool enum_from_int(void* t, std::int64_t v) {
    if constexpr (std::is_enum_v<value_type>) {
      using u = std::underlying_type_t<value_type>;
      if constexpr (std::is_signed_v<u>) {
        if (v < static_cast<std::int64_t>(std::numeric_limits<u>::min()) ||
            v > static_cast<std::int64_t>(std::numeric_limits<u>::max()))
          return false;
      } else {
        if (v < 0 || static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<u>::max()))
          return false;
      }
      *static_cast<value_type*>(t) = static_cast<value_type>(static_cast<u>(v));
      return true;
    } else {
      (void)t;
      (void)v;
      return false;
    }
  }
  static const char* enum_to_string(const void* s) {
    if constexpr (kind == field_kind::enum_string) {
      for (const auto& n : enum_traits<value_type>::names)
        if (n.first == *static_cast<const value_type*>(s)) return n.second;
    }
    (void)s;
    return nullptr;
  }
  static std::int64_t enum_to_int(const void* s) {
    if constexpr (std::is_enum_v<value_type>) {
      return static_cast<std::int64_t>(static_cast<std::underlying_type_t<value_type>>(*static_cast<const value_type*>(s)));
    } else {
      (void)s;
      return 0;
    }
  }

  static field_info info() {
    field_info f;
    f.name = std::get<I>(traits::properties).name;
    f.kind = kind;
    f.optional = opt::is_optional;
    f.target = &target;
    f.source = &source;
    if (opt::is_optional) f.reset = &reset;
    if (std::is_enum_v<value_type>) {
      f.enum_from_string = &enum_from_string;
      f.enum_from_int = &enum_from_int;
      f.enum_to_string = &enum_to_string;
      f.enum_to_int = &enum_to_int;
    }
    return f;
  }
};

template <class T>
struct key_access {
  using traits = entity_traits<T>;
  static std::string* partition_key(void* obj) { return &(static_cast<T*>(obj)->*(traits::partition_key)); }
  static std::string* row_key(void* obj) { return &(static_cast<T*>(obj)->*(traits::row_key)); }
  static aztables::etag* etag(void* obj) {
    if constexpr (has_etag_member<traits>::value)
      return &(static_cast<T*>(obj)->*(traits::etag));
    else
      return nullptr;
  }
};

template <class T>
struct vector_access {
  static void* element(void* vec, std::size_t i);
  static void truncate(void* vec, std::size_t n);
};

template <class T, std::size_t... I>
const entity_schema& make_schema(std::index_sequence<I...>) {
  static const field_info infos[sizeof...(I) + 1] = {field_access<T, I>::info()..., field_info{}};
  static const entity_schema schema = [] {
    entity_schema s;
    s.fields = infos;
    s.size = sizeof...(I);
    s.partition_key = &key_access<T>::partition_key;
    s.row_key = &key_access<T>::row_key;
    if (has_etag_member<entity_traits<T>>::value) s.etag = &key_access<T>::etag;
    s.element = &vector_access<T>::element;
    s.truncate = &vector_access<T>::truncate;
    s.select = "PartitionKey,RowKey";
    for (std::size_t i = 0; i < sizeof...(I); ++i) {
      s.select += ',';
      s.select.append(infos[i].name.data(), infos[i].name.size());
    }
    return s;
  }();
  return schema;
}

/// The schema of a mapped type (built once, thread-safe).
template <class T>
const entity_schema& schema_of() {
  static_assert(!std::is_same_v<T, entity>, "aztables: aztables::entity is the dynamic entity; it has no mapping");
  static_assert(mapping_checks<T>::ok, "aztables: invalid entity mapping");
  return make_schema<T>(std::make_index_sequence<mapping_checks<T>::count>());
}

// ---- conversions over a schema (non-template) ---------------------------

inline error mapping_error(std::string_view property, const std::string& what) {
  return error::make(errc::mapping, "property '" + std::string(property) + "': " + what);
}

/// The error for a stored value of type `stored` that does not fit `f`.
inline error type_mismatch(const field_info& f, edm stored) {
  return mapping_error(f.name, std::string("stored as ") + edm_name(stored) + ", which does not fit the member type " +
                                   kind_name(f.kind));
}

}  // namespace detail

namespace detail {
template <class T>
void* vector_access<T>::element(void* vec, std::size_t i) {
  auto& v = *static_cast<std::vector<T>*>(vec);
  return i < v.size() ? &v[i] : &v.emplace_back();
}
template <class T>
void vector_access<T>::truncate(void* vec, std::size_t n) {
  auto& v = *static_cast<std::vector<T>*>(vec);
  if (v.size() > n) v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
}
}  // namespace detail

AZTABLES_NAMESPACE_END
