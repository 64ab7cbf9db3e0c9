// SPDX-License-Identifier: MIT
/// \file bulk.hpp
/// The bulk writer: any number of write actions over any partitions, sent as
/// entity group transactions with bounded concurrency and optional pacing.
///
/// **Not atomic across batches.** Each batch (up to 100 actions of one
/// partition, at most 4 MiB) is atomic on its own; when one fails, the
/// others still apply. Every action ends either written or in
/// `bulk_result::failures` with the reason: nothing is dropped silently.
///
/// ```cpp
/// aztables::bulk_writer w(client, {.concurrency = 8});   // C++20 designated init
/// for (auto& e : rows) w.upsert(std::move(e));
/// auto r = w.write().value();
/// for (auto& f : r.failures) std::cerr << f.index << ": " << f.error.to_string() << "\n";
/// ```
#pragma once

#include <aztables/batch.hpp>
#include <aztables/config.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/table_client.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// Options of a `bulk_writer`.
struct bulk_options {
  /// Batches in flight at once (one worker thread each); at least 1. The
  /// client's transport keeps that many connections alive for reuse.
  std::size_t concurrency = 4;
  /// Pacing: at most this many entities per second to one partition (the
  /// service's scalability target is about 2,000); 0 turns it off.
  double partition_rate = 2000;
  /// Pacing: at most this many entities per second in all from this writer
  /// (the account target is about 20,000); 0 turns it off.
  double account_rate = 20000;
  /// Called on the thread that called `write()` as outcomes arrive, with
  /// the number of actions whose outcome is known (written or failed) and
  /// the total; the last call has done == total. Calls may skip values.
  /// While it runs, workers finish the batches they have but take no new
  /// one: keep it quick. An exception thrown here stops sending (only the
  /// batches in flight when it was called finish) and is rethrown from
  /// `write()`.
  std::function<void(std::size_t done, std::size_t total)> on_progress;
  /// The monotonic clock used for pacing; null: std::chrono::steady_clock.
  std::function<std::chrono::steady_clock::time_point()> now;
  /// Waits for pacing; null: std::this_thread::sleep_for. Tests inject a
  /// fake that advances their clock.
  std::function<void(std::chrono::nanoseconds)> sleep;
  /// Source of multipart boundary ids (see `batch_options`); null: random.
  std::function<guid()> new_guid;
};

/// One action that was not written, and why.
struct bulk_failure {
  std::size_t index = 0;  ///< position of the action among those added (0-based)
  batch_action_kind kind = batch_action_kind::insert;  ///< what the action was
  entity_key key;                                       ///< the entity it was for
  /// The reason. For an action that broke a rule: its `invalid_argument`
  /// error (nothing was sent for it). For an action in a batch that failed:
  /// the batch's error, shared by all its actions; `error.action_index` is
  /// then the index (among those added) of the action the service named as
  /// the cause, if it named one.
  aztables::error error;
};

/// The outcome of `bulk_writer::write()`.
struct bulk_result {
  std::size_t total = 0;    ///< actions given
  std::size_t written = 0;  ///< actions applied (in batches that succeeded)
  std::size_t batches = 0;  ///< batches sent
  std::vector<bulk_failure> failures;  ///< every action not written, by index
  /// True when every action was written.
  bool ok() const noexcept { return failures.empty(); }
};

/// Writes any number of actions to one table: groups them by PartitionKey
/// (keeping their order within a partition), cuts each group into batches
/// of at most 100 actions and 4 MiB (a RowKey repeated in the input starts a
/// new batch, and such a partition's batches are sent one after another, so
/// later actions on an entity land after earlier ones), and sends the
/// batches from a pool of `concurrency` threads, interleaving partitions.
/// Not atomic across batches. Holds the actions in memory until `write()`;
/// for unbounded streams call `write()` every N actions.
class bulk_writer : public detail::action_list<bulk_writer> {
 public:
  /// A writer for `client`'s table.
  explicit bulk_writer(table_client client, bulk_options options = {})
      : client_(std::move(client)), opt_(std::move(options)) {}

  /// Sends every action added, then forgets them (indices in the result are
  /// positions among the actions added since the previous `write()`). Blocks
  /// until every batch has an outcome. Actions that break a rule (invalid
  /// entity, missing ETag, larger than a batch) are reported in `failures`
  /// without being sent; the rest are written or reported with their
  /// batch's error. Bad options (`concurrency` 0, a negative or NaN rate)
  /// are an `invalid_argument` error and nothing is sent. Safe to call from
  /// one thread at a time.
  AZTABLES_DECL result<bulk_result> write();

 private:
  table_client client_;
  bulk_options opt_;
};

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/bulk.ipp>
#endif
