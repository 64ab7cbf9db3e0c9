// SPDX-License-Identifier: MIT
// Internal: base64, RFC 1123 / ISO 8601 dates with 100 ns ticks, number
// formatting. Std-only.
#pragma once

#include <aztables/detail/bytes.hpp>
#include <aztables/detail/simd.hpp>
#include <aztables/entity.hpp>
#include <aztables/detail/per_thread.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline constexpr char base64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

inline void base64_encode_to(std::string& out, const std::uint8_t* p, std::size_t n) {
  std::size_t start = out.size();
  out.resize(start + ((n + 2) / 3) * 4);
  char* o = &out[start];
  std::size_t i = 0;
  // Six bytes to eight characters per step, written with one 8-byte store
  // (the step reads 8 bytes, so it stops 2 short of the end).
  for (; i + 8 <= n; i += 6, o += 8) {
    const std::uint64_t w = load8_be(reinterpret_cast<const char*>(p + i));  // byte i on top
    std::uint64_t chars = 0;
    for (int k = 0; k < 8; ++k)
      chars |= static_cast<std::uint64_t>(static_cast<unsigned char>(base64_chars[(w >> (58 - 6 * k)) & 63])) << (8 * k);
    store8(o, chars);
  }
  for (; i + 3 <= n; i += 3) {
    std::uint32_t v = (std::uint32_t(p[i]) << 16) | (std::uint32_t(p[i + 1]) << 8) | p[i + 2];
    *o++ = base64_chars[(v >> 18) & 63];
    *o++ = base64_chars[(v >> 12) & 63];
    *o++ = base64_chars[(v >> 6) & 63];
    *o++ = base64_chars[v & 63];
  }
  if (i < n) {
    std::uint32_t v = std::uint32_t(p[i]) << 16;
    if (i + 1 < n) v |= std::uint32_t(p[i + 1]) << 8;
    *o++ = base64_chars[(v >> 18) & 63];
    *o++ = base64_chars[(v >> 12) & 63];
    *o++ = (i + 1 < n) ? base64_chars[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
}

inline std::string base64_encode(std::string_view s) {
  std::string out;
  base64_encode_to(out, reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  return out;
}

inline int base64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/// Parses all of `s` as a decimal 64-bit integer (optional '-', digits only,
/// no '+', no spaces), as std::from_chars would but with one loop and no
/// locale or base handling. False when `s` is not exactly that or overflows.
inline bool parse_int64(std::string_view s, std::int64_t& out) noexcept {
  std::size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  i += neg;
  if (i == s.size()) return false;
  while (i + 1 < s.size() && s[i] == '0') ++i;  // leading zeros
  if (s.size() - i > 19) return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(s[i])) - '0';
    if (d > 9) return false;
    v = v * 10 + d;  // 19 digits cannot overflow 64 unsigned bits
  }
  const std::uint64_t limit = neg ? std::uint64_t(1) << 63 : (std::uint64_t(1) << 63) - 1;
  if (v > limit) return false;
  out = neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return true;
}

/// base64 alphabet value of each byte; 64 for '=', 255 for anything else.
struct base64_table {
  std::uint8_t v[256];
  constexpr base64_table() : v() {
    for (int i = 0; i < 256; ++i) v[i] = 255;
    for (int i = 0; i < 64; ++i) v[static_cast<unsigned char>(base64_chars[i])] = static_cast<std::uint8_t>(i);
    v[static_cast<unsigned char>('=')] = 64;
  }
};
inline constexpr base64_table base64_decode_table{};

/// Per position in a group of four: the character's 6 bits already shifted
/// into a 24-bit group, or bit 24 for a character that is not in the
/// alphabet ('=' included). A group is four look-ups and three ORs.
struct base64_group_tables {
  std::uint32_t d[4][256];
  constexpr base64_group_tables() : d() {
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 256; ++i) {
        const std::uint8_t v = base64_table().v[i];
        d[k][i] = v < 64 ? static_cast<std::uint32_t>(v) << (18 - 6 * k) : 0x01000000u;
      }
  }
};
inline constexpr base64_group_tables base64_group_decode{};

#if defined(AZTABLES_SSSE3)
/// Decodes whole blocks of 16 alphabet characters (four groups) from `in`
/// into 12 bytes each at `o`, for at most `groups` groups; returns how many
/// groups it decoded. It stops before a block holding any character outside
/// the alphabet ('=' included): the scalar loop then reads that block and
/// reports it. The method is Muła and Lemire's ("Faster Base64 Encoding and
/// Decoding Using AVX2 Instructions", 2018), on 16 bytes:
/// - a byte is in the alphabet when the table entries of its low and its
///   high nibble share no bit;
/// - its 6-bit value is the byte plus an offset chosen by its high nibble
///   ('/' gets its own, as the only alphabet byte of its nibble range);
/// - two multiply-adds pack four 6-bit values into 24 bits, and a shuffle
///   puts each group's three bytes in order.
/// Writes 12 bytes per block and nothing past them.
AZTABLES_SSSE3_TARGET inline std::size_t base64_decode_blocks_ssse3(const unsigned char* in, std::size_t groups,
                                                                     std::uint8_t* o) noexcept {
  const __m128i lut_lo = _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B,
                                       0x1B, 0x1B, 0x1A);
  const __m128i lut_hi = _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10,
                                       0x10, 0x10, 0x10);
  const __m128i lut_roll = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i mask_2f = _mm_set1_epi8(0x2f);
  const __m128i order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  std::size_t g = 0;
  for (; g + 4 <= groups; g += 4, in += 16, o += 12) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    // (Masking with 0x2f keeps the nibble and clears bit 7, which would
    // zero a shuffle's result; bit 5 is ignored by the shuffle.)
    const __m128i hi_nibbles = _mm_and_si128(_mm_srli_epi32(x, 4), mask_2f);
    const __m128i lo_nibbles = _mm_and_si128(x, mask_2f);
    const __m128i lo = _mm_shuffle_epi8(lut_lo, lo_nibbles);
    const __m128i hi = _mm_shuffle_epi8(lut_hi, hi_nibbles);
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(lo, hi), _mm_setzero_si128())) != 0xFFFF) break;
    const __m128i eq_2f = _mm_cmpeq_epi8(x, mask_2f);
    const __m128i roll = _mm_shuffle_epi8(lut_roll, _mm_add_epi8(eq_2f, hi_nibbles));
    const __m128i values = _mm_add_epi8(x, roll);
    // [a b c d] -> (a << 6 | b, c << 6 | d) -> (a << 18 | b << 12 | c << 6 | d) per 32 bits.
    const __m128i pairs = _mm_maddubs_epi16(values, _mm_set1_epi32(0x01400140));
    const __m128i words = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00011000));
    const __m128i bytes = _mm_shuffle_epi8(words, order);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o), bytes);
    const auto tail = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(bytes, 8)));
    std::memcpy(o + 8, &tail, 4);
  }
  return g;
}

#endif

/// Strict standard base64 (padding required when the length is not a
/// multiple of 4 is tolerated only as canonical '=' padding). On failure
/// `out` is left empty.
inline bool base64_decode_to(std::string_view s, binary& out) {
  if (s.size() % 4 != 0 || s.empty()) {
    out.clear();
    return s.empty();
  }
  const auto* in = reinterpret_cast<const unsigned char*>(s.data());
  const std::uint8_t* t = base64_decode_table.v;
  // Every group but the last: four alphabet characters, no padding.
  const std::size_t full = s.size() / 4 - 1;
  // (resize, not clear + resize: a reused vector of the same size is not
  // zero-filled first.)
  out.resize(full * 3 + 3);
  std::uint8_t* o = out.data();
  const auto& g4 = base64_group_decode.d;
  std::uint32_t bad = 0;
  std::size_t g = 0;
#if defined(AZTABLES_SSSE3)
  if (full >= 4 && ssse3_available()) {
    g = base64_decode_blocks_ssse3(in, full, o);
    in += 4 * g;
    o += 3 * g;
  }
#endif
  // Two groups per step, their six bytes written as one 8-byte store (the two
  // extra bytes land inside the buffer and are overwritten by what follows:
  // the last group's three bytes are always written after).
  for (; g + 2 <= full; g += 2, in += 8, o += 6) {
    const std::uint32_t v1 = g4[0][in[0]] | g4[1][in[1]] | g4[2][in[2]] | g4[3][in[3]];
    const std::uint32_t v2 = g4[0][in[4]] | g4[1][in[5]] | g4[2][in[6]] | g4[3][in[7]];
    bad |= v1 | v2;
    // The six bytes as a 48-bit number at the top of the word, stored big-endian.
    const std::uint64_t w = ((static_cast<std::uint64_t>(v1 & 0xFFFFFFu) << 24) | (v2 & 0xFFFFFFu)) << 16;
    store8_be(o, w);
  }
  for (; g < full; ++g, in += 4, o += 3) {
    const std::uint32_t v = g4[0][in[0]] | g4[1][in[1]] | g4[2][in[2]] | g4[3][in[3]];
    bad |= v;
    o[0] = static_cast<std::uint8_t>(v >> 16);
    o[1] = static_cast<std::uint8_t>(v >> 8);
    o[2] = static_cast<std::uint8_t>(v);
  }
  // '=' or a character outside the alphabet before the last group
  if (bad & 0x01000000u) {
    out.clear();
    return false;
  }
  // The last group: "xxxx", "xxx=" or "xx==".
  const std::uint32_t a = t[in[0]], b = t[in[1]], c = t[in[2]], d = t[in[3]];
  if (a >= 64 || b >= 64 || c == 255 || d == 255 || (c == 64 && d != 64)) {
    out.clear();
    return false;
  }
  std::uint32_t v = (a << 18) | (b << 12);
  std::size_t n = 1;
  if (c != 64) {
    v |= c << 6;
    n = 2;
    if (d != 64) {
      v |= d;
      n = 3;
    }
  }
  o[0] = static_cast<std::uint8_t>(v >> 16);
  o[1] = static_cast<std::uint8_t>(v >> 8);
  o[2] = static_cast<std::uint8_t>(v);
  out.resize(full * 3 + n);
  return true;
}

#if defined(AZTABLES_SSSE3)
/// The 32 digits of the 36-character GUID form at `p` (dashes already
/// checked) into the 16 bytes at `out`, 16 digits per register: two shuffles
/// gather them from around the dashes, compares check them, and a
/// multiply-add and a pack join the digit pairs. False (`out` unchanged) if
/// any is not hex.
AZTABLES_SSSE3_TARGET inline bool guid_hex32_ssse3(const char* p, std::uint8_t* out) noexcept {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));       // text[0, 16)
  const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));  // text[16, 32)
  const __m128i z = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 20));  // text[20, 36)
  // Digits 0-15 are text 0-7, 9-12, 14-17; digits 16-31 are text 19-22, 24-35.
  const __m128i lo = _mm_or_si128(_mm_shuffle_epi8(x, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, -1, -1)),
                                  _mm_shuffle_epi8(y, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                    -1, -1, 0, 1)));
  const __m128i hi = _mm_or_si128(_mm_shuffle_epi8(y, _mm_setr_epi8(3, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                    -1, -1, -1, -1)),
                                  _mm_shuffle_epi8(z, _mm_setr_epi8(-1, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
  int valid = 0xFFFF;
  // Each digit's value: '0'-'9' less '0' is at most 9; 'a'-'f' and 'A'-'F'
  // (bit 5 set) less 'a' is at most 5 (unsigned compares through min).
  auto nibbles = [&valid](__m128i c) {  // (SSE2 only)
    const __m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
    const __m128i a = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    const __m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    const __m128i is_a = _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a);
    valid &= _mm_movemask_epi8(_mm_or_si128(is_d, is_a));
    return _mm_or_si128(_mm_and_si128(is_d, d), _mm_and_si128(is_a, _mm_add_epi8(a, _mm_set1_epi8(10))));
  };
  // Pairs of digits (first one high) into bytes: 16 * first + second per 16 bits, packed.
  const __m128i weights = _mm_set1_epi16(0x0110);
  const __m128i bytes = _mm_packus_epi16(_mm_maddubs_epi16(nibbles(lo), weights), _mm_maddubs_epi16(nibbles(hi), weights));
  if (valid != 0xFFFF) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
  return true;
}
#endif

/// GUID text into `g` exactly as guid::parse reads it (left unchanged on
/// failure), 16 digits per register where the CPU has SSSE3. The readers'
/// path; the public header keeps the portable one, so a TU that only maps
/// structs does not compile the intrinsics headers.
inline bool parse_guid(std::string_view s, guid& g) noexcept {
#if defined(AZTABLES_SSSE3)
  if (ssse3_available()) {
    const char* p = edm_access::guid_digits(s);
    return p && guid_hex32_ssse3(p, edm_access::bytes(g));
  }
#endif
  return edm_access::parse_guid(s, g);
}

// --- civil dates (Howard Hinnant's algorithms) ---
inline std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct civil {
  std::int64_t y;
  unsigned m, d;
};
inline civil civil_from_days(std::int64_t z) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

inline void put2(char* p, unsigned v) noexcept {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// "2026-01-02T03:04:05.1234567Z": always 7 fractional digits (years 0001-9999).
/// Writes the 28 characters of format_iso8601_to at `buf`; returns buf + 28.
inline char* format_iso8601_chars(char* buf, datetime t) noexcept {
  const std::int64_t tk = t.time_since_epoch().count();
  const std::int64_t per_day = 864000000000LL;
  const std::int64_t days = floor_div(tk, per_day);
  std::int64_t rem = tk - days * per_day;
  civil c = civil_from_days(days);
  const unsigned frac = static_cast<unsigned>(rem % 10000000);
  std::int64_t secs = rem / 10000000;
  std::int64_t y = c.y;
  if (y < 0) y = 0;
  if (y > 9999) y = 9999;
  buf[0] = static_cast<char>('0' + (y / 1000) % 10);
  buf[1] = static_cast<char>('0' + (y / 100) % 10);
  buf[2] = static_cast<char>('0' + (y / 10) % 10);
  buf[3] = static_cast<char>('0' + y % 10);
  buf[4] = '-';
  put2(buf + 5, c.m);
  buf[7] = '-';
  put2(buf + 8, c.d);
  buf[10] = 'T';
  put2(buf + 11, static_cast<unsigned>(secs / 3600));
  buf[13] = ':';
  put2(buf + 14, static_cast<unsigned>((secs / 60) % 60));
  buf[16] = ':';
  put2(buf + 17, static_cast<unsigned>(secs % 60));
  buf[19] = '.';
  unsigned f = frac;
  for (int i = 6; i >= 0; --i) {
    buf[20 + i] = static_cast<char>('0' + f % 10);
    f /= 10;
  }
  buf[27] = 'Z';
  return buf + 28;
}

inline void format_iso8601_to(std::string& out, datetime t) {
  char buf[28];
  format_iso8601_chars(buf, t);
  out.append(buf, 28);
}

inline std::string format_iso8601(datetime t) {
  std::string s;
  format_iso8601_to(s, t);
  return s;
}

/// Checks a word of 8 text bytes: the bytes selected by `digit_mask` (0xff
/// each) must be ASCII digits, the others must equal those of `fixed`. On
/// success `values` holds each digit's value in its byte.
inline bool swar_digits(std::uint64_t w, std::uint64_t digit_mask, std::uint64_t fixed, std::uint64_t& values) noexcept {
  constexpr std::uint64_t zeros = 0x3030303030303030ULL, high = 0xF0F0F0F0F0F0F0F0ULL, six = 0x0606060606060606ULL;
  if ((w & ~digit_mask) != fixed) return false;
  const std::uint64_t t = (w & digit_mask) | (zeros & ~digit_mask);  // separators read as '0'
  // Every byte 0x30-0x39: high nibble 3, and still 3 after adding 6.
  if ((t & high) != zeros || ((t + six) & high) != zeros) return false;
  values = t - zeros;
  return true;
}

/// Parses "YYYY-MM-DDThh:mm:ss[.f{1,7}](Z|+hh:mm|-hh:mm)" into `out`; false
/// (out unchanged) for anything else. More than 7 fractional digits are
/// rejected rather than silently rounded. (The hot readers use this form: a
/// returned std::optional was built with a byte store read back as a word,
/// a store-forwarding stall on every call.)
#if defined(__GNUC__)
// (hot: GCC's static profile otherwise judged the function rarely run and
// optimised it for size, with real divide instructions for /400, /100, /5.)
__attribute__((hot))
#endif
inline bool parse_iso8601_to(std::string_view s, datetime& out) noexcept {
  auto num = [&](std::size_t pos, std::size_t len, unsigned& v) {
    if (pos + len > s.size()) return false;
    v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    return true;
  };
  // "YYYY-MM-" and "hh:mm:ss" are read as two 8-byte words: separators
  // compared at once, digits checked and converted in parallel (SWAR).
  if (s.size() < 20) return false;
  std::uint64_t date_digits, time_digits;
  if (!swar_digits(load8(s.data()), 0x00FFFF00FFFFFFFFULL, 0x2D00002D00000000ULL, date_digits) ||
      !swar_digits(load8(s.data() + 11), 0xFFFF00FFFF00FFFFULL, 0x00003A00003A0000ULL, time_digits) ||
      (s[10] != 'T' && s[10] != 't'))
    return false;
  unsigned d;
  if (!num(8, 2, d)) return false;
  // Each byte i of `pairs(w)` is 10 * digit i + digit i + 1: two-digit
  // numbers for all pairs at once.
  auto pairs = [](std::uint64_t w) { return w * 10 + (w >> 8); };
  auto at = [](std::uint64_t w, int i) { return static_cast<unsigned>((w >> (8 * i)) & 0xff); };
  const std::uint64_t dp = pairs(date_digits), tp = pairs(time_digits);
  const unsigned y = at(dp, 0) * 100 + at(dp, 2);
  const unsigned mo = at(dp, 5);
  const unsigned h = at(tp, 0);
  const unsigned mi = at(tp, 3);
  const unsigned se = at(tp, 6);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  static constexpr unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d > mdays[mo - 1]) return false;
  if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return false;
  std::size_t i = 19;
  std::int64_t frac = 0;
  std::uint64_t frac_digits;
  if (s.size() == 28 && s[19] == '.' &&
      swar_digits(load8(s.data() + 20), 0x00FFFFFFFFFFFFFFULL, 0x5A00000000000000ULL, frac_digits)) {
    // The service's own form: seven fractional digits, then the 'Z' read below.
    // Seven digits and the 'Z' (read as 0) are an eight-digit number, ten
    // times the fraction, combined in three steps (pairs, fours, eight).
    std::uint64_t v = pairs(frac_digits);
    v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
         (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
        32;
    frac = static_cast<std::int64_t>(v / 10);
    i = 27;
  } else if (i < s.size() && s[i] == '.') {
    ++i;
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (++digits > 7) return false;
      frac = frac * 10 + (s[i] - '0');
      ++i;
    }
    if (digits == 0) return false;
    static constexpr std::int64_t scale[] = {1, 1000000, 100000, 10000, 1000, 100, 10, 1};
    frac *= scale[digits];
  }
  std::int64_t offset_s = 0;
  if (i >= s.size()) return false;
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
  } else if (s[i] == '+' || s[i] == '-') {
    unsigned oh, om;
    if (!num(i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !num(i + 4, 2, om) || oh > 23 || om > 59)
      return false;
    offset_s = (static_cast<std::int64_t>(oh) * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  std::int64_t days = days_from_civil(y, mo, d);
  std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - offset_s;
  out = datetime(ticks(secs * 10000000 + frac));
  return true;
}

inline std::optional<datetime> parse_iso8601(std::string_view s) noexcept {
  datetime t;
  if (!parse_iso8601_to(s, t)) return std::nullopt;
  return t;
}

/// "Sat, 21 Nov 2026 13:26:15 GMT" (for x-ms-date).
inline std::string format_rfc1123(std::chrono::system_clock::time_point tp) {
  static constexpr const char* wd[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
  static constexpr const char* mn[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::int64_t secs = std::chrono::duration_cast<std::chrono::seconds>(tp.time_since_epoch()).count();
  const std::int64_t days = floor_div(secs, 86400);
  const std::int64_t rem = secs - days * 86400;
  civil c = civil_from_days(days);
  char buf[32];
  std::string out;
  out.reserve(29);
  out += wd[((days % 7) + 7) % 7];
  out += ", ";
  put2(buf, c.d);
  out.append(buf, 2);
  out += ' ';
  out += mn[c.m - 1];
  out += ' ';
  out += std::to_string(c.y);
  out += ' ';
  put2(buf, static_cast<unsigned>(rem / 3600));
  buf[2] = ':';
  put2(buf + 3, static_cast<unsigned>((rem / 60) % 60));
  buf[5] = ':';
  put2(buf + 6, static_cast<unsigned>(rem % 60));
  out.append(buf, 8);
  out += " GMT";
  return out;
}

/// format_rfc1123, remembered per thread for the current second: every
/// request made in one second carries the same x-ms-date.
inline const std::string& format_rfc1123_cached(std::chrono::system_clock::time_point tp) {
  struct cache {
    std::int64_t second = std::numeric_limits<std::int64_t>::min();
    std::string text;
  };
  cache& c = per_thread<cache>();
  const std::int64_t s = std::chrono::floor<std::chrono::seconds>(tp.time_since_epoch()).count();
  if (s != c.second) {
    c.text = format_rfc1123(tp);
    c.second = s;
  }
  return c.text;
}

/// Parses an RFC 1123 date ("Sun, 06 Nov 1994 08:49:37 GMT").
inline std::optional<std::chrono::system_clock::time_point> parse_rfc1123(std::string_view s) noexcept {
  static constexpr const char* mn[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
      s[19] != ':' || s[22] != ':' || s.substr(25) != " GMT")
    return std::nullopt;
  auto n = [&](std::size_t pos, std::size_t len, unsigned& v) {
    v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    return true;
  };
  unsigned d, y, h, mi, se, mo = 0;
  for (unsigned i = 0; i < 12; ++i)
    if (s.substr(8, 3) == mn[i]) mo = i + 1;
  if (!mo || !n(5, 2, d) || !n(12, 4, y) || !n(17, 2, h) || !n(20, 2, mi) || !n(23, 2, se)) return std::nullopt;
  if (d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  std::int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  // system_clock may count nanoseconds (years 1678-2262 only): refuse dates
  // it cannot hold rather than overflow (found by fuzz_retry_after).
  constexpr std::int64_t limit =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::duration::max()).count() - 1;
  if (secs > limit || secs < -limit) return std::nullopt;
  return std::chrono::system_clock::time_point(std::chrono::seconds(secs));
}

/// Shortest text that reads back to the same double (std::to_chars).
inline void append_double(std::string& out, double d) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, r.ptr);
}

template <class I>
inline void append_int(std::string& out, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace detail
AZTABLES_NAMESPACE_END
