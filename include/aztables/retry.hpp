// SPDX-License-Identifier: MIT
/// \file retry.hpp
/// The retry policy: three small decisions, each replaceable.
///  1. Is this failure retryable?  `retry_options::is_retryable` (default:
///     `default_is_retryable`, the service's classification).
///  2. How long to wait?           `retry_options::backoff`: none, fixed, the
///     guide's jittered exponential backoff (default) or your own function;
///     server hints (`x-ms-retry-after-ms`, `retry-after-ms`, `Retry-After`).
///  3. When to stop?               `max_retries` and `max_elapsed` (the
///     overall deadline of one operation).
/// Plus: is the operation safe to repeat (`retry_non_idempotent`), and a
/// per-attempt hook for logs and metrics. Time and randomness come from
/// injectable sources, so tests see exact delays.
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

AZTABLES_NAMESPACE_BEGIN

/// Never wait between attempts.
struct no_backoff {};

/// The same delay before every retry. Server hints are ignored: constant
/// means constant (use `exponential_backoff` to honour them).
struct fixed_backoff {
  std::chrono::milliseconds delay{1000};  ///< the wait before each retry (>= 0)
};

/// The guide's jittered exponential backoff. For retry number x = 1, 2, ...:
///
///     y = Rand(0.8*z, 1.2*z) * (2^x - 1);   y = min(z_min + y, z_max)
///
/// with Rand uniform (from `retry_options::random`). A server hint replaces
/// y, capped by z_max. The defaults (z = 800 ms, z_min = 100 ms,
/// z_max = 30 s) wait about 0.9 s, 2.5 s, 5.7 s, 12.1 s: past a partition
/// move (a few seconds) without stalling an interactive caller for minutes.
struct exponential_backoff {
  std::chrono::milliseconds delta{800};          ///< z: the base delay (>= 0)
  std::chrono::milliseconds min_backoff{100};    ///< z_min: added to every wait (>= 0)
  std::chrono::milliseconds max_backoff{30000};  ///< z_max: the longest wait, hints included (>= z_min)
};

/// What a custom backoff function is told.
struct backoff_input {
  int retry = 1;       ///< 1 before the first retry (the second attempt), 2 before the next, ...
  double random = 0;   ///< a uniform draw in [0, 1) from `retry_options::random`
  /// The server's hint, if the response carried one (already parsed; not capped).
  std::optional<std::chrono::milliseconds> server_hint;
  const error* failure = nullptr;  ///< the failure about to be retried (never null when called)
};

/// Your own wait: a function of the retry number, a random draw and the
/// server hint. It decides everything, including how hints are treated.
struct custom_backoff {
  std::function<std::chrono::milliseconds(const backoff_input&)> delay;  ///< the wait before a retry
};

/// One of the backoff strategies above.
using backoff_strategy = std::variant<exponential_backoff, fixed_backoff, no_backoff, custom_backoff>;

/// How one attempt ended, as the per-attempt hook sees it.
enum class attempt_outcome {
  succeeded,          ///< a 2xx response
  retrying,           ///< failed; another attempt follows after `delay`
  not_retryable,      ///< failed; the failure is not retryable (or the caller's classification said so)
  retries_exhausted,  ///< failed; retryable, but `max_retries` retries were made
  deadline_exceeded,  ///< failed; retryable, but the wait would pass `max_elapsed`
  not_idempotent,     ///< failed; retryable, but the request may have been applied and the
                      ///< operation is not safe to repeat (`retry_non_idempotent` is off)
};

/// A short stable name for an attempt outcome ("retrying", ...).
inline const char* to_string(attempt_outcome o) noexcept {
  switch (o) {
    case attempt_outcome::succeeded: return "succeeded";
    case attempt_outcome::retrying: return "retrying";
    case attempt_outcome::not_retryable: return "not_retryable";
    case attempt_outcome::retries_exhausted: return "retries_exhausted";
    case attempt_outcome::deadline_exceeded: return "deadline_exceeded";
    case attempt_outcome::not_idempotent: return "not_idempotent";
  }
  return "unknown";
}

/// What the per-attempt hook sees (valid only during the call).
struct attempt_info {
  std::string_view operation;       ///< "insert", "upsert_merge", "query", "batch", ...
  int attempt = 1;                  ///< 1 for the first try
  int http_status = 0;              ///< 0 when no response arrived
  const error* failure = nullptr;   ///< null on success
  attempt_outcome outcome = attempt_outcome::succeeded;  ///< what happens next
  std::chrono::milliseconds delay{0};    ///< the wait before the next attempt (0 unless retrying)
  std::chrono::milliseconds elapsed{0};  ///< since the first attempt began
};

/// Decision 1, the default: the service's retry guidance.
/// Retryable: 408, 429, 500, 502, 503, 504, and transport failures where the
/// service may simply have been unreachable for a moment (connection refused,
/// reset while sending or receiving, timeout, a response cut short).
/// Not retryable: every other status (400, 401, 403, 404, 409, 412, 413, 501,
/// 505, ...), client-side errors (`invalid_argument`, `mapping`), name
/// resolution and TLS failures (retrying gives the same answer).
inline bool default_is_retryable(const error& e) noexcept {
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
  if (e.http_status == 0) return false;  // client-side: invalid_argument, mapping, invalid_response, ...
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

/// Whether a write that failed this way may nevertheless have been applied
/// by the service: true when no definite answer arrived (reset, timeout, a
/// response cut short) or the service's answer does not say (408, 500, 502,
/// 503, 504). False for a connection that was never made (refused, name
/// resolution, TLS), for 429 (throttled before it ran) and for every other
/// definite answer. This decides whether an insert may be repeated when
/// `retry_non_idempotent` is off, and sets `error::may_have_applied`.
inline bool may_have_applied(const error& e) noexcept {
  if (e.code == errc::transport) {
    switch (e.failure) {
      case transport_failure::resolve:
      case transport_failure::connect:
      case transport_failure::tls: return false;
      default: return true;
    }
  }
  if (e.code == errc::invalid_response) return true;  // a response came back: the request ran
  switch (e.http_status) {
    case 408:
    case 500:
    case 502:
    case 503:
    case 504: return true;
    default: return false;
  }
}

/// The retry policy. A plain aggregate: start from the default or a preset
/// and adjust fields. Every function member may be left empty (the default
/// is then used); those that are set must be safe to call from several
/// threads at once when the client is shared.
struct retry_options {
  /// Decision 3a: retries after the first attempt (0 = no retry).
  int max_retries = 4;
  /// Decision 3b: the overall deadline of one operation, counted from the
  /// start of its first attempt: no attempt starts after it, each attempt's
  /// timeout is cut to what is left of it, and a retry whose wait would cross
  /// it is not made. 0 = no deadline (each attempt still has
  /// `client_options::attempt_timeout`).
  std::chrono::milliseconds max_elapsed{120000};
  /// Decision 2: how long to wait before each retry.
  backoff_strategy backoff = exponential_backoff{};
  /// Decision 1: is this failure retryable? Empty: `default_is_retryable`.
  /// `error::attempts` holds the number of attempts made so far.
  std::function<bool(const error&)> is_retryable;
  /// Repeat operations that are not idempotent (insert, batches) after an
  /// attempt that may have been applied. On (the default), the SDK verifies
  /// the outcome when a retry is answered with a conflict (see README
  /// "Retries"); off, such an operation fails with the ambiguous error
  /// (`error::may_have_applied` set) and is retried only after failures that
  /// certainly did not reach the service (connection refused, 429).
  bool retry_non_idempotent = true;
  /// Called after every attempt, successful or not (logs, metrics).
  std::function<void(const attempt_info&)> on_attempt;
  /// A uniform random number in [0, 1). Empty: a per-thread std::mt19937_64
  /// seeded from std::random_device.
  std::function<double()> random;
  /// Waits between attempts. Empty: std::this_thread::sleep_for.
  std::function<void(std::chrono::milliseconds)> sleep;
  /// The monotonic clock for `max_elapsed`. Empty: std::chrono::steady_clock.
  std::function<std::chrono::steady_clock::time_point()> now;

  /// No retry at all: every failure is returned at once.
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
  /// Jittered exponential backoff with explicit z, z_min and z_max.
  static retry_options exponential(int retries, std::chrono::milliseconds delta, std::chrono::milliseconds min_backoff,
                                   std::chrono::milliseconds max_backoff) {
    retry_options r;
    r.max_retries = retries;
    r.backoff = exponential_backoff{delta, min_backoff, max_backoff};
    return r;
  }
  /// The design guide's example: z = 30 s, z_min = 3 s, z_max = 90 s, four
  /// retries (waits of about 33 s, 90 s, 90 s, 90 s) and a 10-minute deadline:
  /// for background work that must get through a long throttling episode and
  /// can afford to wait.
  static retry_options guide_preset() {
    using std::chrono::milliseconds;
    retry_options r = exponential(4, milliseconds(30000), milliseconds(3000), milliseconds(90000));
    r.max_elapsed = milliseconds(600000);
    return r;
  }
};

/// Checks a retry policy: an `invalid_argument` error naming the field, or
/// nothing. Clients check their policy when created and before each call.
inline std::optional<error> validate_retry_options(const retry_options& r) {
  if (r.max_retries < 0) return error::invalid_argument("retry.max_retries", "must not be negative");
  if (r.max_elapsed.count() < 0) return error::invalid_argument("retry.max_elapsed", "must not be negative");
  if (const auto* f = std::get_if<fixed_backoff>(&r.backoff)) {
    if (f->delay.count() < 0) return error::invalid_argument("retry.backoff (fixed_backoff.delay)", "must not be negative");
  } else if (const auto* x = std::get_if<exponential_backoff>(&r.backoff)) {
    if (x->delta.count() < 0 || x->min_backoff.count() < 0)
      return error::invalid_argument("retry.backoff (exponential_backoff)", "delta and min_backoff must not be negative");
    if (x->max_backoff < x->min_backoff)
      return error::invalid_argument("retry.backoff (exponential_backoff.max_backoff)", "must be at least min_backoff");
  } else if (const auto* c = std::get_if<custom_backoff>(&r.backoff)) {
    if (!c->delay) return error::invalid_argument("retry.backoff (custom_backoff.delay)", "is empty");
  }
  return std::nullopt;
}

/// The delay a built-in strategy computes for retry number `retry` (1-based)
/// and a uniform draw `u` in [0, 1), without server hints: the exact formula.
/// A custom strategy is called with no hint.
inline std::chrono::milliseconds backoff_delay(const backoff_strategy& s, int retry, double u) {
  using std::chrono::milliseconds;
  if (const auto* f = std::get_if<fixed_backoff>(&s)) return f->delay;
  if (std::holds_alternative<no_backoff>(s)) return milliseconds(0);
  if (const auto* c = std::get_if<custom_backoff>(&s)) {
    backoff_input in;
    in.retry = retry;
    in.random = u;
    return c->delay ? c->delay(in) : milliseconds(0);
  }
  const auto& x = std::get<exponential_backoff>(s);
  const double z = static_cast<double>(x.delta.count());
  const double jittered = 0.8 * z + 0.4 * z * u;  // Rand(0.8z, 1.2z)
  const int e = retry < 1 ? 1 : (retry > 62 ? 62 : retry);
  const double y = jittered * (std::ldexp(1.0, e) - 1.0);
  const double capped =
      std::fmin(static_cast<double>(x.min_backoff.count()) + y, static_cast<double>(x.max_backoff.count()));
  return milliseconds(static_cast<std::int64_t>(std::llround(capped)));
}

/// Decision 2 in full: the wait before retry number `in.retry`. Exponential:
/// the server hint if there is one, capped by z_max, else the formula. Fixed
/// and none: their constant (hints ignored). Custom: the user's function.
/// Never negative.
inline std::chrono::milliseconds backoff_delay(const backoff_strategy& s, const backoff_input& in) {
  using std::chrono::milliseconds;
  milliseconds d{0};
  if (const auto* c = std::get_if<custom_backoff>(&s)) {
    d = c->delay ? c->delay(in) : milliseconds(0);
  } else if (const auto* x = std::get_if<exponential_backoff>(&s); x && in.server_hint) {
    d = *in.server_hint < x->max_backoff ? *in.server_hint : x->max_backoff;
  } else {
    d = backoff_delay(s, in.retry, in.random);
  }
  return d.count() < 0 ? milliseconds(0) : d;
}

AZTABLES_NAMESPACE_END
