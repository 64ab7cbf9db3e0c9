// SPDX-License-Identifier: MIT
// Internal: keeping secrets (account key, SharedKey signatures, SAS sig,
// bearer tokens) out of every text the SDK shows: error messages, service
// codes, request ids, exception text and what the retry hook sees. Std-only.
//
// Two layers:
//  - redact(): pattern-based, for text of unknown origin: the value after
//    "sig=" (any case, also "sig%3D"), "Bearer ", "token=", "secret=", the
//    signature after "SharedKey[Lite] account:", and JSON Web Tokens.
//  - scrub(): removes exact known secrets (and their percent-encoded forms),
//    for text that might echo what was sent, whatever the shape.
#pragma once

#include <aztables/config.hpp>
#include <aztables/detail/url.hpp>
#include <aztables/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::string_view redacted_marker = "REDACTED";

inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

/// Case-insensitive find of an ASCII `needle`.
inline std::size_t ifind(std::string_view hay, std::string_view needle, std::size_t from = 0) noexcept {
  if (needle.empty() || hay.size() < needle.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= hay.size(); ++i) {
    std::size_t k = 0;
    while (k < needle.size() && ascii_lower(hay[i + k]) == ascii_lower(needle[k])) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

/// Replaces what follows each `marker` (case-insensitive) up to a delimiter
/// with REDACTED.
inline void redact_after(std::string& s, std::string_view marker, std::string_view delimiters) {
  std::size_t p = 0;
  while ((p = ifind(s, marker, p)) != std::string::npos) {
    std::size_t a = p + marker.size();
    std::size_t b = s.find_first_of(delimiters, a);
    if (b == std::string::npos) b = s.size();
    if (b - a == redacted_marker.size() && std::string_view(s).substr(a, b - a) == redacted_marker) {
      p = b;
      continue;
    }
    s.replace(a, b - a, redacted_marker.data(), redacted_marker.size());
    p = a + redacted_marker.size();
  }
}

/// Replaces JSON Web Tokens ("eyJ" + base64url, with dots: what Entra ID
/// access tokens look like) with REDACTED, wherever they appear.
inline void redact_jwt(std::string& s) {
  auto b64url = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  };
  std::size_t p = 0;
  while ((p = s.find("eyJ", p)) != std::string::npos) {
    std::size_t e = p;
    bool dot = false;
    for (; e < s.size() && b64url(s[e]); ++e)
      if (s[e] == '.') dot = true;
    if (dot && e - p >= 16) {
      s.replace(p, e - p, redacted_marker.data(), redacted_marker.size());
      p += redacted_marker.size();
    } else {
      p = e;
    }
  }
}

/// Removes anything that looks like a secret from text that may be shown:
/// `sig=` values, bearer tokens, SharedKey signatures, `token=` / `secret=`
/// values and JSON Web Tokens.
inline std::string redact(std::string s) {
  static constexpr std::string_view query_delims = "& \t\r\n\"'<>;,)";
  redact_after(s, "sig=", query_delims);
  redact_after(s, "sig%3d", query_delims);
  redact_after(s, "bearer ", " \t\r\n\"'<>;,)");
  redact_after(s, "token=", query_delims);   // access_token=, refresh_token=, token=
  redact_after(s, "secret=", query_delims);  // client_secret=
  redact_jwt(s);
  // "SharedKey account:signature" and "SharedKeyLite account:signature"
  std::size_t p = 0;
  while ((p = ifind(s, "sharedkey", p)) != std::string::npos) {
    std::size_t q = p + 9;
    if (ifind(std::string_view(s).substr(q, 4), "lite") == 0) q += 4;
    if (q < s.size() && s[q] == ' ') {
      std::size_t colon = s.find(':', q + 1);
      std::size_t stop = s.find_first_of(" \t\r\n\"'<>", q + 1);
      if (colon != std::string::npos && (stop == std::string::npos || colon < stop)) {
        std::size_t a = colon + 1, b = s.find_first_of(" \t\r\n\"'<>,;)", a);
        if (b == std::string::npos) b = s.size();
        s.replace(a, b - a, redacted_marker.data(), redacted_marker.size());
        q = a + redacted_marker.size();
      }
    }
    p = q;
  }
  return s;
}

/// Removes every occurrence of each known secret (as is, percent-encoded,
/// and with '+' / '/' / '=' in the lower-case %xx form) from `s`. Secrets
/// shorter than 8 characters are ignored (they would match ordinary text).
inline void scrub(std::string& s, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < 8) continue;
    std::string encoded = percent_encode(secret);
    std::string encoded_lower = encoded;
    for (std::size_t i = 0; i + 2 < encoded_lower.size(); ++i)
      if (encoded_lower[i] == '%') {
        encoded_lower[i + 1] = ascii_lower(encoded_lower[i + 1]);
        encoded_lower[i + 2] = ascii_lower(encoded_lower[i + 2]);
      }
    for (const std::string* form : {&secret, static_cast<const std::string*>(&encoded), static_cast<const std::string*>(&encoded_lower)}) {
      std::size_t p = 0;
      while ((p = s.find(*form, p)) != std::string::npos) {
        s.replace(p, form->size(), redacted_marker.data(), redacted_marker.size());
        p += redacted_marker.size();
      }
    }
  }
}

/// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
inline void cap_text(std::string& s, std::size_t n) {
  if (s.size() <= n) return;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  s.resize(n);
}

/// Applies both layers to every text field of an error, and caps their
/// length (a hostile server must not make error text unbounded).
inline void scrub_error(error& e, const std::vector<std::string>& secrets) {
  for (std::string* field : {&e.message, &e.service_code, &e.request_id}) {
    scrub(*field, secrets);
    *field = redact(std::move(*field));
  }
  cap_text(e.message, 4096);
  cap_text(e.service_code, 128);
  cap_text(e.request_id, 128);
}

}  // namespace detail
AZTABLES_NAMESPACE_END
