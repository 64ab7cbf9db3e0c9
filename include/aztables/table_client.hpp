// SPDX-License-Identifier: MIT
/// \file table_client.hpp
/// Entity operations on one table: insert, upsert, update, delete, get.
#pragma once

#include <aztables/config.hpp>
#include <aztables/credentials.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/options.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {
class client_core;
}

/// How an update or upsert treats properties the entity does not name.
enum class update_mode {
  merge,    ///< keep them (InsertOrMerge / Merge)
  replace,  ///< drop them: the entity replaces the stored one whole
};

/// What a write returns.
struct write_result {
  aztables::etag etag;  ///< the entity's new ETag
  /// The write was retried after an attempt whose answer was lost, the retry
  /// was answered 409 (insert) or 412 (update with an ETag), and reading the
  /// entity back showed exactly what was sent: the write is in place (README
  /// "Retries"). `etag` is then the one read back.
  bool verified_after_retry = false;
};

/// Property names to return (`$select`); empty means all properties.
using select_list = std::vector<std::string>;

/// A client for one table. Cheap to copy (copies share the connection pool);
/// safe to use from several threads.
class table_client {
 public:
  /// A client from a connection string and a table name.
  static AZTABLES_DECL result<table_client> from_connection_string(std::string_view connection_string,
                                                                   std::string_view table, client_options options = {});
  /// A client for an endpoint URL, a credential and a table name.
  static AZTABLES_DECL result<table_client> create(std::string_view endpoint, credential cred, std::string_view table,
                                                   client_options options = {});

  /// The table's name.
  const std::string& name() const noexcept { return table_; }

  /// Inserts a new entity; `conflict` (EntityAlreadyExists) if one with the
  /// same keys exists.
  AZTABLES_DECL result<write_result> insert(const entity& e);
  /// Inserts or updates (merge: InsertOrMerge, replace: InsertOrReplace);
  /// unconditional.
  AZTABLES_DECL result<write_result> upsert(const entity& e, update_mode mode = update_mode::merge);
  /// Updates an existing entity if its ETag matches `e.etag` (use
  /// `etag::any()` for an unconditional update). `precondition_failed` on a
  /// mismatch, `not_found` if there is no such entity. An empty `e.etag` is an
  /// `invalid_argument` error: say which version you mean.
  AZTABLES_DECL result<write_result> update(const entity& e, update_mode mode = update_mode::merge);
  /// Deletes an entity if its ETag matches `match` (`etag::any()`: any version).
  AZTABLES_DECL result<void> erase(const entity_key& key, const etag& match);
  /// Reads one entity (a point query); an empty optional when it does not
  /// exist. `select` limits the properties returned.
  AZTABLES_DECL result<std::optional<entity>> get(const entity_key& key, const select_list& select = {});

  /// A client for the same table with another retry policy: for one call
  /// (`orders.with_retry(careful).insert(e)`) or a group of them. Shares this
  /// client's connections and credential; cheap, but not free (copy it when
  /// used in a loop). The policy is checked when a call is made.
  AZTABLES_DECL table_client with_retry(retry_options retry) const;
  /// This client's retry policy (copy it, change a field, pass it to `with_retry`).
  AZTABLES_DECL const retry_options& retry_policy() const noexcept;

  /// The shared core (for the query, batch and bulk layers).
  const std::shared_ptr<detail::client_core>& core() const noexcept { return core_; }

  table_client(std::shared_ptr<detail::client_core> core, std::string table)
      : core_(std::move(core)), table_(std::move(table)) {}

 private:
  std::shared_ptr<detail::client_core> core_;
  std::string table_;
};

/// Checks a table name: 3-63 characters, a letter then letters or digits,
/// not "tables". Returns the `invalid_argument` error, or success.
AZTABLES_DECL result<void> validate_table_name(std::string_view name);

AZTABLES_NAMESPACE_END

// The factories are defined with service_client; make them available to a
// user who includes only this header.
#include <aztables/service_client.hpp>

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/table_client.ipp>
#endif
