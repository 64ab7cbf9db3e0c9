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
  std::string name;   ///< as sent or received (any case)
  std::string value;  ///< the value
};

/// An ordered list of headers with case-insensitive lookup.
class http_headers {
 public:
  /// Appends a header (a name may repeat).
  void add(std::string name, std::string value) { h_.push_back({std::move(name), std::move(value)}); }
  /// Makes room for `n` headers (no effect on the contents).
  void reserve(std::size_t n) { h_.reserve(n); }
  /// Replaces every header of that name with one value.
  void set(std::string_view name, std::string value) {
    remove(name);
    add(std::string(name), std::move(value));
  }
  /// Removes every header of that name (any case).
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
  /// The first header of that name (any case), or empty.
  std::string_view get(std::string_view name) const noexcept {
    const std::string* v = find(name);
    return v ? std::string_view(*v) : std::string_view();
  }
  /// Iteration in the order added.
  std::vector<http_header>::const_iterator begin() const noexcept { return h_.begin(); }
  /// End of the iteration.
  std::vector<http_header>::const_iterator end() const noexcept { return h_.end(); }
  /// The number of headers.
  std::size_t size() const noexcept { return h_.size(); }
  /// Removes every header.
  void clear() noexcept { h_.clear(); }

  /// ASCII case-insensitive equality (header names).
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
  http_headers headers;  ///< every header to send (signed ones included)
  std::string body;      ///< the request body (may be empty)
  std::chrono::milliseconds timeout{0};          ///< whole attempt; 0 = none
  std::chrono::milliseconds connect_timeout{0};  ///< 0 = transport default
};

/// A complete response.
struct http_response {
  int status = 0;        ///< the HTTP status code
  http_headers headers;  ///< the response headers
  std::string body;      ///< the whole body
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
  /// Sends `request` and returns the complete response (any status), or an
  /// `errc::transport` error with `failure` set when none arrived.
  virtual result<http_response> send(const http_request& request) = 0;
};

/// Options of the built-in libcurl transport.
struct curl_transport_options {
  std::chrono::milliseconds connect_timeout{10000};  ///< time allowed to connect
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
