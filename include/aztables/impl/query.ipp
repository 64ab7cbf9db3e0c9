// SPDX-License-Identifier: MIT
// Queries: filter literals, key ranges, the pager engine and the typed
// decoder (simdjson On-Demand straight into mapped structs).
#pragma once

#include <aztables/detail/client_core.hpp>
#include <aztables/detail/codec.hpp>
#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/url.hpp>
#include <aztables/query.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

AZTABLES_NAMESPACE_BEGIN

// Declared in table_client.hpp (which includes this file's header first).
AZTABLES_DECL result<void> validate_table_name(std::string_view name);

namespace detail {

/// Appends `s` as an OData string literal: quotes doubled, so the value can
/// never end the literal early.
inline std::optional<error> append_string_literal(std::string& out, std::string_view s, std::string_view what) {
  if (!scan_utf8(s).valid) return error::invalid_argument(std::string(what), "is not valid UTF-8");
  out += '\'';
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return std::nullopt;
}

/// Appends a typed OData literal for `v`.
inline std::optional<error> append_literal(std::string& out, const value& v) {
  switch (v.type()) {
    case edm::string: return append_string_literal(out, *v.as_string(), "filter literal");
    case edm::boolean: out += *v.as_bool() ? "true" : "false"; return std::nullopt;
    case edm::int32: append_int(out, *v.as_int32()); return std::nullopt;
    case edm::int64:
      append_int(out, *v.as_int64());
      out += 'L';
      return std::nullopt;
    case edm::double_: {
      const double d = *v.as_double();
      if (!std::isfinite(d))
        return error::invalid_argument("filter literal", "NaN and infinite Doubles cannot be compared in a filter");
      // Fixed notation with the shortest digits that read back exactly: an
      // exponent ("1e+300") is valid OData but not understood everywhere
      // (Azurite reads only -?digits[.digits]).
      char buf[400];
      auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
      out.append(buf, r.ptr);
      if (std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)).find('.') == std::string_view::npos) out += ".0";
      return std::nullopt;
    }
    case edm::datetime: {
      const auto t = v.as_datetime()->time_since_epoch().count();
      if (t < min_datetime_ticks || t > max_datetime_ticks)
        return error::invalid_argument("filter literal", "DateTime is outside the service's range 1601-01-01 to 9999-12-31 (UTC)");
      out += "datetime'";
      format_iso8601_to(out, *v.as_datetime());
      out += '\'';
      return std::nullopt;
    }
    case edm::guid:
      out += "guid'";
      out += v.as_guid()->to_string();
      out += '\'';
      return std::nullopt;
    case edm::binary: {
      static constexpr char hex[] = "0123456789abcdef";
      out += "X'";
      for (std::uint8_t b : *v.as_binary()) {
        out += hex[b >> 4];
        out += hex[b & 15];
      }
      out += '\'';
      return std::nullopt;
    }
  }
  return error::invalid_argument("filter literal", "has an unknown type");
}

inline bool is_system_property(std::string_view n) noexcept {
  return n == "PartitionKey" || n == "RowKey" || n == "Timestamp";
}

/// Encodes a code point as UTF-8.
inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

/// The least valid string above every string that starts with `p`, in the
/// service's order (UTF-16 code units); nullopt when there is none (empty
/// prefix, or only U+FFFF characters). Precondition: `p` is valid UTF-8.
inline std::optional<std::string> prefix_successor(std::string_view p) {
  std::vector<std::uint32_t> cps;
  for (std::size_t i = 0; i < p.size();) {
    std::uint32_t cp = 0;
    if (!next_code_point(p, i, cp)) return std::nullopt;
    cps.push_back(cp);
  }
  while (!cps.empty()) {
    const std::uint32_t c = cps.back();
    if (c == 0xffff) {  // the largest UTF-16 code unit: carry into the previous character
      cps.pop_back();
      continue;
    }
    std::uint32_t next;
    if (c == 0xd7ff)
      next = 0x10000;  // the next unit would be a high surrogate: the least string there starts with U+10000
    else if (c == 0x10ffff)
      next = 0xe000;  // units DBFF DFFF: the next unit that can start a character is E000
    else
      next = c + 1;  // BMP below D7FF, E000-FFFE, or a supplementary character (contiguous in UTF-16 order)
    cps.back() = next;
    std::string out;
    out.reserve(p.size() + 1);
    for (std::uint32_t cp : cps) append_utf8(out, cp);
    return out;
  }
  return std::nullopt;
}

inline std::optional<error> append_range(std::string& f, std::string_view property, const key_range& r) {
  if (r.build_error()) return *r.build_error();
  if (r.lower()) {
    if (!f.empty()) f += " and ";
    f += property;
    f += r.lower()->inclusive ? " ge " : " gt ";
    if (auto e = append_string_literal(f, r.lower()->key, std::string(property) + " lower bound")) return e;
  }
  if (r.upper()) {
    if (!f.empty()) f += " and ";
    f += property;
    f += r.upper()->inclusive ? " le " : " lt ";
    if (auto e = append_string_literal(f, r.upper()->key, std::string(property) + " upper bound")) return e;
  }
  return std::nullopt;
}

inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ULL) noexcept {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

inline std::string base64url(std::string_view s) {
  std::string out;
  base64_encode_to(out, reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    else if (c == '/') c = '_';
  }
  return out;
}

inline std::optional<std::string> base64url_decode(std::string_view s) {
  std::string b64(s);
  for (char& c : b64) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=') return std::nullopt;
  }
  while (b64.size() % 4 != 0) b64 += '=';
  binary bytes;
  if (!base64_decode_to(b64, bytes)) return std::nullopt;
  return std::string(bytes.begin(), bytes.end());
}

// ---- typed decoding ---------------------------------------------------------

/// Reads one JSON entity object straight into a mapped object, in one pass.
/// With metadata (minimalmetadata) the annotations are checked against the
/// member types, in whichever order they come; without (nometadata) the
/// mapping is the schema and the string forms are parsed by member type.
class typed_reader {
 public:
  typed_reader(const entity_schema& s, bool minimal)
      : s_(s), minimal_(minimal), words_(s.size) {
    for (std::size_t i = 0; i < s.size; ++i) words_[i] = words_of(s.fields[i].name);
    quoted_.reserve(s.size + 1);
    for (std::size_t i = 0; i < s.size; ++i) quoted_.push_back(quoted_of(s.fields[i].name));
    quoted_.push_back(quoted_name{});  // past the last member: matches no key
    offset_.assign(s.size, -1);
    own_type_.reserve(s.size);
    for (std::size_t i = 0; i < s.size; ++i) {
      char text[16] = {':', '"'};  // `:"Edm.<type>`, at most 14 bytes
      const char* type = edm_name(kind_edm(s.fields[i].kind));
      const std::size_t n = std::strlen(type);
      std::memcpy(text + 2, type, n);
      own_type_.push_back(quoted_of(std::string_view(text, n + 2)));
    }
    bits_.resize((s.size + 63) / 64);
    for (auto& b : bits_) b.all = ~std::uint64_t(0);
    if (s.size % 64) bits_.back().all = (std::uint64_t(1) << (s.size % 64)) - 1;
  }

  /// Overwrites every member of `out` (which may hold an earlier entity:
  /// strings keep their storage).
  std::optional<error> read(od::object obj, void* out) {
    for (auto& b : bits_) b.read = b.unconfirmed = b.annotated = 0;
    if (!located_) locate(out);
    partition_key(out).clear();
    row_key(out).clear();
    if (s_.etag) etag_text(out).clear();
    hint_ = 0;  // properties come in mapping order: the first mapped name is expected first
    for (auto item : obj) {
      if (item.error()) return bad_json("bad property in query response");
      od::field& field = item.value_unsafe();
      // Properties usually come in mapping order: the next mapped name is
      // tried first, straight on the document's bytes (see next_name_at);
      // any other key goes to other_key(). One call site for read_field: it
      // is inlined, and inlined twice it made the loop spill and stall.
      std::size_t idx;
      const char* key_text = reinterpret_cast<const char*>(field.key().raw());
      if (next_name_at(key_text)) {
        idx = hint_++;
      } else if (const bool pk = at(key_text, pk_name_); pk || at(key_text, rk_name_)) {
        // PartitionKey and RowKey, recognised the same way.
        if (auto e = read_key(pk, field.value(), out)) return e;
        continue;
      } else if (minimal_ && next_annotation_at(key_text)) {
        // Usually the annotation names the member's own type, written as the
        // service writes it (no space, no escape): the bytes after the key
        // say so, and the value is left for the iteration to step over.
        if (at(key_text + words_[hint_].n + 12, own_type_[hint_])) annotated(hint_);
        else if (auto e = annotation(hint_, field.value())) return e;
        continue;
      } else if (at(key_text, timestamp_name_)) {
        continue;  // in every entity, never mapped
      } else if (s_.etag && at(key_text, etag_name_)) {
        if (string_into(field.value(), etag_text(out))) return bad_json("odata.etag is not a string");
        continue;
      } else {
        if (auto e = other_key(field, out, idx)) return e;
        if (idx == npos) continue;
      }
      if (!read_field(idx, field.value(), out, failed_)) return failure(idx, field.value(), failed_);
    }
    // Usually every member was read and none waits for its annotation: one
    // compare per 64 members, no walk over them.
    bool complete = true;
    for (const auto& b : bits_) complete &= b.read == b.all && b.unconfirmed == 0;
    if (complete) return std::nullopt;
    // Otherwise only the members with a bit set are visited, in mapping order.
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      for (std::uint64_t todo = (bits_[w].all & ~bits_[w].read) | bits_[w].unconfirmed; todo; todo &= todo - 1) {
        const std::size_t i = 64 * w + static_cast<std::size_t>(lowest_bit(todo));
        const field_info& f = s_.fields[i];
        if (test(&member_bits::unconfirmed, i)) return type_mismatch(f, edm::string);
        if (!f.optional)
          return mapping_error(f.name, "is missing from the stored entity (map it to a std::optional member to "
                                       "allow that)");
        f.reset(out);
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  /// The index of the lowest set bit of `x` (not 0).
  static int lowest_bit(std::uint64_t x) noexcept {
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) x >>= 1, ++n;
    return n;
#endif
  }

  /// Members 64w to 64w + 63, one bit each (see bits_).
  struct member_bits {
    std::uint64_t read = 0, unconfirmed = 0, annotated = 0, all = 0;
  };
  /// Bit `i` of one of member_bits' sets (`which`).
  bool test(std::uint64_t member_bits::*which, std::size_t i) const noexcept {
    return (bits_[i >> 6].*which >> (i & 63)) & 1;
  }
  void set(std::uint64_t member_bits::*which, std::size_t i) noexcept {
    bits_[i >> 6].*which |= std::uint64_t(1) << (i & 63);
  }
  void unset(std::uint64_t member_bits::*which, std::size_t i) noexcept {
    bits_[i >> 6].*which &= ~(std::uint64_t(1) << (i & 63));
  }
  /// Member `idx` was read; `confirm`: from a string form that its annotation,
  /// not seen yet, must still confirm (minimalmetadata).
  void mark_read(std::size_t idx, bool confirm) noexcept {
    set(&member_bits::read, idx);
    if (confirm) set(&member_bits::unconfirmed, idx);
  }

  /// A name as two words and its length: names of up to 16 bytes compare
  /// exactly with three integer compares; longer ones also compare bytes.
  struct name_words {
    std::uint64_t w1 = 0, w2 = 0;
    std::size_t n = 0;
    std::uint64_t m1 = 0, m2 = 0;  ///< which bits of the two words the first 16 bytes fill
    bool operator==(const name_words& o) const noexcept { return w1 == o.w1 && w2 == o.w2 && n == o.n; }
  };
  /// A name of up to 15 bytes and its closing quote, as two masked words: a
  /// key is that name when the 16 bytes at its start match under the masks
  /// (no length check, no separate look at the quote). Longer names, and the
  /// value-initialised entry after the last member, match no key (a zero
  /// mask against a word that is not zero).
  struct quoted_name {
    std::uint64_t w1 = 1, m1 = 0, w2 = 0, m2 = 0;
  };
  static quoted_name quoted_of(std::string_view s) noexcept {
    if (s.size() > 15) return quoted_name{};
    char buf[16] = {};
    std::memcpy(buf, s.data(), s.size());
    buf[s.size()] = '"';
    const name_words k = words_at(buf, s.size() + 1);
    return quoted_name{k.w1, k.m1, k.w2, k.m2};
  }
  /// A mapped name's words (once per reader): zero-padded, then loaded.
  static name_words words_of(std::string_view s) noexcept {
    char buf[16] = {};
    std::memcpy(buf, s.data(), std::min<std::size_t>(s.size(), 16));
    return words_at(buf, s.size());
  }
  /// The words of the `n` bytes at `p`, with 16 bytes readable at `p` (a key
  /// read in place from the padded document, or words_of's buffer): two
  /// whole loads masked to the length (no byte loop, and no short copy into
  /// a word that a wide read would then stall on).
  static name_words words_at(const char* p, std::size_t n) noexcept {
    name_words k;
    k.n = n;
    const std::uint64_t a = load8(p), b = load8(p + 8);
    k.m1 = n >= 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * n)) - 1;
    k.m2 = n >= 16 ? ~std::uint64_t(0) : n <= 8 ? 0 : (std::uint64_t(1) << (8 * (n - 8))) - 1;
    k.w1 = a & k.m1;
    k.w2 = b & k.m2;
    return k;
  }
  /// PartitionKey (`pk`) or RowKey: a string, read into its member.
  std::optional<error> read_key(bool pk, od::value& v, void* out) {
    if (string_into(v, pk ? partition_key(out) : row_key(out)))
      return bad_json(std::string(pk ? "PartitionKey" : "RowKey") + " is not a string");
    return std::nullopt;
  }

  /// An "@odata.type" annotation of mapped member `i`: checked against the
  /// member's type; it confirms a value read before it.
  std::optional<error> annotation(std::size_t i, od::value& v) {
    std::string_view tn;
    if (string_value(v, tn))
      return bad_json("annotation '" + std::string(s_.fields[i].name) + "@odata.type' is not a string");
    auto t = edm_from_name(tn);
    if (!t) return bad_json("property '" + std::string(s_.fields[i].name) + "': unknown type " + std::string(tn.substr(0, 32)));
    if (!fits(s_.fields[i].kind, *t)) return type_mismatch(s_.fields[i], *t);
    annotated(i);
    return std::nullopt;
  }
  /// Member `i`'s annotation was read and fits: it confirms a value read
  /// before it, or types the value still to come.
  void annotated(std::size_t i) noexcept {
    if (!test(&member_bits::read, i)) set(&member_bits::annotated, i);
    else unset(&member_bits::unconfirmed, i);
  }

  /// Whether the key text at `p` is the annotation of the next mapped name
  /// (of up to 16 bytes): "<name>@odata.type" (the service writes it just
  /// before its property). Reads stay within 29 bytes of `p`, in the padding;
  /// read()'s look at the value after a match, within 44.
  bool next_annotation_at(const char* p) const noexcept {
    return hint_ < s_.size && starts_with(p, words_[hint_]) && std::memcmp(p + words_[hint_].n, "@odata.type\"", 12) == 0;
  }

  /// A key that is not the next mapped name of up to 16 bytes: annotations,
  /// odata names, PartitionKey/RowKey (read here), a mapped name out of order
  /// or longer than 16 bytes (`idx` set), or an unmapped one (`idx` = npos).
  /// Keys and string values are read in place when they have no escape
  /// (detail/json_reader.hpp).
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  std::optional<error> other_key(od::field& field, void* out, std::size_t& idx) {
    idx = npos;
    // (The key's start is taken first: unescaping a key consumes it.)
    const char* key_start = reinterpret_cast<const char*>(field.key().raw());
    std::string_view key;
    if (field_key(field, key)) return bad_json("bad property name");
    const bool in_place = key.data() == key_start;
    // Words of a name in the key: loaded in place when the key is in the
    // padded document, from a copy when it was unescaped.
    auto words = [in_place](std::string_view n) { return in_place ? words_at(n.data(), n.size()) : words_of(n); };
    constexpr std::size_t suffix_len = 11;  // "@odata.type"
    if (key.size() > suffix_len && key.back() == 'e' &&
        std::memcmp(key.data() + key.size() - suffix_len, "@odata.type", suffix_len) == 0) {
      const std::string_view name = key.substr(0, key.size() - suffix_len);
      const std::size_t i = find(name, words(name), false);
      if (i == npos) return std::nullopt;
      return annotation(i, field.value());
    }
    if (key.size() > 6 && key[0] == 'o' && std::memcmp(key.data(), "odata.", 6) == 0) {
      if (s_.etag && name_is(key, "odata.etag")) {
        std::string_view tag;
        if (string_value(field.value(), tag)) return bad_json("odata.etag is not a string");
        overwrite(etag_text(out), tag);
      }
      return std::nullopt;
    }
    const bool pk = name_is(key, "PartitionKey");
    if (pk || name_is(key, "RowKey")) return read_key(pk, field.value(), out);
    if (name_is(key, "Timestamp")) return std::nullopt;  // in every entity, never mapped
    // Not mapped (a property the struct does not name): npos.
    idx = find(key, words(key), true);
    return std::nullopt;
  }

  /// Whether the key whose text starts at `p` (in the padded document, just
  /// past its opening quote) is the next mapped name, for names of up to 15
  /// bytes: the name and its closing quote under their masks (quoted_name). A
  /// name holds no quote and no backslash, so a match means the key is
  /// exactly the name, with no escape; no scan for the key's end is needed.
  /// Everything read lies within 16 bytes of `p`, inside the padding.
  bool next_name_at(const char* p) const noexcept { return at(p, quoted_[hint_]); }
  /// Whether the key text at `p` is the name of `q` followed by its closing quote.
  static bool at(const char* p, const quoted_name& q) noexcept {
    return ((load8(p) & q.m1) == q.w1) & ((load8(p + 8) & q.m2) == q.w2);
  }
  /// Whether the text at `p` (16 bytes readable) begins with the name `m` of
  /// up to 16 bytes: its two words under the name's masks.
  static bool starts_with(const char* p, const name_words& m) noexcept {
    return m.n <= 16 && (load8(p) & m.m1) == m.w1 && (load8(p + 8) & m.m2) == m.w2;
  }
  bool matches(std::size_t i, std::string_view name, const name_words& k) const noexcept {
    return words_[i] == k && (k.n <= 16 || std::memcmp(s_.fields[i].name.data(), name.data(), name.size()) == 0);
  }

  /// The mapped property called `name` (words `fp`), or npos; the next one in
  /// mapping order is tried first.
  std::size_t find(std::string_view name, const name_words& fp, bool advance) {
    if (hint_ < s_.size && matches(hint_, name, fp)) {
      const std::size_t i = hint_;
      if (advance) ++hint_;
      return i;
    }
    for (std::size_t i = 0; i < s_.size; ++i)
      if (matches(i, name, fp)) {
        hint_ = advance ? i + 1 : i;
        return i;
      }
    return npos;
  }

  /// Why a value could not be read: the hot path only records it, and
  /// failure() builds the message out of line (message building inline made
  /// every read pay for a large frame).
  enum class why : std::uint8_t {
    bad_value, null_member, bad_string, enum_name, bad_bool, wrong_type, int64_text, int32_range, enum_range,
    bad_double, datetime_text, guid_text, binary_text
  };
  struct failed_read {
    why w = why::bad_value;
    od::json_type jt = od::json_type::null;
    std::string_view text;  ///< the string value, where there was one
    std::int64_t number = 0;
  };

  error wrong_json(const field_info& f, od::value& v, od::json_type jt) {
    switch (jt) {
      case od::json_type::string:
        if (minimal_) return type_mismatch(f, edm::string);
        return mapping_error(f.name, std::string("stored as a string value, which does not fit the member type ") +
                                         kind_name(f.kind));
      case od::json_type::number: {
        std::string_view tok = v.raw_json_token();
        return type_mismatch(f, has_fraction_or_exponent(tok) ? edm::double_ : edm::int32);
      }
      case od::json_type::boolean: return type_mismatch(f, edm::boolean);
      default: return bad_json("property '" + std::string(f.name) + "' is an object or array");
    }
  }

#if defined(__GNUC__)
  __attribute__((noinline, cold))
#endif
  error failure(std::size_t idx, od::value& v, const failed_read& r) {
    const field_info& f = s_.fields[idx];
    const std::string name(f.name);
    // A string form that does not parse is the member's error when an
    // annotation named the type; otherwise the value is of another type.
    const bool typed = minimal_ && test(&member_bits::annotated, idx);
    switch (r.w) {
      case why::bad_value: return bad_json("bad value for '" + name + "'");
      case why::null_member: return mapping_error(f.name, "is null, and the member is not a std::optional");
      case why::bad_string: return bad_json("bad string for '" + name + "'");
      case why::enum_name:
        return mapping_error(f.name, "'" + std::string(r.text.substr(0, 64)) + "' is not a name in enum_traits<E>::names");
      case why::bad_bool: return bad_json("bad boolean for '" + name + "'");
      case why::wrong_type: break;
      case why::int64_text:
        if (typed)
          return mapping_error(f.name, "stored Edm.Int64 value '" + std::string(r.text.substr(0, 32)) +
                                           "' is not a 64-bit integer");
        break;
      case why::int32_range: return type_mismatch(f, edm::int64);
      case why::enum_range:
        return mapping_error(f.name, std::to_string(r.number) + " is out of the range of the enum's underlying type");
      case why::bad_double: return bad_json("bad Double for '" + name + "'");
      case why::datetime_text:
        if (typed)
          return mapping_error(f.name, "stored Edm.DateTime value '" + std::string(r.text.substr(0, 40)) +
                                           "' is not an ISO 8601 time");
        break;
      case why::guid_text:
        if (typed)
          return mapping_error(f.name, "stored Edm.Guid value '" + std::string(r.text.substr(0, 40)) + "' is not a GUID");
        break;
      case why::binary_text:
        if (typed) return mapping_error(f.name, "stored Edm.Binary value is not base64");
        break;
    }
    return wrong_json(f, v, r.jt);
  }

  /// Reads one mapped member; false with `r` saying why (see failure()).
  /// Inlined into read(): as a call its prologue and epilogue were a tenth
  /// of the reader's own instructions.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  bool read_field(std::size_t idx, od::value& v, void* out, failed_read& r) {
    const field_info& f = s_.fields[idx];
    // (Only where a value is stored: an optional member is emplaced by it.)
    auto target = [&] { return member(idx, f, out); };
    // Without an annotation yet, a string form (Int64, DateTime, Guid, Binary,
    // special Double) read with metadata must still be confirmed by one.
    // (Asked only where a string form was read: most members never need it.)
    auto provisional = [&] { return minimal_ && !test(&member_bits::annotated, idx); };
    // The common cases first, without asking the value's type: a string
    // member and a string value with no escape, copied as it is scanned; a
    // DateTime, Guid, Binary or Int64 member whose text as written parses (it
    // then held no escape: the parsers refuse a backslash).
    if (f.kind == field_kind::string) {
      if (copy_plain_string(v, *static_cast<std::string*>(target()))) {
        mark_read(idx, false);
        return true;
      }
    } else if (f.kind == field_kind::datetime || f.kind == field_kind::guid || f.kind == field_kind::binary ||
               f.kind == field_kind::int64) {
      std::string_view text;
      if (raw_string_text(v, text) && parse_text(f, text, target())) {
        mark_read(idx, provisional());
        return true;
      }
    }
    od::json_type& jt = r.jt;
    if (v.type().get(jt)) return r.w = why::bad_value, false;
    if (jt == od::json_type::null) {
      if (!f.optional) return r.w = why::null_member, false;
      f.reset(out);
      mark_read(idx, false);
      return true;
    }
    bool confirm = false;
    std::string_view& sv = r.text;
    switch (f.kind) {
      case field_kind::string:
      case field_kind::enum_string: {
        if (jt != od::json_type::string) return r.w = why::wrong_type, false;
        // (A string member's value has an escape: copy_plain_string above
        // refused it, so it is unescaped without looking for one again.)
        if (f.kind == field_kind::string ? v.get_string().get(sv) : string_value(v, sv))
          return r.w = why::bad_string, false;
        if (f.kind == field_kind::string) overwrite(*static_cast<std::string*>(target()), sv);
        else if (!f.enum_from_string(target(), sv)) return r.w = why::enum_name, false;
        break;
      }
      case field_kind::boolean: {
        if (jt != od::json_type::boolean) return r.w = why::wrong_type, false;
        bool b = false;
        if (v.get_bool().get(b)) return r.w = why::bad_bool, false;
        *static_cast<bool*>(target()) = b;
        break;
      }
      case field_kind::int32:
      case field_kind::enum_int32:
      case field_kind::int64:
      case field_kind::enum_int64: {
        const bool wide = f.kind == field_kind::int64 || f.kind == field_kind::enum_int64;
        std::int64_t& i = r.number;
        if (jt == od::json_type::number) {
          if (v.get_int64().get(i)) return r.w = why::wrong_type, false;
        } else if (jt == od::json_type::string && wide) {
          if (string_value(v, sv)) return r.w = why::bad_string, false;
          if (!parse_int64(sv, i)) return r.w = why::int64_text, false;
          confirm = provisional();
        } else {
          return r.w = why::wrong_type, false;
        }
        if (!wide && (i < std::numeric_limits<std::int32_t>::min() || i > std::numeric_limits<std::int32_t>::max()))
          return r.w = why::int32_range, false;
        if (f.kind == field_kind::int32) *static_cast<std::int32_t*>(target()) = static_cast<std::int32_t>(i);
        else if (f.kind == field_kind::int64) *static_cast<std::int64_t*>(target()) = i;
        else if (!f.enum_from_int(target(), i)) return r.w = why::enum_range, false;
        break;
      }
      case field_kind::double_: {
        double d = 0;
        if (jt == od::json_type::number) {
          if (v.get_double().get(d)) return r.w = why::bad_double, false;
        } else if (jt == od::json_type::string) {
          if (string_value(v, sv)) return r.w = why::bad_string, false;
          if (!double_from_text(sv, d)) return r.w = why::wrong_type, false;
          confirm = provisional();
        } else {
          return r.w = why::wrong_type, false;
        }
        *static_cast<double*>(target()) = d;
        break;
      }
      case field_kind::datetime:
      case field_kind::guid:
      case field_kind::binary: {
        if (jt != od::json_type::string) return r.w = why::wrong_type, false;
        if (string_value(v, sv)) return r.w = why::bad_string, false;
        if (!parse_text(f, sv, target())) {
          r.w = f.kind == field_kind::datetime ? why::datetime_text
                : f.kind == field_kind::guid ? why::guid_text
                                             : why::binary_text;
          return false;
        }
        confirm = provisional();
        break;
      }
    }
    mark_read(idx, confirm);
    return true;
  }

  /// Parses the text of a DateTime, Guid, Binary or Int64 member into its storage `t`.
  static bool parse_text(const field_info& f, std::string_view text, void* t) {
    switch (f.kind) {
      case field_kind::datetime: return parse_iso8601_to(text, *static_cast<datetime*>(t));
      case field_kind::guid: return parse_guid(text, *static_cast<guid*>(t));
      case field_kind::int64: return parse_int64(text, *static_cast<std::int64_t*>(t));
      default: return base64_decode_to(text, *static_cast<binary*>(t));
    }
  }

  /// Where the members lie in an object, learnt from the first one read: the
  /// schema's accessors are indirect calls, six per entity for the keys and
  /// ETag and one per member. A plain member lies at the same offset in every
  /// object of its type; an optional one still goes through its accessor,
  /// which emplaces it.
  void locate(void* out) {
    char* const base = static_cast<char*>(out);
    for (std::size_t i = 0; i < s_.size; ++i)
      if (!s_.fields[i].optional) offset_[i] = static_cast<char*>(s_.fields[i].target(out)) - base;
    pk_offset_ = reinterpret_cast<char*>(s_.partition_key(out)) - base;
    rk_offset_ = reinterpret_cast<char*>(s_.row_key(out)) - base;
    if (s_.etag) etag_offset_ = reinterpret_cast<char*>(&edm_access::text(*s_.etag(out))) - base;
    located_ = true;
  }
  /// Member `i`'s storage in `out` (see locate()).
  void* member(std::size_t i, const field_info& f, void* out) const {
    return offset_[i] >= 0 ? static_cast<char*>(out) + offset_[i] : f.target(out);
  }
  std::string& partition_key(void* out) const noexcept {
    return *reinterpret_cast<std::string*>(static_cast<char*>(out) + pk_offset_);
  }
  std::string& row_key(void* out) const noexcept {
    return *reinterpret_cast<std::string*>(static_cast<char*>(out) + rk_offset_);
  }
  std::string& etag_text(void* out) const noexcept {
    return *reinterpret_cast<std::string*>(static_cast<char*>(out) + etag_offset_);
  }

  const entity_schema& s_;
  bool minimal_;
  failed_read failed_;  ///< filled only when a read fails
  // Per member, cleared per entity: read; read from a string form that awaits
  // its annotation; annotated before its value came. `all` has every
  // member's bit. (Sets of one struct per 64 members: clearing them is a few
  // stores, not three fills.)
  std::vector<member_bits> bits_;
  std::vector<name_words> words_;
  std::vector<quoted_name> quoted_;  ///< per member, and one past the last
  /// Per member, the text after "<name>@odata.type" when the annotation
  /// names the member's own type: `:"Edm.Int64"` (at most 16 bytes).
  std::vector<quoted_name> own_type_;
  std::vector<std::ptrdiff_t> offset_;  ///< per member: its offset in an object, or -1 (optional: target())
  std::ptrdiff_t pk_offset_ = 0, rk_offset_ = 0, etag_offset_ = 0;
  bool located_ = false;
  const quoted_name pk_name_ = quoted_of("PartitionKey");
  const quoted_name rk_name_ = quoted_of("RowKey");
  const quoted_name timestamp_name_ = quoted_of("Timestamp");
  const quoted_name etag_name_ = quoted_of("odata.etag");
  std::size_t hint_ = 0;
};

/// Decodes `{"value":[...]}`: drops the first `skip` items undecoded, decodes
/// at most `max_items` more, and counts every item in `total`. The decoded
/// entities replace the contents of `out` (a `std::vector` of the schema's
/// type, or of `entity` without a schema); entities `out` already holds are
/// overwritten in place, so their strings' storage is reused and a caller that
/// decodes page after page into one vector stops allocating for them. On an
/// error `out` holds the entities decoded before it.
inline std::optional<error> decode_page(std::string& body, od::parser& parser, const entity_schema* schema, bool minimal,
                                        void* out, std::size_t skip, std::size_t max_items, std::size_t& total,
                                        std::size_t& delivered) {
  total = 0;
  delivered = 0;
  // The vector's accessors: the mapping's for a struct, vector_access<entity>'s otherwise.
  void* (*const element)(void*, std::size_t) = schema ? schema->element : &vector_access<entity>::element;
  void (*const truncate)(void*, std::size_t) = schema ? schema->truncate : &vector_access<entity>::truncate;
  od::document doc;
  od::object root;
  od::array arr;
  // (No count of the items first to reserve the vector: measured, counting
  // walks every token of the page again and costs more than the growth.)
  if (parser.iterate(padded_view(body)).get(doc) || doc.get_object().get(root) ||
      root["value"].get_array().get(arr)) {
    truncate(out, 0);
    return bad_json("query response is not a JSON object with a 'value' array");
  }
  std::optional<typed_reader> reader;
  if (schema) reader.emplace(*schema, minimal);
  for (auto item : arr) {
    od::value val;
    od::object o;
    if (item.get(val)) {
      truncate(out, delivered);
      return bad_json("bad entity in query response");
    }
    const std::size_t index = total++;
    if (index < skip || delivered >= max_items) continue;  // skipped without decoding
    // (No std::optional<error> declared per item: zeroing it showed in profiles.)
    if (val.get_object().get(o)) {
      truncate(out, delivered);
      return bad_json("query response item is not an object");
    }
    void* slot = element(out, delivered);
    if (auto e = schema ? reader->read(o, slot) : read_entity(o, *static_cast<entity*>(slot))) {
      truncate(out, delivered);
      return e;
    }
    ++delivered;
  }
  truncate(out, delivered);
  return std::nullopt;
}

constexpr std::string_view token_prefix = "aztq1";

}  // namespace detail

// ---- filter, key_range, query ----------------------------------------------

AZTABLES_DECL filter filter::compare(std::string_view property, const char* op, result<value> v) {
  if (!v) return failed(std::move(v).error());
  if (!detail::is_system_property(property))
    if (auto e = detail::check_property_name(property)) return failed(std::move(*e));
  filter f;
  f.text_.reserve(property.size() + 24);
  f.text_.append(property.data(), property.size());
  f.text_ += ' ';
  f.text_ += op;
  f.text_ += ' ';
  if (auto e = detail::append_literal(f.text_, *v)) return failed(std::move(*e));
  return f;
}

AZTABLES_DECL key_range key_range::prefix(std::string_view prefix) {
  key_range r;
  if (!detail::scan_utf8(prefix).valid) {
    r.error_ = error::invalid_argument("key_range::prefix", "the prefix is not valid UTF-8");
    return r;
  }
  r.lower_ = key_bound{std::string(prefix), true};
  if (auto up = detail::prefix_successor(prefix)) r.upper_ = key_bound{std::move(*up), false};
  if (prefix.empty()) r.lower_.reset();
  return r;
}

AZTABLES_DECL result<std::string> query::filter_text() const {
  std::string f;
  switch (kind_) {
    case kind::point:
      if (auto e = detail::check_key("PartitionKey", partition_key_)) return std::move(*e);
      if (auto e = detail::check_key("RowKey", row_key_)) return std::move(*e);
      f = "PartitionKey eq ";
      detail::append_string_literal(f, partition_key_, "PartitionKey");
      f += " and RowKey eq ";
      detail::append_string_literal(f, row_key_, "RowKey");
      break;
    case kind::row_range:
      if (auto e = detail::check_key("PartitionKey", partition_key_)) return std::move(*e);
      f = "PartitionKey eq ";
      detail::append_string_literal(f, partition_key_, "PartitionKey");
      if (auto e = detail::append_range(f, "RowKey", rows_)) return std::move(*e);
      break;
    case kind::partition_range:
      if (partitions_.unbounded())
        return error::invalid_argument("query::partition_range", "needs a bounded PartitionKey range; to read the "
                                                                 "whole table ask for query::table_scan()");
      if (auto e = detail::append_range(f, "PartitionKey", partitions_)) return std::move(*e);
      if (auto e = detail::append_range(f, "RowKey", rows_)) return std::move(*e);
      break;
    case kind::table_scan: break;
  }
  auto extra = extra_.str();
  if (!extra) return std::move(extra).error();
  if (!extra->empty()) {
    if (f.empty()) {
      f = std::move(*extra);
    } else {
      f += " and (";
      f += *extra;
      f += ')';
    }
  }
  return f;
}

// ---- pager ------------------------------------------------------------------

namespace detail {

AZTABLES_DECL pager_core::pager_core(std::shared_ptr<client_core> core, std::string table, aztables::query q,
                                     const entity_schema* schema)
    : core_(std::move(core)), table_(std::move(table)), q_(std::move(q)), schema_(schema) {
  prepare_error_ = prepare();
  if (!prepare_error_ && limit_ && *limit_ == 0) done_ = true;
}

AZTABLES_DECL std::optional<error> pager_core::prepare() {
  accept_ = (schema_ && !schema_->etag) ? accept_none : accept_minimal;
  if (auto v = validate_table_name(table_); !v) return std::move(v).error();
  auto f = q_.filter_text();
  if (!f) return std::move(f).error();
  std::string select;
  if (const select_list* names = query_access::select(q_)) {
    if (schema_)
      return error::invalid_argument("query::select", "a typed query selects the properties its mapping names; map a "
                                                      "smaller struct to read fewer");
    for (const auto& n : *names) {
      if (!is_system_property(n))
        if (auto e = check_property_name(n)) return e;
      if (!select.empty()) select += ',';
      select += n;
    }
  } else if (schema_) {
    select = schema_->select;
  }
  if (const auto& ps = query_access::page_size(q_); ps && (*ps < 1 || *ps > 1000))
    return error::invalid_argument("query::page_size", "must be 1 to 1000 (the service's page limit)");
  limit_ = query_access::limit(q_);
  if (!f->empty()) {
    base_query_ = "$filter=";
    percent_encode_to(base_query_, *f);
  }
  if (!select.empty()) {
    if (!base_query_.empty()) base_query_ += '&';
    base_query_ += "$select=";
    percent_encode_to(base_query_, select);
  }
  {
    static constexpr char hex[] = "0123456789abcdef";
    std::uint64_t h = fnv1a(*f, fnv1a("\n", fnv1a(table_)));
    fingerprint_.clear();
    for (int i = 60; i >= 0; i -= 4) fingerprint_ += hex[(h >> i) & 15];
  }
  if (const auto& tok = query_access::resume(q_)) {
    auto fail = [](const char* rule) { return error::invalid_argument("query::resume token", rule); };
    if (tok->empty()) return fail("is empty: an empty token means the query had nothing left to read");
    std::vector<std::string_view> parts;
    std::string_view s = *tok;
    for (std::size_t a = 0;;) {
      std::size_t b = s.find('.', a);
      parts.push_back(s.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
    if (parts.size() != 5 || parts[0] != token_prefix) return fail("is not a token made by pager::token()");
    if (parts[1] != fingerprint_)
      return fail("belongs to a different query (another table, key condition or filter)");
    std::size_t skip = 0;
    auto r = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), skip);
    if (parts[2].empty() || r.ec != std::errc() || r.ptr != parts[2].data() + parts[2].size())
      return fail("is not a token made by pager::token()");
    position p;
    p.skip = skip;
    for (int k = 0; k < 2; ++k) {
      std::string_view part = parts[3 + k];
      if (part == "-") continue;
      if (part.empty() || part[0] != (k == 0 ? 'p' : 'r')) return fail("is not a token made by pager::token()");
      auto dec = base64url_decode(part.substr(1));
      if (!dec) return fail("is not a token made by pager::token()");
      (k == 0 ? p.next_pk : p.next_rk) = std::move(*dec);
    }
    next_ = std::move(p);
  }
  return std::nullopt;
}

AZTABLES_DECL std::string pager_core::encode(const position& p) const {
  std::string t(token_prefix);
  t += '.';
  t += fingerprint_;
  t += '.';
  t += std::to_string(p.skip);
  t += p.next_pk ? ".p" + base64url(*p.next_pk) : std::string(".-");
  t += p.next_rk ? ".r" + base64url(*p.next_rk) : std::string(".-");
  return t;
}

AZTABLES_DECL std::string pager_core::token(std::size_t consumed, std::size_t remaining) const {
  if (prepare_error_) return query_access::resume(q_).value_or(std::string());
  if (remaining > 0) {
    position p = page_start_;
    p.skip += consumed;
    return encode(p);
  }
  if (exhausted_) return std::string();
  return encode(next_);
}

AZTABLES_DECL result<void> pager_core::fetch(void* out) {
  if (prepare_error_) return *prepare_error_;
  if (done_) return {};
  std::size_t top = static_cast<std::size_t>(query_access::page_size(q_).value_or(0));
  if (limit_) {
    const std::size_t want = *limit_ - delivered_ + next_.skip;
    top = std::min(top ? top : std::size_t(1000), want);
  }
  request_spec spec;
  spec.method = "GET";
  spec.path = table_ + "()";
  spec.accept = accept_;
  spec.query = base_query_;
  auto add = [&](std::string_view name, std::string_view v) {
    if (!spec.query.empty()) spec.query += '&';
    spec.query += name;
    spec.query += '=';
    percent_encode_to(spec.query, v);
  };
  if (top) add("$top", std::to_string(top));
  if (next_.next_pk) add("NextPartitionKey", *next_.next_pk);
  if (next_.next_rk) add("NextRowKey", *next_.next_rk);
  auto r = core_->execute({"query", true}, spec);
  if (!r) return std::move(r).error();

  const std::string* npk = r->headers.find("x-ms-continuation-NextPartitionKey");
  const std::string* nrk = r->headers.find("x-ms-continuation-NextRowKey");
  if (!parser_) parser_ = std::make_shared<od::parser>();
  std::size_t total = 0, got = 0;
  const std::size_t max_items = limit_ ? *limit_ - delivered_ : std::numeric_limits<std::size_t>::max();
  if (auto e = decode_page(r->body, *static_cast<od::parser*>(parser_.get()), schema_, accept_ == accept_minimal, out,
                           next_.skip, max_items, total, got))
    return *e;
  const position sent = next_;
  const std::size_t dropped = std::min(sent.skip, total);
  if (npk && total == 0 && sent.next_pk && *sent.next_pk == *npk &&
      (nrk ? sent.next_rk && *sent.next_rk == *nrk : !sent.next_rk))
    return error::make(errc::invalid_response, "the service returned an empty page with the same continuation");
  page_start_ = sent;
  page_start_.skip = dropped;
  delivered_ += got;
  if (got < total - dropped) {  // cut by the limit: resume right after the last delivered entity
    next_ = sent;
    next_.skip = dropped + got;
    done_ = true;
    return {};
  }
  if (!npk) {
    exhausted_ = true;
    done_ = true;
    next_ = position();
  } else {
    position n;
    n.next_pk = *npk;
    if (nrk) n.next_rk = *nrk;
    n.skip = sent.skip - dropped;
    next_ = std::move(n);
  }
  if (limit_ && delivered_ >= *limit_) done_ = true;
  return {};
}

AZTABLES_DECL result<bool> get_typed(client_core& core, const std::string& table, const entity_key& key,
                                     const entity_schema& schema, void* obj) {
  if (auto v = validate_table_name(table); !v) return std::move(v).error();
  if (auto e = check_key("PartitionKey", key.partition_key)) return std::move(*e);
  if (auto e = check_key("RowKey", key.row_key)) return std::move(*e);
  request_spec spec;
  spec.method = "GET";
  spec.path = entity_path(table, key.partition_key, key.row_key);
  spec.accept = accept_none;  // the ETag comes in a header; the mapping is the schema
  spec.query = "$select=";
  percent_encode_to(spec.query, schema.select);
  auto r = core.execute({"get", true}, spec);
  if (!r) {
    if (r.error().code == errc::not_found && r.error().service_code == "ResourceNotFound") return false;
    return std::move(r).error();
  }
  od::parser& parser = thread_parser();
  od::document doc;
  if (parser.iterate(padded_view(r->body)).get(doc)) return bad_json("entity response is not JSON");
  od::object o;
  if (doc.get_object().get(o)) return bad_json("entity response is not a JSON object");
  typed_reader reader(schema, false);
  if (auto e = reader.read(o, obj)) return std::move(*e);
  if (schema.etag) {
    if (const std::string* tag = r->headers.find("ETag")) *schema.etag(obj) = etag(*tag);
  }
  if (schema.partition_key(obj)->empty()) *schema.partition_key(obj) = key.partition_key;
  if (schema.row_key(obj)->empty()) *schema.row_key(obj) = key.row_key;
  return true;
}

}  // namespace detail

AZTABLES_NAMESPACE_END
