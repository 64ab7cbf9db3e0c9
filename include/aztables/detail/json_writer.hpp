// SPDX-License-Identifier: MIT
// Internal: our own JSON writer for entities, with the service's rules
// checked in the same pass (one walk over every byte). Std-only.
#pragma once

#include <aztables/detail/codec.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

// Service limits (TABLE-SERVICE.md).
inline constexpr std::size_t max_key_utf16_units = 512;        // 1 KiB in UTF-16
inline constexpr std::size_t max_string_utf16_units = 32768;   // 64 KiB in UTF-16
inline constexpr std::size_t max_binary_bytes = 65536;         // 64 KiB
inline constexpr std::size_t max_properties_total = 255;       // including PartitionKey, RowKey, Timestamp
inline constexpr std::size_t max_user_properties = max_properties_total - 3;
inline constexpr std::size_t max_property_name_length = 255;
inline constexpr std::size_t max_entity_bytes = 1024 * 1024;   // 1 MiB, service's size formula
inline constexpr std::int64_t min_datetime_ticks = -116444736000000000LL;  // 1601-01-01T00:00:00Z
inline constexpr std::int64_t max_datetime_ticks = 2534023007999999999LL;  // 9999-12-31T23:59:59.9999999Z

/// Result of scanning a UTF-8 string: valid or not, UTF-16 length, and the
/// first code point that a key may not contain.
struct utf8_scan {
  bool valid = true;
  std::size_t utf16_units = 0;
  bool has_key_forbidden = false;
  std::uint32_t forbidden_cp = 0;
};

inline bool key_forbidden(std::uint32_t cp) noexcept {
  return cp == '/' || cp == '\\' || cp == '#' || cp == '?' || cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

/// Decodes one code point at s[i]; advances i. Returns false on invalid UTF-8
/// (overlong forms, surrogates, > U+10FFFF, truncation).
inline bool next_code_point(std::string_view s, std::size_t& i, std::uint32_t& cp) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    cp = b0;
    ++i;
    return true;
  }
  std::size_t n;
  std::uint32_t min;
  if ((b0 & 0xe0) == 0xc0) {
    n = 2;
    cp = b0 & 0x1f;
    min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3;
    cp = b0 & 0x0f;
    min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return false;
  }
  if (i + n > s.size()) return false;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return false;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  i += n;
  return true;
}

inline utf8_scan scan_utf8(std::string_view s) noexcept {
  utf8_scan r;
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path over a block of plain ASCII that needs no attention.
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '/' && c != '\\' && c != '#' && c != '?') {
      ++i;
      ++r.utf16_units;
      continue;
    }
    std::uint32_t cp;
    if (!next_code_point(s, i, cp)) {
      r.valid = false;
      return r;
    }
    r.utf16_units += cp >= 0x10000 ? 2 : 1;
    if (!r.has_key_forbidden && key_forbidden(cp)) {
      r.has_key_forbidden = true;
      r.forbidden_cp = cp;
    }
  }
  return r;
}

inline std::string describe_code_point(std::uint32_t cp) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string s = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) s += hex[(cp >> shift) & 15];
  if (cp >= 0x20 && cp < 0x7f) {
    s += " '";
    s += static_cast<char>(cp);
    s += "'";
  }
  return s;
}

/// Checks a PartitionKey or RowKey; `field` names it in the error.
inline std::optional<error> check_key(std::string_view field, std::string_view key) {
  utf8_scan sc = scan_utf8(key);
  if (!sc.valid) return error::invalid_argument(std::string(field), "is not valid UTF-8");
  if (sc.has_key_forbidden)
    return error::invalid_argument(std::string(field), "contains " + describe_code_point(sc.forbidden_cp) +
                                                            ", which keys may not contain (/ \\ # ? and control "
                                                            "characters U+0000-U+001F, U+007F-U+009F)");
  if (sc.utf16_units > max_key_utf16_units)
    return error::invalid_argument(std::string(field), "is " + std::to_string(sc.utf16_units) +
                                                           " UTF-16 code units long; the limit is 512 (1 KiB)");
  return std::nullopt;
}

/// Checks a property name: C#-identifier-like (letter or '_' first, then
/// letters, digits, '_'; non-ASCII letters allowed), at most 255 characters,
/// not a system property name.
/// A property name as shown in an error: at most 64 characters, cut at a
/// character boundary, invalid UTF-8 bytes shown as \xNN.
inline std::string printable_name(std::string_view name) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t i = 0, chars = 0;
  while (i < name.size()) {
    if (++chars > 64) {
      out += "...";
      break;
    }
    const std::size_t at = i;
    std::uint32_t cp;
    if (next_code_point(name, i, cp)) {
      out.append(name.data() + at, i - at);
    } else {
      const auto b = static_cast<unsigned char>(name[at]);
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 15];
      i = at + 1;
    }
  }
  return out;
}

inline std::optional<error> check_property_name(std::string_view name) {
  auto fail = [&](const std::string& rule) {
    return error::invalid_argument("property '" + printable_name(name) + "'", rule);
  };
  if (name.empty()) return error::invalid_argument("property ''", "property names may not be empty");
  if (name == "PartitionKey" || name == "RowKey" || name == "Timestamp")
    return fail("is a system property name; set it through the entity's key or let the service set it");
  if (name.size() > max_property_name_length * 4) return fail("is longer than 255 characters");
  std::size_t i = 0, chars = 0;
  while (i < name.size()) {
    std::uint32_t cp;
    if (!next_code_point(name, i, cp)) return fail("is not valid UTF-8");
    ++chars;
    bool letter = (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_' || cp >= 0xc0;
    bool digit = cp >= '0' && cp <= '9';
    if (chars == 1 && !letter) return fail("must start with a letter or '_' (C# identifier rules)");
    if (!letter && !digit) return fail("may contain only letters, digits and '_' (C# identifier rules)");
  }
  if (chars > max_property_name_length) return fail("is longer than 255 characters");
  return std::nullopt;
}

inline constexpr char json_hex[] = "0123456789abcdef";

/// Appends s as a JSON string (quotes included). Assumes valid UTF-8 (checked
/// by the caller); escapes quotes, backslashes and control characters, and
/// U+2028/U+2029 are left as they are (valid JSON).
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out += json_hex[c >> 4];
        out += json_hex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

/// Appends a double as a JSON number the service reads back as a Double:
/// whole values get ".0"; NaN/Infinity are written as the strings the
/// service uses (always with the Edm.Double annotation).
inline void append_json_double(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "\"NaN\"";
    return;
  }
  if (std::isinf(d)) {
    out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  std::size_t start = out.size();
  append_double(out, d);
  if (out.find_first_of(".eE", start) == std::string::npos) out += ".0";
}

/// The service's size formula for one value.
inline std::size_t value_size(const value& v) noexcept {
  switch (v.type()) {
    case edm::string: return 4 + 2 * scan_utf8(*v.as_string()).utf16_units;
    case edm::binary: return 4 + v.as_binary()->size();
    case edm::boolean: return 1;
    case edm::datetime: return 8;
    case edm::double_: return 8;
    case edm::guid: return 16;
    case edm::int32: return 4;
    case edm::int64: return 8;
  }
  return 0;
}

/// Checks one property (name and value); for bodies and for the typed mapping.
inline std::optional<error> check_property(std::string_view name, const value& v, std::size_t* size_out = nullptr) {
  if (auto e = check_property_name(name)) return e;
  auto fail = [&](const std::string& rule) { return error::invalid_argument("property '" + std::string(name) + "'", rule); };
  std::size_t units = 0;
  switch (v.type()) {
    case edm::string: {
      utf8_scan sc = scan_utf8(*v.as_string());
      if (!sc.valid) return fail("String value is not valid UTF-8");
      if (sc.utf16_units > max_string_utf16_units)
        return fail("String value is " + std::to_string(sc.utf16_units) +
                    " UTF-16 code units; the limit is 32768 (64 KiB)");
      units = 4 + 2 * sc.utf16_units;
      break;
    }
    case edm::binary:
      if (v.as_binary()->size() > max_binary_bytes)
        return fail("Binary value is " + std::to_string(v.as_binary()->size()) + " bytes; the limit is 65536 (64 KiB)");
      units = 4 + v.as_binary()->size();
      break;
    case edm::datetime: {
      auto t = v.as_datetime()->time_since_epoch().count();
      if (t < min_datetime_ticks || t > max_datetime_ticks)
        return fail("DateTime is outside the service's range 1601-01-01 to 9999-12-31 (UTC)");
      units = 8;
      break;
    }
    default: units = value_size(v);
  }
  if (size_out) *size_out = 8 + 2 * scan_utf8(name).utf16_units + units;
  return std::nullopt;
}

/// Appends `"Name":value` (and its `Name@odata.type` annotation where the
/// type needs one) with a leading comma.
inline void append_property_json(std::string& out, std::string_view name, const value& v) {
  auto annotate = [&](const char* type) {
    out += ",\"";
    out.append(name.data(), name.size());
    out += "@odata.type\":\"";
    out += type;
    out += '"';
  };
  out += ",\"";
  out.append(name.data(), name.size());  // names are validated identifiers: no escaping needed
  out += "\":";
  switch (v.type()) {
    case edm::string: append_json_string(out, *v.as_string()); break;
    case edm::binary:
      out += '"';
      base64_encode_to(out, v.as_binary()->data(), v.as_binary()->size());
      out += '"';
      annotate("Edm.Binary");
      break;
    case edm::boolean: out += *v.as_bool() ? "true" : "false"; break;
    case edm::datetime:
      out += '"';
      format_iso8601_to(out, *v.as_datetime());
      out += '"';
      annotate("Edm.DateTime");
      break;
    case edm::double_:
      append_json_double(out, *v.as_double());
      annotate("Edm.Double");
      break;
    case edm::guid:
      out += '"';
      out += v.as_guid()->to_string();
      out += '"';
      annotate("Edm.Guid");
      break;
    case edm::int32: append_int(out, *v.as_int32()); break;
    case edm::int64:
      out += '"';
      append_int(out, *v.as_int64());
      out += '"';
      annotate("Edm.Int64");
      break;
  }
}

/// Writes `in` (valid UTF-8 JSON text) to `out` with every non-ASCII character
/// escaped as \uXXXX (a surrogate pair above U+FFFF): the same JSON value,
/// pure ASCII. Non-ASCII can only occur inside strings, where the escape is
/// always allowed. Returns false, leaving `out` alone, when `in` is already
/// ASCII.
inline bool ascii_json(std::string_view in, std::string& out) {
  std::size_t i = 0;
  while (i < in.size() && static_cast<unsigned char>(in[i]) < 0x80) ++i;
  if (i == in.size()) return false;
  out.clear();
  out.reserve(in.size() + in.size() / 2);
  out.append(in.data(), i);
  auto u16 = [&](std::uint32_t unit) {
    out += "\\u";
    out += json_hex[(unit >> 12) & 15];
    out += json_hex[(unit >> 8) & 15];
    out += json_hex[(unit >> 4) & 15];
    out += json_hex[unit & 15];
  };
  while (i < in.size()) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::uint32_t cp;
    const std::size_t at = i;
    if (!next_code_point(in, i, cp)) {  // not produced by our writer; keep the byte
      out += in[at];
      i = at + 1;
      continue;
    }
    if (cp < 0x10000) {
      u16(cp);
    } else {
      cp -= 0x10000;
      u16(0xd800 + (cp >> 10));
      u16(0xdc00 + (cp & 0x3ff));
    }
  }
  return true;
}

/// Bodies larger than this are sent as pure ASCII to emulator endpoints.
/// Azurite decodes every TCP read of a single-entity body on its own and turns
/// a UTF-8 character split across two reads into U+FFFD (Azure/Azurite#2670);
/// Node reads at most 64 KiB at a time, so a request larger than that is
/// always split, wherever the client puts its writes. The margin leaves room
/// for the request line and headers, which travel in the same write.
inline constexpr std::size_t emulator_single_read_body = 60 * 1024;

/// Validates an entity against every service rule and appends its JSON body.
/// On error nothing useful is in `out` and the error names the field.
inline std::optional<error> append_entity_json(std::string& out, const entity& e) {
  if (auto err = check_key("PartitionKey", e.partition_key)) return err;
  if (auto err = check_key("RowKey", e.row_key)) return err;
  if (e.size() > max_user_properties)
    return error::invalid_argument("entity", "has " + std::to_string(e.size() + 3) +
                                                 " properties including PartitionKey, RowKey and Timestamp; the "
                                                 "limit is 255");
  std::size_t total = 4 + 2 * (scan_utf8(e.partition_key).utf16_units + scan_utf8(e.row_key).utf16_units);
  out += "{\"PartitionKey\":";
  append_json_string(out, e.partition_key);
  out += ",\"RowKey\":";
  append_json_string(out, e.row_key);
  const auto& props = e.properties();
  for (std::size_t i = 0; i < props.size(); ++i) {
    std::size_t sz = 0;
    if (auto err = check_property(props[i].name, props[i].value, &sz)) return err;
    for (std::size_t j = 0; j < i; ++j)
      if (props[j].name == props[i].name)
        return error::invalid_argument("property '" + props[i].name + "'", "appears twice");
    total += sz;
    append_property_json(out, props[i].name, props[i].value);
  }
  if (total > max_entity_bytes)
    return error::invalid_argument("entity", "is " + std::to_string(total) +
                                                 " bytes by the service's size formula; the limit is 1 MiB (1048576)");
  out += '}';
  return std::nullopt;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
