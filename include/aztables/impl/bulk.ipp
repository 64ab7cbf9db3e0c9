// SPDX-License-Identifier: MIT
// Definitions of aztables::bulk_writer (inline in header-only mode, compiled
// once by <aztables/src.hpp> in separate-compilation mode).
//
// Why a pool of std::thread workers rather than curl multi: every request
// in this SDK goes through client_core::execute (signing, the user's retry
// policy, the pluggable transport seam), which is synchronous. A curl multi
// loop would need a second, asynchronous path that bypasses user transports
// and the retry policy. A worker blocked on the network costs no CPU, the
// concurrency a bulk load needs is small (a handful to a few dozen batches
// in flight: the service's own targets cap the useful rate), and the shared
// client's curl transport keeps a pool of easy handles, so each worker
// reuses a kept-alive connection instead of opening one per batch.
#pragma once

#include <aztables/batch.hpp>
#include <aztables/bulk.hpp>
#include <aztables/detail/client_core.hpp>
#include <aztables/detail/multipart.hpp>
#include <aztables/detail/pacing.hpp>
#include <aztables/impl/batch.ipp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// The actions of one partition, cut into batches (indices into the input).
struct bulk_partition {
  std::string partition_key;
  std::vector<std::size_t> pending;           ///< valid actions, in input order (filled during grouping)
  std::deque<std::vector<std::size_t>> chunks;  ///< batches still to send
  bool ordered = false;                       ///< a RowKey repeats: send the batches one at a time
  bool busy = false;                          ///< a batch of this partition is in flight
};

inline void add_to_batch(batch& b, batch_action&& a) {
  switch (a.kind) {
    case batch_action_kind::insert: b.insert(std::move(a.entity)); break;
    case batch_action_kind::upsert_merge: b.upsert(std::move(a.entity), update_mode::merge); break;
    case batch_action_kind::upsert_replace: b.upsert(std::move(a.entity), update_mode::replace); break;
    case batch_action_kind::update_merge: b.update(std::move(a.entity), update_mode::merge); break;
    case batch_action_kind::update_replace: b.update(std::move(a.entity), update_mode::replace); break;
    case batch_action_kind::erase: b.erase(a.entity.key(), a.entity.etag); break;
  }
}

}  // namespace detail

AZTABLES_DECL result<bulk_result> bulk_writer::write() {
  if (opt_.concurrency == 0) return error::invalid_argument("bulk_options.concurrency", "must be at least 1");
  if (!(opt_.partition_rate >= 0) || std::isinf(opt_.partition_rate))
    return error::invalid_argument("bulk_options.partition_rate", "must be a finite number >= 0 (0: no pacing)");
  if (!(opt_.account_rate >= 0) || std::isinf(opt_.account_rate))
    return error::invalid_argument("bulk_options.account_rate", "must be a finite number >= 0 (0: no pacing)");
  if (auto r = validate_table_name(client_.name()); !r) return std::move(r).error();

  std::vector<batch_action> actions = std::move(actions_);
  std::vector<std::pair<std::size_t, error>> deferred = std::move(deferred_);
  actions_.clear();
  deferred_.clear();

  bulk_result out;
  out.total = actions.size();
  auto fail = [&](std::size_t i, error e) {
    out.failures.push_back(bulk_failure{i, actions[i].kind, actions[i].entity.key(), std::move(e)});
  };

  // 1. Check each action on its own and measure its part of a batch body.
  detail::client_core& core = *client_.core();
  const detail::batch_target target(core, client_.name());
  const std::string placeholder_changeset = "changeset_" + std::string(36, '0');
  const std::size_t envelope = detail::batch_envelope_size(6 + 36, placeholder_changeset.size());
  std::vector<std::size_t> part_size(actions.size(), 0);
  std::vector<detail::bulk_partition> partitions;
  {
    std::unordered_map<std::string_view, std::size_t> partition_of;
    std::string scratch;
    std::size_t next_deferred = 0;
    for (std::size_t i = 0; i < actions.size(); ++i) {
      while (next_deferred < deferred.size() && deferred[next_deferred].first < i) ++next_deferred;
      if (next_deferred < deferred.size() && deferred[next_deferred].first == i) {
        fail(i, detail::action_error(deferred[next_deferred].second, i, actions[i].kind));
        continue;
      }
      scratch.clear();
      if (auto err = detail::append_action_part(scratch, placeholder_changeset, target, actions[i])) {
        fail(i, detail::action_error(std::move(*err), i, actions[i].kind));
        continue;
      }
      if (envelope + scratch.size() > max_batch_body_bytes) {
        fail(i, detail::action_error(error::invalid_argument("entity", "needs " + std::to_string(scratch.size()) +
                                                                            " bytes in a batch body; a batch is at "
                                                                            "most 4 MiB"),
                                     i, actions[i].kind));
        continue;
      }
      part_size[i] = scratch.size();
      auto [it, fresh] = partition_of.emplace(actions[i].entity.partition_key, partitions.size());
      if (fresh) {
        partitions.emplace_back();
        partitions.back().partition_key = actions[i].entity.partition_key;
      }
      partitions[it->second].pending.push_back(i);
    }
  }

  // 2. Cut each partition into batches: <= 100 actions, <= 4 MiB, no RowKey twice.
  std::size_t chunk_count = 0;
  for (auto& p : partitions) {
    std::unordered_set<std::string_view> all_keys, chunk_keys;
    std::vector<std::size_t> chunk;
    std::size_t bytes = envelope;
    for (std::size_t i : p.pending) {
      std::string_view rk = actions[i].entity.row_key;
      if (!all_keys.insert(rk).second) p.ordered = true;
      if (!chunk.empty() && (chunk.size() == max_batch_actions || bytes + part_size[i] > max_batch_body_bytes ||
                             chunk_keys.count(rk) != 0)) {
        p.chunks.push_back(std::move(chunk));
        chunk.clear();
        chunk_keys.clear();
        bytes = envelope;
      }
      chunk.push_back(i);
      chunk_keys.insert(rk);
      bytes += part_size[i];
    }
    if (!chunk.empty()) p.chunks.push_back(std::move(chunk));
    chunk_count += p.chunks.size();
    p.pending.clear();
    p.pending.shrink_to_fit();
  }

  // 3. Send from a pool of workers.
  std::mutex mu;
  std::condition_variable cv;
  std::size_t done = out.failures.size();
  std::size_t remaining = chunk_count;  // chunks not yet taken
  std::size_t running = 0;              // workers still alive
  std::size_t cursor = 0;               // round-robin position over partitions
  bool stop = false;
  bool reporting = false;  // on_progress is running: no batch is taken until it returns
  detail::pacer pace(opt_.partition_rate, opt_.account_rate);
  auto now = [&] { return opt_.now ? opt_.now() : std::chrono::steady_clock::now(); };
  auto sleep_for = [&](std::chrono::nanoseconds d) {
    if (opt_.sleep) opt_.sleep(d);
    else std::this_thread::sleep_for(d);
  };

  // Takes the next batch (under the lock): partitions in turn, skipping an
  // ordered partition whose previous batch is still in flight.
  auto take = [&](std::size_t& part, std::vector<std::size_t>& chunk) {
    for (std::size_t k = 0; k < partitions.size(); ++k) {
      std::size_t pi = (cursor + k) % partitions.size();
      auto& p = partitions[pi];
      if (p.chunks.empty() || (p.ordered && p.busy)) continue;
      chunk = std::move(p.chunks.front());
      p.chunks.pop_front();
      p.busy = true;
      part = pi;
      cursor = pi + 1;
      --remaining;
      return true;
    }
    return false;
  };

  auto worker = [&] {
    for (;;) {
      std::size_t pi = 0;
      std::vector<std::size_t> chunk;
      {
        std::unique_lock<std::mutex> lk(mu);
        bool got = false;
        cv.wait(lk, [&] { return stop || remaining == 0 || (!reporting && (got = take(pi, chunk))); });
        if (!got) break;
      }
      if (pace.enabled()) {
        const auto t0 = now();
        const auto start = pace.reserve(partitions[pi].partition_key, chunk.size(), t0);
        if (start > t0) sleep_for(std::chrono::duration_cast<std::chrono::nanoseconds>(start - t0));
      }
      batch b(client_, batch_options{opt_.new_guid});
      for (std::size_t i : chunk) detail::add_to_batch(b, std::move(actions[i]));
      auto r = b.submit();
      std::lock_guard<std::mutex> lk(mu);
      ++out.batches;
      if (r) {
        out.written += chunk.size();
      } else {
        error e = std::move(r).error();
        if (e.action_index) e.action_index = *e.action_index < chunk.size() ? std::optional<std::size_t>(chunk[*e.action_index]) : std::nullopt;
        for (std::size_t j = 0; j < chunk.size(); ++j)
          out.failures.push_back(bulk_failure{chunk[j], b.actions()[j].kind, b.actions()[j].entity.key(), e});
      }
      done += chunk.size();
      partitions[pi].busy = false;
      cv.notify_all();
    }
    std::lock_guard<std::mutex> lk(mu);
    --running;
    cv.notify_all();
  };

  const std::size_t workers = std::min(opt_.concurrency, chunk_count);
  std::vector<std::thread> pool;
  pool.reserve(workers);
  running = workers;
  for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(worker);

  // Progress is reported on this thread, so the callback needs no locking.
  // While it runs no worker takes a new batch, so a callback that throws
  // stops the writer with only the batches already in flight sent.
  std::exception_ptr thrown;
  std::size_t reported = static_cast<std::size_t>(-1);
  for (;;) {
    std::size_t d;
    bool finished;
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return running == 0 || done != reported; });
      d = done;
      finished = running == 0;
    }
    if (opt_.on_progress && !thrown && d != reported && out.total > 0) {
      {
        std::lock_guard<std::mutex> lk(mu);
        reporting = true;
      }
      try {
        opt_.on_progress(d, out.total);
      } catch (...) {
        thrown = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu);
      reporting = false;
      if (thrown) stop = true;
      cv.notify_all();
    }
    reported = d;
    if (finished) break;
  }
  for (auto& t : pool) t.join();
  if (thrown) std::rethrow_exception(thrown);

  std::sort(out.failures.begin(), out.failures.end(),
            [](const bulk_failure& a, const bulk_failure& b) { return a.index < b.index; });
  return out;
}

AZTABLES_NAMESPACE_END
