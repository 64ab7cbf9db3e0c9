// SPDX-License-Identifier: MIT
/// \file transport.hpp
/// The seam at the HTTP layer: a request in, a response (or a transport
/// error) out. The default implementation uses libcurl; tests and users may
/// plug in their own (a fake with canned responses, a proxy, a recorder).
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// One HTTP header.
struct http_header {
  std::string name;
  std::string value;
};

/// An ordered list of headers with case-insensitive lookup.
class http_headers {
 public:
  void add(std::string name, std::string value) { h_.push_back({std::move(name), std::move(value)}); }
  /// Replaces every header of that name with one value.
  void set(std::string_view name, std::string value) {
    remove(name);
    add(std::string(name), std::move(value));
  }
  void remove(std::string_view name) {
    std::vector<http_header> kept;
    for (auto& x : h_)
      if (!iequals(x.name, name)) kept.push_back(std::move(x));
    h_ = std::move(kept);
  }
  /// The first header of that name (any case), or nullptr.
  const std::string* find(std::string_view name) const noexcept {
    for (auto& x : h_)
      if (iequals(x.name, name)) return &x.value;
    return nullptr;
  }
  std::string_view get(std::string_view name) const noexcept {
    const std::string* v = find(name);
    return v ? std::string_view(*v) : std::string_view();
  }
  std::vector<http_header>::const_iterator begin() const noexcept { return h_.begin(); }
  std::vector<http_header>::const_iterator end() const noexcept { return h_.end(); }
  std::size_t size() const noexcept { return h_.size(); }
  void clear() noexcept { h_.clear(); }

  static bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      char x = a[i], y = b[i];
      if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
      if (x != y) return false;
    }
    return true;
  }

 private:
  std::vector<http_header> h_;
};

/// A request as the SDK hands it to a transport: the body is one buffer and
/// must be sent as such (Azurite corrupts UTF-8 split across TCP reads).
struct http_request {
  std::string method;  ///< GET, POST, PUT, MERGE, PATCH, DELETE
  std::string url;     ///< absolute, already escaped
  http_headers headers;
  std::string body;
  std::chrono::milliseconds timeout{0};          ///< whole attempt; 0 = none
  std::chrono::milliseconds connect_timeout{0};  ///< 0 = transport default
};

/// A complete response.
struct http_response {
  int status = 0;
  http_headers headers;
  std::string body;
  /// The transport sent the request more than once to get this response
  /// (libcurl silently re-sends on a reused connection that died without an
  /// answer). The first send may have been applied: the retry loop treats it
  /// like an earlier attempt with an unknown outcome.
  bool resent = false;
};

/// The HTTP seam. Implementations must be safe to call from several threads
/// at once. A failure to get a complete response is an `errc::transport`
/// error with `failure` set (the retry policy reads it).
class transport {
 public:
  virtual ~transport() = default;
  virtual result<http_response> send(const http_request& request) = 0;
};

/// Options of the built-in libcurl transport.
struct curl_transport_options {
  std::chrono::milliseconds connect_timeout{10000};
  /// Verify the server's TLS certificate and host name. Leave on.
  bool verify_tls = true;
  std::string ca_file;  ///< CA bundle file (empty: system default)
  std::string ca_path;  ///< CA directory (empty: system default)
  /// Responses larger than this fail with `invalid_response`.
  std::size_t max_response_bytes = std::size_t(256) << 20;
  /// Idle connections (curl handles) kept for reuse.
  std::size_t max_idle_connections = 64;
};

/// The default transport: libcurl easy handles pooled and reused (keep-alive,
/// TCP_NODELAY), safe to share between threads.
AZTABLES_DECL std::shared_ptr<transport> make_curl_transport(const curl_transport_options& options = {});

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/curl_transport.ipp>
#endif
