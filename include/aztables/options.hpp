// SPDX-License-Identifier: MIT
/// \file options.hpp
/// Client options: plain aggregates with sensible defaults.
#pragma once

#include <aztables/config.hpp>
#include <aztables/retry.hpp>
#include <aztables/transport.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

AZTABLES_NAMESPACE_BEGIN

/// Options shared by `service_client` and `table_client`.
struct client_options {
  /// Time allowed to establish a connection.
  std::chrono::milliseconds connect_timeout{10000};
  /// Time allowed for one attempt (request sent, response received).
  std::chrono::milliseconds attempt_timeout{30000};
  /// CA bundle file for TLS (empty: system default).
  std::string ca_file;
  /// CA certificate directory for TLS (empty: system default).
  std::string ca_path;
  /// DANGER: turns off TLS certificate and host-name verification. Only for
  /// test servers with self-signed certificates.
  bool insecure_skip_tls_verification = false;
  /// Allow SAS and bearer credentials over plain http to a non-loopback host.
  /// Off: such a client is refused (the secret would cross the network in clear).
  bool insecure_allow_http_with_secrets = false;
  /// Responses larger than this fail with `invalid_response`.
  std::size_t max_response_bytes = std::size_t(256) << 20;
  /// The x-ms-version sent with every request.
  std::string api_version = "2019-02-02";
  /// Appended to the User-Agent header.
  std::string user_agent_suffix;
  /// The retry policy (default: jittered exponential backoff).
  aztables::retry_options retry;
  /// The HTTP transport; null: the built-in libcurl transport.
  std::shared_ptr<aztables::transport> transport;
  /// The wall clock used for request dates and SAS checks; null: system clock.
  /// Tests inject a fixed clock so signatures are reproducible.
  std::function<std::chrono::system_clock::time_point()> clock;
};

AZTABLES_NAMESPACE_END
