// SPDX-License-Identifier: MIT
// Internal: rate pacing for the bulk writer. Std-only, clock-free (the
// caller passes "now"), so tests are exact.
#pragma once

#include <aztables/config.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// Keeps a stream of work under `rate` units per second by reservation: a
/// request for n units starts at the earliest time the previous ones allow
/// and pushes the next start n/rate seconds later. Idle time is not saved up
/// (no burst beyond one request), so over any window T at most
/// rate*T + (one request) units start. Not thread-safe; `pacer` locks.
class rate_limiter {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  /// `per_second` <= 0 means unlimited.
  explicit rate_limiter(double per_second = 0) : rate_(per_second) {}

  /// The earliest start for n units at `now`, without reserving.
  time_point earliest(time_point now) const { return rate_ > 0 ? std::max(now, next_) : now; }
  /// Reserves n units starting at `start` (>= earliest()).
  void commit(std::size_t n, time_point start) {
    if (rate_ <= 0) return;
    next_ = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(static_cast<double>(n) / rate_));
  }
  double rate() const noexcept { return rate_; }

 private:
  double rate_;
  time_point next_{};
};

/// Per-partition and account-wide limiters, reserved together: a batch of n
/// entities for partition p starts when both allow it, and both are charged
/// from that moment. Thread-safe.
class pacer {
 public:
  using time_point = rate_limiter::time_point;

  pacer(double partition_rate, double account_rate) : partition_rate_(partition_rate), account_(account_rate) {}

  bool enabled() const noexcept { return partition_rate_ > 0 || account_.rate() > 0; }

  /// Reserves n entities of partition `pk`; returns when they may be sent.
  time_point reserve(const std::string& pk, std::size_t n, time_point now) {
    std::lock_guard<std::mutex> lk(mu_);
    rate_limiter& p = partitions_.try_emplace(pk, partition_rate_).first->second;
    const time_point start = std::max(p.earliest(now), account_.earliest(now));
    p.commit(n, start);
    account_.commit(n, start);
    return start;
  }

 private:
  std::mutex mu_;
  double partition_rate_;
  rate_limiter account_;
  std::unordered_map<std::string, rate_limiter> partitions_;
};

}  // namespace detail
AZTABLES_NAMESPACE_END
