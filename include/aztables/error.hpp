// SPDX-License-Identifier: MIT
/// \file error.hpp
/// One error model for every call: `aztables::error`, `aztables::result<T>`
/// and `aztables::exception` (thrown only by `result<T>::value()`).
#pragma once

#include <aztables/config.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

AZTABLES_NAMESPACE_BEGIN

/// The category of a failure. Decided from the HTTP status and the service
/// error code, or from where the client itself stopped.
enum class errc {
  transport = 1,        ///< no (complete) response arrived: connect, send, receive, timeout, TLS
  authentication,       ///< 401/403: bad signature, expired SAS, missing permission
  not_found,            ///< 404: table or entity does not exist
  conflict,             ///< 409: table or entity already exists
  precondition_failed,  ///< 412: ETag did not match
  throttled,            ///< 429 or 503: the service asks the client to slow down
  bad_request,          ///< other 4xx: the service rejected the request
  invalid_argument,     ///< rejected by the client before anything was sent
  service,              ///< 5xx other than 503: the service failed
  invalid_response,     ///< a response that could not be understood (or was too large)
  mapping,              ///< stored data does not fit the user's type
};

/// A short stable name for an error category ("not_found", ...).
inline const char* to_string(errc c) noexcept {
  switch (c) {
    case errc::transport: return "transport";
    case errc::authentication: return "authentication";
    case errc::not_found: return "not_found";
    case errc::conflict: return "conflict";
    case errc::precondition_failed: return "precondition_failed";
    case errc::throttled: return "throttled";
    case errc::bad_request: return "bad_request";
    case errc::invalid_argument: return "invalid_argument";
    case errc::service: return "service";
    case errc::invalid_response: return "invalid_response";
    case errc::mapping: return "mapping";
  }
  return "unknown";
}

/// Where a transport failure happened; drives retry classification.
enum class transport_failure {
  none,       ///< not a transport failure
  resolve,    ///< host name could not be resolved
  connect,    ///< connection refused or could not be established
  send,       ///< connection failed (reset) while sending the request
  receive,    ///< connection failed (reset) while receiving the response
  timeout,    ///< the per-attempt timeout or the deadline passed
  truncated,  ///< the response was cut short
  tls,        ///< TLS handshake or certificate verification failed
  other,      ///< anything else the HTTP stack reported
};

/// A failed call. Messages never contain an account key, a signature, a SAS
/// `sig` or a bearer token.
struct error {
  errc code = errc::service;       ///< the category (what to do about it)
  int http_status = 0;             ///< 0 when no response arrived
  std::string service_code;        ///< e.g. "EntityAlreadyExists"; empty if none was sent
  std::string message;             ///< human readable; for invalid_argument: "field: rule"
  std::string request_id;          ///< x-ms-request-id of the failing response, if any
  transport_failure failure = transport_failure::none;  ///< for `errc::transport`: where it failed
  int attempts = 1;                ///< how many times the operation was sent
  /// A write that fails with this error may nevertheless have been applied:
  /// an attempt got no definite answer (reset, timeout, 5xx) and the SDK could
  /// not verify the outcome (see README "Retries"). Never set for reads.
  bool may_have_applied = false;
  std::optional<std::size_t> action_index;  ///< batch: 0-based index of the failing action

  /// One line: "not_found (404 ResourceNotFound): The specified resource ..."
  std::string to_string() const {
    std::string s = aztables::to_string(code);
    if (http_status != 0 || !service_code.empty()) {
      s += " (";
      if (http_status != 0) s += std::to_string(http_status);
      if (http_status != 0 && !service_code.empty()) s += ' ';
      s += service_code;
      s += ')';
    }
    if (action_index) s += " [action " + std::to_string(*action_index) + "]";
    if (!message.empty()) {
      s += ": ";
      s += message;
    }
    if (attempts > 1) s += " (after " + std::to_string(attempts) + " attempts)";
    if (may_have_applied) s += " (may have been applied)";
    if (!request_id.empty()) s += " [request " + request_id + "]";
    return s;
  }

  /// An `invalid_argument` error for `field` breaking `rule`.
  static error invalid_argument(std::string field, std::string rule) {
    error e;
    e.code = errc::invalid_argument;
    e.message = std::move(field) + ": " + std::move(rule);
    return e;
  }
  /// An error of category `c` with a message.
  static error make(errc c, std::string message) {
    error e;
    e.code = c;
    e.message = std::move(message);
    return e;
  }
};

/// Thrown by `result<T>::value()` on an error; carries the error.
class exception : public std::runtime_error {
 public:
  /// Wraps `e`; `what()` is `e.to_string()`.
  explicit exception(aztables::error e) : std::runtime_error(e.to_string()), error_(std::move(e)) {}
  /// The error that was thrown.
  const aztables::error& error() const noexcept { return error_; }

 private:
  aztables::error error_;
};

/// Either a `T` or an `error`. Test it (`if (r)`), then use `*r` / `r->`, or
/// call `value()`, which throws `aztables::exception` on an error.
template <class T>
class [[nodiscard]] result {
  static_assert(!std::is_same_v<std::decay_t<T>, aztables::error>, "result<error> is not meaningful");

 public:
  using value_type = T;  ///< the success type
  /// A success holding a copy of `v`.
  result(const T& v) : v_(std::in_place_index<0>, v) {}                 // NOLINT(implicit)
  /// A success holding `v`.
  result(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}           // NOLINT(implicit)
  /// A failure.
  result(aztables::error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT(implicit)

  /// True on success.
  bool has_value() const noexcept { return v_.index() == 0; }
  /// True on success.
  explicit operator bool() const noexcept { return has_value(); }

  /// The value; throws `aztables::exception` carrying the error on a failure.
  T& value() & {
    throw_if_error();
    return std::get<0>(v_);
  }
  /// The value; throws `aztables::exception` on a failure.
  const T& value() const& {
    throw_if_error();
    return std::get<0>(v_);
  }
  /// The value, moved out; throws `aztables::exception` on a failure.
  T&& value() && {
    throw_if_error();
    return std::get<0>(std::move(v_));
  }
  /// `value()`: throws on a failure.
  T& operator*() & { return value(); }
  /// `value()`: throws on a failure.
  const T& operator*() const& { return value(); }
  /// `value()`, moved out: throws on a failure.
  T&& operator*() && { return std::move(*this).value(); }
  /// Member access to the value: throws on a failure.
  T* operator->() { return &value(); }
  /// Member access to the value: throws on a failure.
  const T* operator->() const { return &value(); }

  /// The error. Precondition: `!has_value()`.
  const aztables::error& error() const& { return std::get<1>(v_); }
  /// The error, modifiable. Precondition: `!has_value()`.
  aztables::error& error() & { return std::get<1>(v_); }
  /// The error, moved out. Precondition: `!has_value()`.
  aztables::error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  void throw_if_error() const {
    if (v_.index() != 0) throw exception(std::get<1>(v_));
  }
  std::variant<T, aztables::error> v_;
};

/// `result<void>`: success or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  using value_type = void;  ///< no value on success
  /// Success.
  result() = default;
  /// A failure.
  result(aztables::error e) : e_(std::move(e)) {}  // NOLINT(implicit)
  /// True on success.
  bool has_value() const noexcept { return !e_.has_value(); }
  /// True on success.
  explicit operator bool() const noexcept { return has_value(); }
  /// Throws `aztables::exception` carrying the error on a failure.
  void value() const {
    if (e_) throw exception(*e_);
  }
  /// The error. Precondition: `!has_value()`.
  const aztables::error& error() const& { return *e_; }
  /// The error, modifiable. Precondition: `!has_value()`.
  aztables::error& error() & { return *e_; }
  /// The error, moved out. Precondition: `!has_value()`.
  aztables::error&& error() && { return std::move(*e_); }

 private:
  std::optional<aztables::error> e_;
};

AZTABLES_NAMESPACE_END
