// SPDX-License-Identifier: MIT
/// \file fan_out.hpp
/// The read side of a spread partition (`keys::hash_spread`): run one
/// row-range query per partition key, concurrently, and merge the results in
/// RowKey order, as if they had been one partition.
#pragma once

#include <aztables/config.hpp>
#include <aztables/detail/sas_token.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/query.hpp>
#include <aztables/table_client.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// Options of `fan_out_query`.
struct fan_out_options {
  /// Queries in flight at once (one thread each); at least 1.
  std::size_t concurrency = 8;
  /// At most this many results in all, the first in merged order; 0: no limit.
  /// Give each query the same `limit` too, so no partition reads more than
  /// the merge can use ("the newest 20 across 16 partitions" reads at most 20
  /// from each).
  std::size_t limit = 0;
};

/// Runs `make_query(pk)` for every key of `partition_keys` (each query
/// should be a row-range query on that one partition, so its results come in
/// RowKey order) and merges all results by RowKey in the service's order
/// (UTF-16 code units), ties broken by the order of `partition_keys`. With `keys::hash_spread::partition_keys` and RowKeys
/// made by `keys::inverted_ticks` this reads "the newest N" of a spread
/// append-only partition.
///
/// \tparam T          `aztables::entity` (default) or a mapped struct (mapping.hpp).
/// \param client      the table.
/// \param partition_keys the partitions to read, e.g. `spread.partition_keys(base).value()`.
/// \param make_query  `aztables::query(const std::string& partition_key)`.
/// \param options     concurrency and an overall limit.
/// \returns the merged results, or the first error (in `partition_keys`
///          order) of any query; `invalid_argument` when `concurrency` is 0.
///
/// \code
/// auto spread = aztables::keys::hash_spread::create(16).value();
/// auto newest = aztables::fan_out_query(table, spread.partition_keys("log").value(),
///     [](const std::string& pk) { return aztables::query::row_range(pk).limit(20); }, {8, 20}).value();
/// \endcode
template <class T = entity, class MakeQuery>
result<std::vector<T>> fan_out_query(const table_client& client, const std::vector<std::string>& partition_keys,
                                     MakeQuery&& make_query, fan_out_options options = {}) {
  static_assert(std::is_invocable_r_v<query, MakeQuery&, const std::string&>,
                "make_query must be callable as aztables::query(const std::string& partition_key)");
  if (options.concurrency == 0) return error::invalid_argument("fan_out_options::concurrency", "must be at least 1");
  const std::size_t n = partition_keys.size();
  std::vector<std::vector<T>> parts(n);
  std::vector<std::optional<error>> errors(n);
  std::vector<query> queries;
  queries.reserve(n);
  for (const auto& pk : partition_keys) queries.push_back(make_query(pk));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (std::size_t i; !failed.load() && (i = next.fetch_add(1)) < n;) {
      auto pager = client.template query<T>(std::move(queries[i]));
      while (!pager.done()) {
        auto page = pager.next_page();
        if (!page) {
          errors[i] = std::move(page).error();
          failed = true;
          break;
        }
        for (auto& item : page->items) parts[i].push_back(std::move(item));
      }
    }
  };
  const std::size_t threads = std::min(options.concurrency, n);
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  for (auto& e : errors)
    if (e) return std::move(*e);

  // k-way merge by (RowKey, partition index).
  auto row_key = [](T& x) -> const std::string& {
    if constexpr (std::is_same_v<T, entity>)
      return x.row_key;
    else
      return *detail::schema_of<T>().row_key(&x);
  };
  using head = std::pair<std::size_t, std::size_t>;  // (partition index, position)
  auto later = [&](const head& a, const head& b) {  // the service's key order (UTF-16 code units)
    const int c = detail::compare_keys(row_key(parts[a.first][a.second]), row_key(parts[b.first][b.second]));
    return c > 0 || (c == 0 && b.first < a.first);
  };
  std::priority_queue<head, std::vector<head>, decltype(later)> heap(later);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += parts[i].size();
    if (!parts[i].empty()) heap.push({i, 0});
  }
  if (options.limit != 0) total = std::min(total, options.limit);
  std::vector<T> out;
  out.reserve(total);
  while (!heap.empty() && out.size() < total) {
    const head h = heap.top();
    heap.pop();
    out.push_back(std::move(parts[h.first][h.second]));
    if (h.second + 1 < parts[h.first].size()) heap.push({h.first, h.second + 1});
  }
  return out;
}

AZTABLES_NAMESPACE_END
