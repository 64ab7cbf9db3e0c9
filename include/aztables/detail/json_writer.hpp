// SPDX-License-Identifier: MIT
// Internal: our own JSON writer for entities, with the service's rules
// checked in the same pass (one walk over every byte). Std-only.
#pragma once

#include <aztables/detail/codec.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// ---- 8 bytes at a time (SWAR): the common case of plain ASCII text is
// checked a word at a time; any word that needs attention goes byte by byte.
namespace swar {
inline constexpr std::uint64_t ones = 0x0101010101010101ULL;
inline constexpr std::uint64_t highs = 0x8080808080808080ULL;
inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
/// Non-zero when some byte of `w` is zero (exact as a yes/no answer).
inline constexpr std::uint64_t has_zero(std::uint64_t w) noexcept { return (w - ones) & ~w & highs; }
/// Non-zero when some byte of `w` equals `c`.
inline constexpr std::uint64_t has_byte(std::uint64_t w, unsigned char c) noexcept { return has_zero(w ^ (ones * c)); }
/// Non-zero when some byte of `w` is below `n` (n <= 128; bytes >= 0x80 never count).
inline constexpr std::uint64_t has_less(std::uint64_t w, unsigned char n) noexcept { return (w - ones * n) & ~w & highs; }
/// All eight bytes ASCII.
inline constexpr bool ascii(std::uint64_t w) noexcept { return (w & highs) == 0; }
/// All eight bytes printable ASCII that a key may contain (no / \ # ? or control characters).
inline constexpr bool plain_key_chars(std::uint64_t w) noexcept {
  return ascii(w) && !(has_less(w, 0x20) | has_byte(w, 0x7f) | has_byte(w, '/') | has_byte(w, '\\') |
                       has_byte(w, '#') | has_byte(w, '?'));
}
/// Some byte needs a JSON escape (a quote, a backslash or a control character).
inline constexpr bool needs_json_escape(std::uint64_t w) noexcept {
  return (has_less(w, 0x20) | has_byte(w, '"') | has_byte(w, '\\')) != 0;
}

#if defined(__SSE2__)
/// Bit i set when byte i of the 16 at `p` needs a JSON escape (a quote, a
/// backslash or a control character).
inline unsigned json_escape_mask16(const char* p) noexcept {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i ctl = _mm_set1_epi8(0x1f);
  const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                   _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));  // v <= 0x1f, unsigned
  return static_cast<unsigned>(_mm_movemask_epi8(bad));
}
/// Bit i set when byte i of the 16 at `p` is not ASCII.
inline unsigned non_ascii_mask16(const char* p) noexcept {
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
#endif

/// Number of bytes from s[0] on that need no JSON escape, found a block at a
/// time (at least the clean bytes before the first one that needs attention,
/// possibly fewer near the end: the caller goes on byte by byte).
inline std::size_t clean_json_prefix(const char* s, std::size_t n) noexcept {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16)
    if (const unsigned m = json_escape_mask16(s + i)) return i + static_cast<std::size_t>(__builtin_ctz(m));
#endif
  for (; i + 8 <= n; i += 8)
    if (needs_json_escape(load8(s + i))) return i;
  return i;
}

/// Number of ASCII bytes from s[0] on (as above: block-wise, possibly fewer).
inline std::size_t ascii_prefix(const char* s, std::size_t n) noexcept {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16)
    if (const unsigned m = non_ascii_mask16(s + i)) return i + static_cast<std::size_t>(__builtin_ctz(m));
#endif
  for (; i + 8 <= n; i += 8)
    if (!ascii(load8(s + i))) return i;
  return i;
}
}  // namespace swar

inline utf8_scan scan_utf8(std::string_view s) noexcept {
  utf8_scan r;
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size() && swar::plain_key_chars(swar::load8(s.data() + i))) {
      i += 8;
      r.utf16_units += 8;
      continue;
    }
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

/// Validity and UTF-16 length of a String value (control characters and any
/// other valid code point allowed: the key rules do not apply).
inline utf8_scan scan_utf8_text(std::string_view s) noexcept {
  utf8_scan r;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    if (n - i >= 8) {
      const std::size_t run = swar::ascii_prefix(s.data() + i, n - i);
      i += run;
      r.utf16_units += run;
      if (i >= n) break;
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
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

/// Checks a property name (C# identifier rules, at most 255 characters, not a
/// system name). When `utf16_units` is given, it receives the name's length in
/// UTF-16 code units (the service's size formula counts those).
inline std::optional<error> check_property_name(std::string_view name, std::size_t* utf16_units = nullptr) {
  auto fail = [&](const std::string& rule) {
    return error::invalid_argument("property '" + printable_name(name) + "'", rule);
  };
  if (name.empty()) return error::invalid_argument("property ''", "property names may not be empty");
  if (name == "PartitionKey" || name == "RowKey" || name == "Timestamp")
    return fail("is a system property name; set it through the entity's key or let the service set it");
  if (name.size() > max_property_name_length * 4) return fail("is longer than 255 characters");
  // Fast path: an ASCII identifier (the usual case) needs one table look-up per byte.
  {
    static constexpr auto classes = [] {
      std::array<std::uint8_t, 128> t{};  // 1: letter or '_', 2: digit
      for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = 1;
      for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = 1;
      t['_'] = 1;
      for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = 2;
      return t;
    }();
    bool simple = name.size() <= max_property_name_length && classes[static_cast<unsigned char>(name[0]) & 0x7f] == 1 &&
                  static_cast<unsigned char>(name[0]) < 0x80;
    for (std::size_t k = 1; simple && k < name.size(); ++k) {
      const auto c = static_cast<unsigned char>(name[k]);
      simple = c < 0x80 && classes[c] != 0;
    }
    if (simple) {
      if (utf16_units) *utf16_units = name.size();
      return std::nullopt;
    }
  }
  std::size_t i = 0, chars = 0, units = 0;
  while (i < name.size()) {
    std::uint32_t cp;
    if (!next_code_point(name, i, cp)) return fail("is not valid UTF-8");
    ++chars;
    units += cp >= 0x10000 ? 2 : 1;
    bool letter = (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_' || cp >= 0xc0;
    bool digit = cp >= '0' && cp <= '9';
    if (chars == 1 && !letter) return fail("must start with a letter or '_' (C# identifier rules)");
    if (!letter && !digit) return fail("may contain only letters, digits and '_' (C# identifier rules)");
  }
  if (chars > max_property_name_length) return fail("is longer than 255 characters");
  if (utf16_units) *utf16_units = units;
  return std::nullopt;
}

inline constexpr char json_hex[] = "0123456789abcdef";

inline void append_json_escape(std::string& out, unsigned char c);

/// Appends s as a JSON string (quotes included). Assumes valid UTF-8 (checked
/// by the caller); escapes quotes, backslashes and control characters, and
/// U+2028/U+2029 are left as they are (valid JSON).
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    // Skip the bytes with nothing to escape a block at a time, then look at one byte.
    if (s.size() - i >= 8) {
      i += swar::clean_json_prefix(s.data() + i, s.size() - i);
      if (i >= s.size()) break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    append_json_escape(out, c);
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

/// Appends the JSON escape of one byte that needs it (see append_json_string).
inline void append_json_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default: {
      const char u[6] = {'\\', 'u', '0', '0', json_hex[c >> 4], json_hex[c & 15]};
      out.append(u, 6);
    }
  }
}

/// append_json_string and scan_utf8_text in one pass (a String value is
/// validated, measured and written while its bytes are in cache): appends s as
/// a JSON string and sets `utf16_units`. Returns false, with `out` partly
/// written, when s is not valid UTF-8.
inline bool append_json_string_measured(std::string& out, std::string_view s, std::size_t& utf16_units) {
  out += '"';
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0, run = 0, units = 0;
  while (i < n) {
#if defined(__SSE2__)
    if (i + 16 <= n) {
      const unsigned m = swar::json_escape_mask16(p + i) | swar::non_ascii_mask16(p + i);
      if (m == 0) {
        i += 16;
        units += 16;
        continue;
      }
      const auto skip = static_cast<std::size_t>(__builtin_ctz(m));  // clean ASCII before the first flagged byte
      i += skip;
      units += skip;
    }
#else
    if (i + 8 <= n) {
      const std::uint64_t w = swar::load8(p + i);
      if (swar::ascii(w) && !swar::needs_json_escape(w)) {
        i += 8;
        units += 8;
        continue;
      }
    }
#endif
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == '"' || c == '\\') {
        out.append(p + run, i - run);
        append_json_escape(out, c);
        run = i + 1;
      }
      ++i;
      ++units;
      continue;
    }
    std::uint32_t cp;
    if (!next_code_point(s, i, cp)) return false;
    units += cp >= 0x10000 ? 2 : 1;
  }
  out.append(p + run, n - run);
  out += '"';
  utf16_units = units;
  return true;
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

// The service's size formula: an entity is 4 bytes, plus 2 per UTF-16 code
// unit of its PartitionKey and RowKey, plus per property 8 bytes, 2 per code
// unit of its name, and its value's size: 4 + 2 per code unit for a String,
// 4 + its length for Binary, a fixed size for the other types.

/// Size of a String value of `utf16_units` code units.
inline constexpr std::size_t string_value_size(std::size_t utf16_units) noexcept { return 4 + 2 * utf16_units; }

/// Size of a property whose name has `name_units` code units, holding a value of `value_size` bytes.
inline constexpr std::size_t property_size(std::size_t name_units, std::size_t value_size) noexcept {
  return 8 + 2 * name_units + value_size;
}

/// The error for a String value of property `name` over the length limit
/// (callers compare with max_string_utf16_units themselves: the check stays
/// inline on the write path).
inline error string_too_long(std::string_view name, std::size_t utf16_units) {
  return error::invalid_argument("property '" + std::string(name) + "'", "String value is " +
                                                                          std::to_string(utf16_units) +
                                                                          " UTF-16 code units; the limit is 32768 (64 KiB)");
}

/// The service's size formula for one value.
inline std::size_t value_size(const value& v) noexcept {
  switch (v.type()) {
    case edm::string: return string_value_size(scan_utf8_text(*v.as_string()).utf16_units);
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
  std::size_t name_units = 0;
  if (auto e = check_property_name(name, &name_units)) return e;
  auto fail = [&](const std::string& rule) { return error::invalid_argument("property '" + std::string(name) + "'", rule); };
  std::size_t bytes = 0;
  switch (v.type()) {
    case edm::string: {
      utf8_scan sc = scan_utf8_text(*v.as_string());
      if (!sc.valid) return fail("String value is not valid UTF-8");
      if (sc.utf16_units > max_string_utf16_units) return string_too_long(name, sc.utf16_units);
      bytes = string_value_size(sc.utf16_units);
      break;
    }
    case edm::binary:
      if (v.as_binary()->size() > max_binary_bytes)
        return fail("Binary value is " + std::to_string(v.as_binary()->size()) + " bytes; the limit is 65536 (64 KiB)");
      bytes = value_size(v);
      break;
    case edm::datetime: {
      auto t = v.as_datetime()->time_since_epoch().count();
      if (t < min_datetime_ticks || t > max_datetime_ticks)
        return fail("DateTime is outside the service's range 1601-01-01 to 9999-12-31 (UTC)");
      bytes = value_size(v);
      break;
    }
    default: bytes = value_size(v);
  }
  if (size_out) *size_out = property_size(name_units, bytes);
  return std::nullopt;
}

/// Appends `"Name":value` (and its `Name@odata.type` annotation where the
/// type needs one) with a leading comma.
inline void append_property_json(std::string& out, std::string_view name, const value& v) {
  // The name, the short values and the annotation are written into a local
  // buffer and appended at once; String and Binary values go straight to `out`.
  char local[2 * 1024 + 160];
  std::string heap;  // only for names longer than any valid one
  const std::size_t need = 2 * name.size() + 96;
  char* const base = need <= sizeof local ? local : (heap.resize(need), &heap[0]);
  char* p = base;
  auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  auto flush = [&] {
    out.append(base, static_cast<std::size_t>(p - base));
    p = base;
  };
  auto annotate = [&](std::string_view type) {
    put(",\"");
    put(name);  // names are validated identifiers: no escaping needed
    put("@odata.type\":\"");
    put(type);
    *p++ = '"';
  };
  put(",\"");
  put(name);
  put("\":");
  switch (v.type()) {
    case edm::string:
      flush();
      append_json_string(out, *v.as_string());
      return;
    case edm::binary:
      *p++ = '"';
      flush();
      base64_encode_to(out, v.as_binary()->data(), v.as_binary()->size());
      *p++ = '"';
      annotate("Edm.Binary");
      break;
    case edm::boolean: put(*v.as_bool() ? "true" : "false"); break;
    case edm::datetime:
      *p++ = '"';
      p = format_iso8601_chars(p, *v.as_datetime());
      *p++ = '"';
      annotate("Edm.DateTime");
      break;
    case edm::double_: {
      const double d = *v.as_double();
      if (std::isnan(d)) {
        put("\"NaN\"");
      } else if (std::isinf(d)) {
        put(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
      } else {
        char* start = p;
        p = std::to_chars(p, p + 32, d).ptr;
        if (std::find_if(start, p, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == p) put(".0");
      }
      annotate("Edm.Double");
      break;
    }
    case edm::guid: {
      static constexpr char hex[] = "0123456789abcdef";
      const auto& b = v.as_guid()->bytes();
      *p++ = '"';
      for (std::size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 15];
      }
      *p++ = '"';
      annotate("Edm.Guid");
      break;
    }
    case edm::int32: p = std::to_chars(p, p + 16, *v.as_int32()).ptr; break;
    case edm::int64:
      *p++ = '"';
      p = std::to_chars(p, p + 24, *v.as_int64()).ptr;
      *p++ = '"';
      annotate("Edm.Int64");
      break;
  }
  flush();
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

/// About the size of an entity's JSON body (escapes aside): names (twice with
/// an annotation), values, punctuation and annotation text. For reserving
/// output buffers once.
inline std::size_t entity_json_size_estimate(const entity& e) noexcept {
  std::size_t estimate = 40 + e.partition_key.size() + e.row_key.size();
  for (const auto& p : e.properties()) {
    estimate += 2 * p.name.size() + 48;
    if (const std::string* str = p.value.as_string()) estimate += str->size() + str->size() / 16;
    else if (const binary* bin = p.value.as_binary()) estimate += (bin->size() + 2) / 3 * 4;
  }
  return estimate;
}

/// Validates an entity against every service rule and appends its JSON body.
/// On error nothing useful is in `out` and the error names the field.
inline std::optional<error> append_entity_json(std::string& out, const entity& e) {
  if (auto err = check_key("PartitionKey", e.partition_key)) return err;
  if (auto err = check_key("RowKey", e.row_key)) return err;
  if (e.size() > max_user_properties)
    return error::invalid_argument("entity", "has " + std::to_string(e.size() + 3) +
                                                 " properties including PartitionKey, RowKey and Timestamp; the "
                                                 "limit is 255");
  std::size_t total = 4 + 2 * (scan_utf8(e.partition_key).utf16_units + scan_utf8(e.row_key).utf16_units);  // the size formula above
  out.reserve(out.size() + entity_json_size_estimate(e));
  out += "{\"PartitionKey\":";
  append_json_string(out, e.partition_key);
  out += ",\"RowKey\":";
  append_json_string(out, e.row_key);
  const auto& props = e.properties();
  // Duplicate names: a cheap fingerprint (length and first bytes) is compared
  // first, the names only when fingerprints match.
  std::uint64_t fingerprints[max_user_properties];
  for (std::size_t i = 0; i < props.size(); ++i) {
    const std::string& name = props[i].name;
    const value& v = props[i].value;
    const std::string* str = v.as_string();
    std::size_t sz = 0, name_units = 0;
    if (str) {
      if (auto err = check_property_name(name, &name_units)) return err;
    } else if (auto err = check_property(name, v, &sz)) {
      return err;
    }
    std::uint64_t fp = 0;  // whole loads or single bytes: no store-forwarding stall
    if (name.size() >= 8) {
      std::memcpy(&fp, name.data(), 8);
      fp &= 0x0000ffffffffffffULL;
    } else {
      for (std::size_t k = 0; k < name.size() && k < 6; ++k)
        fp |= static_cast<std::uint64_t>(static_cast<unsigned char>(name[k])) << (8 * k);
    }
    fp |= static_cast<std::uint64_t>(name.size()) << 48;
    fingerprints[i] = fp;
    for (std::size_t j = 0; j < i; ++j)
      if (fingerprints[j] == fp && props[j].name == name)
        return error::invalid_argument("property '" + name + "'", "appears twice");
    if (str) {
      // String values: checked, measured and written in one pass.
      out += ",\"";
      out += name;  // a validated identifier: no escaping needed
      out += "\":";
      std::size_t units = 0;
      if (!append_json_string_measured(out, *str, units))
        return error::invalid_argument("property '" + name + "'", "String value is not valid UTF-8");
      if (units > max_string_utf16_units) return string_too_long(name, units);
      sz = property_size(name_units, string_value_size(units));
    } else {
      append_property_json(out, name, v);
    }
    total += sz;
  }
  if (total > max_entity_bytes)
    return error::invalid_argument("entity", "is " + std::to_string(total) +
                                                 " bytes by the service's size formula; the limit is 1 MiB (1048576)");
  out += '}';
  return std::nullopt;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
