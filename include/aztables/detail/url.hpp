// SPDX-License-Identifier: MIT
// Internal: endpoint parsing, percent-encoding, OData key escaping. Std-only.
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>

#include <optional>
#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline bool is_unreserved(unsigned char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
inline void percent_encode_to(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (is_unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
}
inline std::string percent_encode(std::string_view s) {
  std::string out;
  percent_encode_to(out, s);
  return out;
}

inline int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Decodes %XX (and '+' as space when `plus_is_space`). Invalid escapes are kept.
inline std::string percent_decode(std::string_view s, bool plus_is_space = false) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int a = hex_value(s[i + 1]), b = hex_value(s[i + 2]);
      if (a >= 0 && b >= 0) {
        out += static_cast<char>(a * 16 + b);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && s[i] == '+') ? ' ' : s[i];
  }
  return out;
}

/// A key as it appears inside `(PartitionKey='...',RowKey='...')` in a URL
/// path: single quotes doubled (OData), then percent-encoded.
inline void append_key_literal(std::string& out, std::string_view key) {
  // One pass, no temporary: a quote becomes its doubled, encoded form.
  std::size_t from = 0;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '\'') continue;
    percent_encode_to(out, key.substr(from, i - from));
    out += "%27%27";
    from = i + 1;
  }
  percent_encode_to(out, key.substr(from));
}

/// "table(PartitionKey='p',RowKey='r')" with both keys escaped.
inline std::string entity_path(std::string_view table, std::string_view pk, std::string_view rk) {
  std::string p;
  p.reserve(table.size() + pk.size() + rk.size() + 32);
  p.append(table.data(), table.size());
  p += "(PartitionKey='";
  append_key_literal(p, pk);
  p += "',RowKey='";
  append_key_literal(p, rk);
  p += "')";
  return p;
}

/// A parsed endpoint: scheme://host[:port][/base_path]
struct endpoint {
  std::string scheme;     ///< "http" or "https"
  std::string host;       ///< without brackets for IPv6
  std::string authority;  ///< host[:port] as written (brackets kept)
  int port = 0;           ///< 0 = scheme default
  std::string base_path;  ///< "" or "/devstoreaccount1" (no trailing slash)
  bool path_style = false;  ///< account in the path (emulator, IP, localhost)
  bool cosmos = false;      ///< Cosmos DB Table API endpoint

  /// scheme://authority + base_path
  std::string base_url() const { return scheme + "://" + authority + base_path; }
  bool is_loopback() const;
};

/// A dotted-quad IPv4 address ("127.0.0.1"): four decimal parts 0-255.
inline bool is_ipv4_literal(std::string_view h) noexcept {
  int parts = 0;
  std::size_t i = 0;
  while (i <= h.size()) {
    std::size_t j = i;
    int v = 0;
    while (j < h.size() && h[j] >= '0' && h[j] <= '9' && j - i < 3) v = v * 10 + (h[j++] - '0');
    if (j == i || v > 255) return false;
    ++parts;
    if (j == h.size()) break;
    if (h[j] != '.') return false;
    i = j + 1;
  }
  return parts == 4;
}

inline bool is_ip_literal(std::string_view h) noexcept {
  if (h.find(':') != std::string_view::npos) return true;  // IPv6 (parse_endpoint requires brackets)
  return is_ipv4_literal(h);
}

/// localhost, *.localhost, 127.0.0.0/8 and ::1. A name that merely starts
/// with "127." is not loopback.
inline bool endpoint::is_loopback() const {
  return host == "localhost" || host == "::1" || (is_ipv4_literal(host) && host.rfind("127.", 0) == 0) ||
         (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0);
}

/// Parses a decimal port 1-65535; false for anything else (empty included).
inline bool parse_port(std::string_view s, int& port) noexcept {
  if (s.empty() || s.size() > 5) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > 65535) return false;
  port = v;
  return true;
}

/// Parses and classifies a table endpoint URL. Errors name `field`.
inline result<endpoint> parse_endpoint(std::string_view url, std::string_view field = "endpoint") {
  endpoint ep;
  auto bad = [&](const std::string& rule) { return error::invalid_argument(std::string(field), rule); };
  std::size_t p = url.find("://");
  if (p == std::string_view::npos) return bad("must be an absolute URL such as https://account.table.core.windows.net");
  ep.scheme = std::string(url.substr(0, p));
  for (auto& c : ep.scheme)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (ep.scheme != "http" && ep.scheme != "https") return bad("scheme must be http or https");
  std::string_view rest = url.substr(p + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) return bad("must not contain a query or fragment");
  std::size_t slash = rest.find('/');
  std::string_view auth = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (auth.empty()) return bad("has no host");
  if (auth.find('@') != std::string_view::npos) return bad("must not contain user information");
  ep.authority = std::string(auth);
  std::string_view hostpart = auth;
  if (auth.front() == '[') {
    std::size_t close = auth.find(']');
    if (close == std::string_view::npos) return bad("has an unterminated IPv6 address");
    ep.host = std::string(auth.substr(1, close - 1));
    hostpart = auth.substr(close + 1);
    if (!hostpart.empty() && hostpart.front() != ':') return bad("has garbage after the IPv6 address");
    if (!hostpart.empty()) {
      hostpart.remove_prefix(1);  // the ':'
      if (!parse_port(hostpart, ep.port)) return bad("has an invalid port (1-65535)");
    }
  } else {
    std::size_t colon = auth.find(':');
    if (colon != std::string_view::npos && auth.find(':', colon + 1) != std::string_view::npos)
      return bad("has an IPv6 address without brackets; write it as [address]:port");
    ep.host = std::string(auth.substr(0, colon));
    if (colon != std::string_view::npos && !parse_port(auth.substr(colon + 1), ep.port))
      return bad("has an invalid port (1-65535)");
  }
  if (ep.host.empty()) return bad("has no host");
  for (auto& c : ep.host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  ep.base_path = std::string(path);
  // Path-style (account in the path) for the emulator, IP addresses and
  // localhost, or whenever the endpoint carries a path; host-style otherwise.
  ep.path_style = !ep.base_path.empty() || is_ip_literal(ep.host) || ep.host == "localhost";
  // Cosmos DB Table API, detected by host name as the official SDKs do, plus
  // the Cosmos emulator's default Table port.
  ep.cosmos = ep.host.find(".table.cosmos.") != std::string::npos ||
              ep.host.find(".table.cosmosdb.") != std::string::npos ||
              (ep.port == 8902 && (ep.host == "localhost" || ep.host == "127.0.0.1"));
  return ep;
}

/// The account name for a host-style endpoint ("acct.table.core.windows.net" -> "acct").
inline std::string account_from_host(const endpoint& ep) {
  if (ep.path_style) {
    std::string_view p = ep.base_path;
    if (!p.empty() && p.front() == '/') p.remove_prefix(1);
    return std::string(p.substr(0, p.find('/')));
  }
  return ep.host.substr(0, ep.host.find('.'));
}

}  // namespace detail
AZTABLES_NAMESPACE_END
