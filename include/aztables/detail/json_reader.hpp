// SPDX-License-Identifier: MIT
// Internal: reading service JSON with simdjson's On-Demand API. Entities in
// every metadata level, table lists, and error bodies.
#pragma once

#include <aztables/detail/codec.hpp>
#include <aztables/detail/per_thread.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

AZTABLES_NAMESPACE_BEGIN
namespace detail {

namespace od = simdjson::ondemand;

inline error bad_json(std::string what) { return error::make(errc::invalid_response, std::move(what)); }

/// `s = v` for a string that held an earlier entity's value (its storage is
/// reused): clear, then append, which costs fewer instructions than
/// assign's general replace.
inline void overwrite(std::string& s, std::string_view v) {
  s.clear();
  s.append(v.data(), v.size());
}

/// Makes `body` usable by simdjson without a copy when it already has spare
/// capacity for the padding; otherwise grows it once.
inline simdjson::padded_string_view padded_view(std::string& body) {
  if (body.capacity() < body.size() + simdjson::SIMDJSON_PADDING) body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(body.data(), body.size(), body.capacity());
}

/// A parser per thread for the small documents of single requests (one entity,
/// a table list, an error body): its buffers are allocated once and reused.
/// Each use finishes with the document before returning, so uses never nest.
struct thread_parser_slot {
  od::parser parser;
};
inline od::parser& thread_parser() { return per_thread<thread_parser_slot>().parser; }

/// Makes simdjson's own function-local statics (its implementation objects)
/// exist before the first client does. Statics are destroyed in the reverse
/// order of their construction, so a client held in a static and made after
/// this can still parse from its destructor at exit; without it, simdjson's
/// statics, first touched by a later request, would be gone by then.
inline void init_parser_globals() {
  static const bool done = [] {
    od::parser p;
    simdjson::padded_string json(std::string_view("{}"));
    od::document d;
    od::object o;
    (void)p.iterate(json).get(d);
    (void)d.get_object().get(o);
    return true;
  }();
  (void)done;
}

/// Maps an annotation value ("Edm.Int64") to a type; nullopt if unknown.
inline std::optional<edm> edm_from_name(std::string_view n) noexcept {
  if (n.size() < 8 || std::memcmp(n.data(), "Edm.", 4) != 0) return std::nullopt;
  const char* t = n.data() + 4;
  // By length, then one fixed-size compare (no chain of string comparisons).
  auto is = [&](const char* name, std::size_t len) { return n.size() == 4 + len && std::memcmp(t, name, len) == 0; };
  switch (n.size() - 4) {
    case 4: if (is("Guid", 4)) return edm::guid; break;
    case 5:
      if (is("Int64", 5)) return edm::int64;
      if (is("Int32", 5)) return edm::int32;
      break;
    case 6:
      if (is("String", 6)) return edm::string;
      if (is("Double", 6)) return edm::double_;
      if (is("Binary", 6)) return edm::binary;
      break;
    case 7: if (is("Boolean", 7)) return edm::boolean; break;
    case 8: if (is("DateTime", 8)) return edm::datetime; break;
    default: break;
  }
  return std::nullopt;
}

/// An Edm.Double written as a JSON string: NaN, Infinity, -Infinity (or
/// INF, -INF), or a number in text (both readers accept the same forms).
inline bool double_from_text(std::string_view s, double& d) noexcept {
  if (s == "NaN") d = std::numeric_limits<double>::quiet_NaN();
  else if (s == "Infinity" || s == "INF") d = std::numeric_limits<double>::infinity();
  else if (s == "-Infinity" || s == "-INF") d = -std::numeric_limits<double>::infinity();
  else {
    auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
  }
  return true;
}

/// Converts the string form of a value (how Int64, DateTime, Guid, Binary and
/// special Doubles travel) to `type`; false when `s` is not of that form.
inline bool convert_text(std::string_view s, edm type, value& out) {
  switch (type) {
    case edm::string: overwrite(value_access::string_slot(out), s); return true;
    case edm::int64: {
      std::int64_t v = 0;
      if (!parse_int64(s, v)) return false;
      out = value(v);
      return true;
    }
    case edm::int32: {
      std::int32_t v = 0;
      auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return false;
      out = value(v);
      return true;
    }
    case edm::double_: {
      double d = 0;
      if (!double_from_text(s, d)) return false;
      out = value(d);
      return true;
    }
    case edm::datetime: {
      datetime t;
      if (!parse_iso8601_to(s, t)) return false;
      out = value(t);
      return true;
    }
    case edm::guid: {
      guid g;
      if (!parse_guid(s, g)) return false;
      out = value(g);
      return true;
    }
    case edm::binary: return base64_decode_to(s, value_access::binary_slot(out));
    case edm::boolean:
      if (s == "true") out = value(true);
      else if (s == "false") out = value(false);
      else return false;
      return true;
  }
  return false;
}

/// convert_text, with an error naming the property and the form expected.
inline std::optional<error> convert_string(std::string_view name, std::string_view s, edm type, value& out) {
  if (convert_text(s, type, out)) return std::nullopt;
  const char* what = "unknown type";
  switch (type) {
    case edm::string: break;
    case edm::int64: what = "Edm.Int64 value is not a 64-bit integer"; break;
    case edm::int32: what = "Edm.Int32 value is not a 32-bit integer"; break;
    case edm::double_: what = "Edm.Double value is not a number"; break;
    case edm::datetime: what = "Edm.DateTime value is not an ISO 8601 UTC time"; break;
    case edm::guid: what = "Edm.Guid value is not a GUID"; break;
    case edm::binary: what = "Edm.Binary value is not base64"; break;
    case edm::boolean: what = "Edm.Boolean value is not true/false"; break;
  }
  return bad_json("property '" + std::string(name) + "': " + what);
}

/// Whether a number token has '.', 'e' or 'E' (a plain loop: find_first_of
/// calls memchr once per character).
inline bool has_fraction_or_exponent(std::string_view tok) noexcept {
  for (char c : tok)
    if (c == '.' || c == 'e' || c == 'E') return true;
  return false;
}

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
inline error number_error(std::string_view name, const std::string& what) {
  return bad_json("property '" + std::string(name) + "': " + what);
}

/// Converts a JSON number token to a value. A literal with '.', 'e' or 'E' is
/// a Double (so 2.0 stays Double); an integer in Int32 range is Int32, else
/// Int64, else (beyond Int64, unannotated) a Double. An annotation decides
/// the type when present. With the token's simdjson value at hand (`v`), a
/// Double is read by simdjson (correctly rounded, as from_chars, and faster);
/// a token kept for later (no `v`) goes through from_chars.
inline std::optional<error> number_from_token(std::string_view name, std::string_view tok, std::optional<edm> annotated,
                                              value& out, od::value* v = nullptr) {
  // (Messages are built out of line: inline, they gave this hot function a
  // large frame.)
  auto fail = [name](const char* what) { return number_error(name, what); };
  if (annotated && *annotated != edm::double_ && *annotated != edm::int32 && *annotated != edm::int64)
    return number_error(name, std::string("a JSON number where ") + edm_name(*annotated) + " was annotated");
  const char* first = tok.data();
  const char* last = tok.data() + tok.size();
  const bool is_float = has_fraction_or_exponent(tok);
  auto as_double = [&]() -> std::optional<error> {
    double d = 0;
    if (v) {
      if (v->get_double().get(d)) return fail("bad Double");
    } else if (auto r = std::from_chars(first, last, d); r.ec != std::errc() || r.ptr != last) {
      return fail("bad Double");
    }
    out = value(d);
    return std::nullopt;
  };
  if (annotated == edm::double_ || (is_float && !annotated)) return as_double();
  if (is_float) return fail("a fraction where an integer was annotated");
  std::int64_t i = 0;
  auto r = std::from_chars(first, last, i);
  if (r.ec == std::errc::result_out_of_range && !annotated) return as_double();
  if (r.ec != std::errc() || r.ptr != last) return fail("integer out of range");
  if (annotated == edm::int64) {
    out = value(i);
  } else if (i >= std::numeric_limits<std::int32_t>::min() && i <= std::numeric_limits<std::int32_t>::max()) {
    out = value(static_cast<std::int32_t>(i));
  } else if (annotated == edm::int32) {
    return fail("Edm.Int32 out of range");
  } else {
    out = value(i);
  }
  return std::nullopt;
}

/// The raw text of a number value, without trailing whitespace.
inline std::string_view number_token(od::value& v) {
  std::string_view tok = v.raw_json_token();
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
    tok.remove_suffix(1);
  return tok;
}

/// `key == lit` for a string literal, as an inlined fixed-size compare.
template <std::size_t N>
inline bool name_is(std::string_view key, const char (&lit)[N]) noexcept {
  return key.size() == N - 1 && std::memcmp(key.data(), lit, N - 1) == 0;
}

/// `a == b`, compared inline for short texts (property names): two
/// overlapping word loads instead of a call to memcmp.
inline bool same_text(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8) {
    if (n > 16) return std::memcmp(p, q, n) == 0;
    return load8(p) == load8(q) && load8(p + n - 8) == load8(q + n - 8);
  }
  if (n >= 4) {
    std::uint32_t x, y, z, w;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, q, 4);
    std::memcpy(&z, p + n - 4, 4);
    std::memcpy(&w, q + n - 4, 4);
    return x == y && z == w;
  }
  return n == 0 || (p[0] == q[0] && p[n / 2] == q[n / 2] && p[n - 1] == q[n - 1]);
}

#if defined(__SSE2__)
/// Bits of the 16 bytes at p equal to c. The document is padded (simdjson's
/// contract: SIMDJSON_PADDING readable bytes after the text), so a 16-byte
/// load starting inside it never leaves the buffer; bits past the text are
/// masked off by the callers.
inline unsigned byte_mask16(const char* p, char c) noexcept {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
}
#endif

/// Position of the first '"' in [p, p + n) if no backslash comes before it;
/// npos otherwise (no quote, or an escape to handle the slow way). p must
/// point into a padded document.
inline std::size_t plain_quote(const char* p, std::size_t n) noexcept {
#if defined(__SSE2__)
  // Bytes past n are not masked off: only those before the first quote count,
  // and a quote found at or past n is refused.
  for (std::size_t i = 0; i < n; i += 16) {
    const unsigned q = byte_mask16(p + i, '"'), b = byte_mask16(p + i, '\\');
    if (q) {
      const unsigned first = q & (0u - q);  // lowest quote bit
      const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(q));
      return (b & (first - 1)) || at >= n ? std::string_view::npos : at;
    }
    if (b) return std::string_view::npos;
  }
  return std::string_view::npos;
#else
  const void* q = std::memchr(p, '"', n);
  if (!q) return std::string_view::npos;
  const auto len = static_cast<std::size_t>(static_cast<const char*>(q) - p);
  return std::memchr(p, '\\', len) ? std::string_view::npos : len;
#endif
}

/// Whether [p, p + n) holds a backslash. p must point into a padded document.
inline bool has_backslash(const char* p, std::size_t n) noexcept {
#if defined(__SSE2__)
  std::size_t i = 0;
  // 64 bytes per step with one test (long text values), then 16 at a time.
  const __m128i bs = _mm_set1_epi8('\\');
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), bs);
    const __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16)), bs);
    const __m128i c = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 32)), bs);
    const __m128i d = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 48)), bs);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))) return true;
  }
  for (; i + 16 <= n; i += 16)
    if (byte_mask16(p + i, '\\')) return true;
  return i < n && (byte_mask16(p + i, '\\') & ((1u << (n - i)) - 1)) != 0;
#else
  return std::memchr(p, '\\', n) != nullptr;
#endif
}

/// The key of an object field, read in place when it has no escape sequence
/// (property names never do in practice): a view of the input document
/// (simdjson validated its UTF-8), so no unescaping copy is made. A key with
/// a backslash is unescaped as usual. The view is valid while the document is.
inline simdjson::error_code field_key(od::field& f, std::string_view& key) noexcept {
  const char* start = reinterpret_cast<const char*>(f.key().raw());
  const std::string_view rest = f.value().raw_json_token();  // the value follows the key
  if (rest.data() > start) {
    const std::size_t len = plain_quote(start, static_cast<std::size_t>(rest.data() - start));
    if (len != std::string_view::npos) {
      key = std::string_view(start, len);
      return simdjson::SUCCESS;
    }
  }
  return f.unescaped_key().get(key);
}

/// The text between a string value's quotes, escape sequences left as they
/// are (not looked for); false (nothing read) for any other value. For values
/// whose parsers refuse a backslash (DateTime, Guid, base64, Int64 digits): a
/// parse of this text that succeeds read no escape, and one that fails is
/// tried again on the unescaped text (string_value).
inline bool raw_string_text(od::value& v, std::string_view& out) noexcept {
  std::string_view tok = v.raw_json_token();  // '"' ... '"' and any whitespace up to the next token
  if (tok.size() < 2 || tok.front() != '"') return false;
  while (tok.size() > 1 && tok.back() != '"') tok.remove_suffix(1);
  if (tok.size() < 2) return false;
  out = tok.substr(1, tok.size() - 2);
  return true;
}

/// A string value with no escape sequence, as a view of the input document
/// between its quotes; false (nothing read) for any other value.
inline bool plain_string(od::value& v, std::string_view& out) noexcept {
  return raw_string_text(v, out) && !has_backslash(out.data(), out.size());
}

/// `dst = ` a string value with no escape sequence, copied out of the
/// document in the same pass that looks for backslashes (no separate scan,
/// and no call to std::string's append); `dst`'s storage is reused. False for
/// any other value: `dst` then holds unspecified text, and the caller
/// overwrites it the slow way (string_value).
/// Inlined: called five times per entity by the typed reader, its call
/// overhead was a sixth of its cost.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool copy_plain_string(od::value& v, std::string& dst) {
  std::string_view text;
  if (!raw_string_text(v, text)) return false;
  const std::size_t n = text.size();
  if (dst.size() < n) {
    // Growing: scan, then append (a resize would first zero-fill the growth).
    if (has_backslash(text.data(), n)) return false;
    overwrite(dst, text);
    return true;
  }
  dst.resize(n);  // shrinks: no allocation, no fill
#if defined(__SSE2__)
  const char* p = text.data();
  char* d = &dst[0];
  const __m128i bs = _mm_set1_epi8('\\');
  if (n < 16) {
    // One load (the document is padded: reading past the text stays inside
    // it), bits past the text masked off; the copy in two overlapping moves.
    if (byte_mask16(p, '\\') & ((1u << n) - 1)) return false;
    if (n >= 8) {
      std::memcpy(d, p, 8);
      std::memcpy(d + n - 8, p + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(d, p, 4);
      std::memcpy(d + n - 4, p + n - 4, 4);
    } else if (n > 0) {
      d[0] = p[0];
      d[n / 2] = p[n / 2];
      d[n - 1] = p[n - 1];
    }
    return true;
  }
  // 16 bytes at a time, the last block overlapping the one before it: no
  // write past the string's end.
  __m128i seen = _mm_setzero_si128();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    seen = _mm_or_si128(seen, _mm_cmpeq_epi8(x, bs));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), x);
  }
  if (i < n) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
    seen = _mm_or_si128(seen, _mm_cmpeq_epi8(x, bs));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + n - 16), x);
  }
  return _mm_movemask_epi8(seen) == 0;
#else
  if (std::memchr(text.data(), '\\', n)) return false;
  if (n) std::memcpy(&dst[0], text.data(), n);
  return true;
#endif
}

/// A string value read in place when it has no escape sequence (no
/// unescaping copy; see plain_string). A string with a backslash is unescaped
/// into the parser's buffer as usual; a value that is not a string is an
/// INCORRECT_TYPE error. Valid while the document is.
inline simdjson::error_code string_value(od::value& v, std::string_view& out) noexcept {
  if (plain_string(v, out)) return simdjson::SUCCESS;
  return v.get_string().get(out);
}

/// string_into's other path: a value copy_plain_string refused, unescaped by
/// simdjson (the text is not scanned again) and assigned. Out of line, so that
/// the readers' hot loops keep their inlining.
#if defined(__GNUC__)
__attribute__((noinline))
#endif
inline simdjson::error_code unescaped_string_into(od::value& v, std::string& dst) {
  std::string_view s;
  if (auto e = v.get_string().get(s)) return e;
  overwrite(dst, s);
  return simdjson::SUCCESS;
}

/// `dst = ` a string value: copied while scanned (copy_plain_string), or,
/// when it has an escape, unescaped and assigned. A value that is not a
/// string is an INCORRECT_TYPE error; `dst` then holds unspecified text.
inline simdjson::error_code string_into(od::value& v, std::string& dst) {
  return copy_plain_string(v, dst) ? simdjson::SUCCESS : unescaped_string_into(v, dst);
}

/// Scratch space of read_entity, reused across calls on one thread so that
/// reading an entity allocates only what the entity itself keeps.
struct read_entity_scratch {
  struct note {
    std::string_view name;  ///< points into the parser's string buffer (valid for the document)
    edm type;
  };
  // A value read before its annotation: a String (converted from its text) or
  // a number (converted from its token) once the annotation arrives.
  struct pending {
    std::size_t index;
    std::string_view number;  ///< the raw token for a number (in the input buffer); empty for a string
  };
  std::vector<note> notes;        ///< annotations seen so far
  std::vector<pending> waiting;   ///< unannotated strings and numbers
  std::size_t last_size = 8;      ///< properties of the previous entity: reserved up front
};

inline read_entity_scratch& entity_scratch() { return per_thread<read_entity_scratch>(); }

/// Reads one entity object (any metadata level) into `e`, replacing what it
/// held. The properties `e` already has are overwritten in place (names and
/// string values keep their storage), so reading into a used entity does not
/// allocate for them. Annotations may come before or after their value.
inline std::optional<error> read_entity_into(od::object obj, entity& e, std::size_t& n);
inline std::optional<error> read_entity(od::object obj, entity& e) {
  std::size_t n = 0;
  auto err = read_entity_into(obj, e, n);
  auto& props = entity_access::properties(e);
  props.erase(props.begin() + static_cast<std::ptrdiff_t>(n), props.end());  // n <= size: slots are appended
  return err;
}

/// read_entity's work: `n` counts the properties written so far.
inline std::optional<error> read_entity_into(od::object obj, entity& e, std::size_t& n) {
  auto& props = entity_access::properties(e);
  // The next property slot, named `name`: a used one overwritten, else a new one.
  auto slot = [&](std::string_view name) -> value& {
    if (n == props.size()) props.emplace_back();
    property& p = props[n++];
    // Entities of one page mostly repeat their names in order: an equal name
    // is left as it is (comparing costs less than assigning).
    if (!same_text(p.name, name)) overwrite(p.name, name);
    return p.value;
  };
  e.partition_key.clear();
  e.row_key.clear();
  edm_access::text(e.etag).clear();
  e.timestamp.reset();
  read_entity_scratch& scratch = entity_scratch();
  auto& notes = scratch.notes;
  auto& waiting = scratch.waiting;
  notes.clear();
  waiting.clear();
  // A bit per hash (length, first and last byte) of the names in `waiting`:
  // an annotation whose name's bit is clear has no value waiting (the usual
  // case: the service writes each annotation before its value) and skips
  // the search.
  std::uint64_t waiting_names = 0;
  auto name_bit = [](std::string_view name) {
    const std::size_t h = name.empty() ? 0
                                       : name.size() + static_cast<unsigned char>(name.front()) +
                                             3 * static_cast<std::size_t>(static_cast<unsigned char>(name.back()));
    return std::uint64_t(1) << (h & 63);
  };
  const std::size_t hint = scratch.last_size;
  if (props.size() < hint) e.reserve(hint + hint / 4 + 1);
  for (auto item : obj) {
    if (item.error()) return bad_json("bad property in entity");
    od::field& field = item.value_unsafe();
    // Keys and string values are read in place when they have no escape.
    std::string_view key;
    if (field_key(field, key)) return bad_json("bad property name");
    od::value& v = field.value();
    // Fixed names are matched with inlined fixed-size compares (keys are
    // mostly user property names, which match none of them).
    constexpr std::size_t suffix_len = 11;  // "@odata.type"
    if (key.size() > suffix_len && key.back() == 'e' &&
        std::memcmp(key.data() + key.size() - suffix_len, "@odata.type", suffix_len) == 0) {
      std::string_view tn;
      // (A type name as written first: no known name holds a backslash.)
      std::optional<edm> t;
      if (raw_string_text(v, tn)) t = edm_from_name(tn);
      if (!t && string_value(v, tn)) return bad_json("annotation '" + std::string(key) + "' is not a string");
      std::string_view pname = key.substr(0, key.size() - suffix_len);
      if (name_is(pname, "Timestamp")) continue;
      if (!t) t = edm_from_name(tn);
      if (!t) return bad_json("property '" + std::string(pname) + "': unknown type " + std::string(tn.substr(0, 32)));
      // Convert a value that came before its annotation.
      for (auto it = waiting.begin(); (waiting_names & name_bit(pname)) && it != waiting.end(); ++it) {
        property& p = props[it->index];
        if (p.name != pname) continue;
        value converted;
        if (it->number.empty()) {
          if (auto err = convert_string(pname, *p.value.as_string(), *t, converted)) return err;
        } else if (auto err = number_from_token(pname, it->number, *t, converted)) {
          return err;
        }
        p.value = std::move(converted);
        waiting.erase(it);
        break;
      }
      // Members set one by one: a braced temporary was copied with a wide load
      // that stalled on its narrower stores (store forwarding), in profiles.
      auto& note = notes.emplace_back();
      note.name = pname;
      note.type = *t;
      continue;
    }
    if (key.size() > 6 && key[0] == 'o' && std::memcmp(key.data(), "odata.", 6) == 0) {
      if (name_is(key, "odata.etag")) {
        std::string_view s;
        if (string_value(v, s)) return bad_json("odata.etag is not a string");
        overwrite(edm_access::text(e.etag), s);
      }
      continue;
    }
    od::json_type jt;
    if (v.type().get(jt)) return bad_json("bad value for '" + std::string(key) + "'");
    const int system = name_is(key, "PartitionKey") ? 1 : name_is(key, "RowKey") ? 2 : name_is(key, "Timestamp") ? 3 : 0;
    if (system == 3) {
      std::string_view s;
      if (jt != od::json_type::string || string_value(v, s)) return bad_json(std::string(key) + " is not a string");
      if (datetime t; parse_iso8601_to(s, t)) e.timestamp = t;
      continue;
    }
    if (system) {
      if (string_into(v, system == 1 ? e.partition_key : e.row_key)) return bad_json(std::string(key) + " is not a string");
      continue;
    }
    std::optional<edm> annotated;
    for (auto& note : notes)
      if (same_text(note.name, key)) annotated = note.type;
    switch (jt) {
      case od::json_type::string: {
        std::string_view s;
        value& out = slot(key);
        if (!annotated || *annotated == edm::string) {
          // Copied as it is scanned for escapes; one with escapes unescaped.
          if (string_into(v, value_access::string_slot(out))) return bad_json("bad string for '" + std::string(key) + "'");
          if (!annotated) {
            waiting.emplace_back().index = n - 1;
            waiting_names |= name_bit(key);
          }
        } else if (!raw_string_text(v, s) || !convert_text(s, *annotated, out)) {
          // Text of any other type as written first: none of its forms holds
          // a backslash, so only text with escapes fails here and is read
          // again unescaped.
          if (string_value(v, s)) return bad_json("bad string for '" + std::string(key) + "'");
          if (auto err = convert_string(key, s, *annotated, out)) return err;
        }
        break;
      }
      case od::json_type::number: {
        std::string_view tok = number_token(v);
        if (auto err = number_from_token(key, tok, annotated, slot(key), &v)) return err;
        if (!annotated) {
          auto& w = waiting.emplace_back();
          w.index = n - 1;
          w.number = tok;
          waiting_names |= name_bit(key);
        }
        break;
      }
      case od::json_type::boolean: {
        bool b = false;
        if (v.get_bool().get(b)) return bad_json("bad boolean for '" + std::string(key) + "'");
        if (annotated && *annotated != edm::boolean)
          return bad_json("property '" + std::string(key) + "': a JSON boolean where " + edm_name(*annotated) +
                          " was annotated");
        slot(key) = value(b);
        break;
      }
      case od::json_type::null: continue;  // absent
      default: return bad_json("property '" + std::string(key) + "' is an object or array");
    }
  }
  scratch.last_size = n;
  return std::nullopt;
}

/// Parses a single-entity response body.
inline result<entity> parse_entity(std::string& body) {
  od::parser& parser = thread_parser();
  od::document doc;
  if (parser.iterate(padded_view(body)).get(doc)) return bad_json("entity response is not JSON");
  od::object obj;
  if (doc.get_object().get(obj)) return bad_json("entity response is not a JSON object");
  entity e;
  if (auto err = read_entity(obj, e)) return std::move(*err);
  return e;
}

/// Parses {"value":[{"TableName":"..."}, ...]} into names.
inline std::optional<error> parse_table_names(std::string& body, std::vector<std::string>& names) {
  od::parser& parser = thread_parser();
  od::document doc;
  if (parser.iterate(padded_view(body)).get(doc)) return bad_json("table list is not JSON");
  od::array arr;
  if (doc["value"].get_array().get(arr)) return bad_json("table list has no 'value' array");
  for (auto item : arr) {
    od::object o;
    if (item.get_object().get(o)) return bad_json("table list item is not an object");
    std::string_view name;
    if (o["TableName"].get_string().get(name)) return bad_json("table list item has no TableName");
    names.emplace_back(name);
  }
  return std::nullopt;
}

/// Extracts (code, message) from an error body: JSON odata.error, XML
/// <Error><Code/><Message/>, or nothing for an empty/unknown body. The
/// message is cut before the "\nRequestId:" trailer the service appends.
inline void parse_error_body(std::string& body, std::string& code, std::string& message) {
  auto trim_trailer = [](std::string_view m) {
    std::size_t p = m.find("\nRequestId:");
    if (p != std::string_view::npos) m = m.substr(0, p);
    while (!m.empty() && (m.back() == '\n' || m.back() == '\r' || m.back() == ' ')) m.remove_suffix(1);
    return std::string(m.substr(0, 1024));
  };
  std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return;
  if (body[first] == '{') {
    od::parser& parser = thread_parser();
    od::document doc;
    if (parser.iterate(padded_view(body)).get(doc)) return;
    od::object err;
    if (doc["odata.error"].get_object().get(err)) return;
    for (auto f : err) {
      std::string_view k;
      if (f.unescaped_key().get(k)) return;
      if (k == "code") {
        std::string_view c;
        if (!f.value().get_string().get(c)) code.assign(c.substr(0, 128));
      } else if (k == "message") {
        od::value mv;
        if (f.value().get(mv)) return;
        od::json_type t;
        if (mv.type().get(t)) return;
        std::string_view m;
        if (t == od::json_type::string) {
          if (!mv.get_string().get(m)) message = trim_trailer(m);
        } else if (t == od::json_type::object) {
          od::object mo;
          if (!mv.get_object().get(mo) && !mo["value"].get_string().get(m)) message = trim_trailer(m);
        }
      }
    }
    return;
  }
  if (body[first] == '<') {
    auto tag = [&](std::string_view name) -> std::string {
      // "<name>" or "<name attr=...>"
      std::string open = "<" + std::string(name), close = "</" + std::string(name) + ">";
      std::size_t a = 0;
      for (;; a += open.size()) {
        a = body.find(open, a);
        if (a == std::string::npos) return {};
        const char next = a + open.size() < body.size() ? body[a + open.size()] : '\0';
        if (next == '>' || next == ' ') break;
      }
      a = body.find('>', a);
      if (a == std::string::npos) return {};
      a += 1;
      std::size_t b = body.find(close, a);
      if (b == std::string::npos) return {};
      return std::string(std::string_view(body).substr(a, b - a));
    };
    // Storage's <Error><Code/><Message/>, or OData's <m:error><m:code/><m:message xml:lang="..."/>.
    std::string c = tag("Code");
    if (c.empty()) c = tag("m:code");
    code = c.substr(0, 128);
    std::string m = tag("Message");
    if (m.empty()) m = tag("m:message");
    message = trim_trailer(m);
  }
}

}  // namespace detail
AZTABLES_NAMESPACE_END
