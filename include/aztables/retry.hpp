// SPDX-License-Identifier: MIT
/// \file retry.hpp
/// Retry as three small decisions, each replaceable:
///  1. is this failure retryable? (`retry_options::is_retryable`)
///  2. how long to wait?           (`retry_options::backoff`, server hints)
///  3. when to stop?               (`max_retries`, `max_elapsed`)
/// plus whether the operation is safe to repeat (`retry_non_idempotent`).
/// Time and randomness come through injectable sources so tests are exact.
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string_view>
#include <thread>
#include <variant>

AZTABLES_NAMESPACE_BEGIN

/// Never wait (used with max_retries = 0 for "no retry").
struct no_backoff {};

/// The same delay before every retry.
struct fixed_backoff {
  std::chrono::milliseconds delay{1000};
};

/// The guide's jittered exponential backoff. For retry number x = 1, 2, ...:
///   y = Rand(0.8*delta, 1.2*delta) * (2^x - 1);  y = min(min_backoff + y, max_backoff)
struct exponential_backoff {
  std::chrono::milliseconds delta{800};        ///< z
  std::chrono::milliseconds min_backoff{100};  ///< z_min
  std::chrono::milliseconds max_backoff{30000};  ///< z_max
};

/// One of the backoff strategies above.
using backoff_strategy = std::variant<exponential_backoff, fixed_backoff, no_backoff>;

/// What the per-attempt hook sees.
struct attempt_info {
  std::string_view operation;  ///< "insert", "query", "batch", ...
  int attempt = 1;             ///< 1 for the first try
  int http_status = 0;         ///< 0 when no response arrived (or on success without one)
  const error* failure = nullptr;  ///< null on success
  bool will_retry = false;
  std::chrono::milliseconds delay{0};  ///< the wait before the next attempt
};

/// The classification of the service's retry guidance: 408, 429, 500, 502,
/// 503, 504 and transport failures (refused, reset, timeout, cut short) are
/// retryable; other 4xx, 501, 505 and every client-side error are not.
inline bool default_is_retryable(const error& e) noexcept {
  if (e.code == errc::invalid_argument || e.code == errc::mapping) return false;
  if (e.code == errc::transport) {
    switch (e.failure) {
      case transport_failure::connect:
      case transport_failure::send:
      case transport_failure::receive:
      case transport_failure::timeout:
      case transport_failure::truncated: return true;
      default: return false;
    }
  }
  switch (e.http_status) {
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504: return true;
    default: return false;
  }
}

/// Retry configuration. A plain aggregate: copy one of the presets and adjust.
struct retry_options {
  /// Retries after the first attempt (0 = no retry).
  int max_retries = 4;
  /// Stop retrying once this much time has passed since the first attempt
  /// (0 = no limit); a retry whose wait would cross it is not made.
  std::chrono::milliseconds max_elapsed{120000};
  backoff_strategy backoff = exponential_backoff{};
  /// Decision 1; null means `default_is_retryable`.
  std::function<bool(const error&)> is_retryable;
  /// Retry inserts and batches too (they are not idempotent; see README).
  bool retry_non_idempotent = true;
  /// Called after every attempt (logs, metrics).
  std::function<void(const attempt_info&)> on_attempt;
  /// Uniform random number in [0, 1); null: a per-thread std::mt19937_64.
  std::function<double()> random;
  /// Waits; null: std::this_thread::sleep_for. Tests inject a fake.
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Monotonic clock for max_elapsed; null: std::chrono::steady_clock.
  std::function<std::chrono::steady_clock::time_point()> now;

  /// No retry at all.
  static retry_options none() {
    retry_options r;
    r.max_retries = 0;
    r.backoff = no_backoff{};
    return r;
  }
  /// `retries` retries, `delay` apart.
  static retry_options fixed(int retries, std::chrono::milliseconds delay) {
    retry_options r;
    r.max_retries = retries;
    r.backoff = fixed_backoff{delay};
    return r;
  }
  /// Exponential backoff with explicit parameters.
  static retry_options exponential(int retries, std::chrono::milliseconds delta, std::chrono::milliseconds min_backoff,
                                   std::chrono::milliseconds max_backoff) {
    retry_options r;
    r.max_retries = retries;
    r.backoff = exponential_backoff{delta, min_backoff, max_backoff};
    return r;
  }
  /// The design guide's example: z = 30 s, z_min = 3 s, z_max = 90 s, for
  /// background work that can afford to wait.
  static retry_options guide_preset() {
    using std::chrono::milliseconds;
    retry_options r = exponential(4, milliseconds(30000), milliseconds(3000), milliseconds(90000));
    r.max_elapsed = milliseconds(0);
    return r;
  }
};

/// The delay before retry number `retry` (1-based) for a strategy, given a
/// uniform draw `u` in [0, 1). Exact formula, no hints.
inline std::chrono::milliseconds backoff_delay(const backoff_strategy& s, int retry, double u) {
  using std::chrono::milliseconds;
  if (const auto* f = std::get_if<fixed_backoff>(&s)) return f->delay;
  if (std::holds_alternative<no_backoff>(s)) return milliseconds(0);
  const auto& x = std::get<exponential_backoff>(s);
  const double z = static_cast<double>(x.delta.count());
  const double jittered = (0.8 * z) + (0.4 * z) * u;  // Rand(0.8z, 1.2z)
  const int exp = retry < 1 ? 1 : (retry > 62 ? 62 : retry);
  const double y = jittered * (std::ldexp(1.0, exp) - 1.0);
  const double capped = std::fmin(static_cast<double>(x.min_backoff.count()) + y, static_cast<double>(x.max_backoff.count()));
  return milliseconds(static_cast<std::int64_t>(std::llround(capped)));
}

/// The largest delay a strategy may choose (the cap for server hints).
inline std::chrono::milliseconds backoff_cap(const backoff_strategy& s) {
  if (const auto* f = std::get_if<fixed_backoff>(&s)) return f->delay;
  if (const auto* x = std::get_if<exponential_backoff>(&s)) return x->max_backoff;
  return std::chrono::milliseconds(0);
}

AZTABLES_NAMESPACE_END
