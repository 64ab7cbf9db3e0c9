// SPDX-License-Identifier: MIT
/// \file table_client.hpp
/// Entity operations on one table: insert, upsert, update, delete, get.
#pragma once

#include <aztables/config.hpp>
#include <aztables/credentials.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/options.hpp>
#include <aztables/detail/schema.hpp>
#include <aztables/mapping.hpp>
#include <aztables/query.hpp>

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

  // ---- typed entities (a struct mapped with aztables::entity_traits, see
  // mapping.hpp). Each converts and calls the entity overload above. After a
  // successful write to a non-const object whose mapping has an ETag member,
  // that member holds the new ETag (a const object or a temporary is left as
  // it is; the new ETag is in the returned write_result either way).

  /// Inserts `obj` (see insert(const entity&)).
  template <class T, detail::enable_if_typed_t<T> = 0>
  result<write_result> insert(T&& obj) {
    auto e = to_entity(obj);
    if (!e) return std::move(e).error();
    return refresh_etag(std::forward<T>(obj), insert(*e));
  }
  /// Inserts or updates `obj`, unconditionally (see upsert(const entity&, update_mode)).
  template <class T, detail::enable_if_typed_t<T> = 0>
  result<write_result> upsert(T&& obj, update_mode mode = update_mode::merge) {
    auto e = to_entity(obj);
    if (!e) return std::move(e).error();
    return refresh_etag(std::forward<T>(obj), upsert(*e, mode));
  }
  /// Updates `obj` if its ETag member matches the stored version. A type
  /// whose mapping has no ETag member updates unconditionally (`*`); with
  /// one, the member must be set (from a read or write, or `etag::any()`).
  template <class T, detail::enable_if_typed_t<T> = 0>
  result<write_result> update(T&& obj, update_mode mode = update_mode::merge) {
    auto e = to_entity(obj);
    if (!e) return std::move(e).error();
    if (!detail::schema_of<detail::remove_cvref_t<T>>().etag) e->etag = etag::any();
    return refresh_etag(std::forward<T>(obj), update(*e, mode));
  }
  /// Deletes the entity with `obj`'s keys if its ETag member matches (no ETag
  /// member: unconditionally).
  template <class T, detail::enable_if_typed_t<T> = 0>
  result<void> erase(const T& obj) {
    const detail::entity_schema& s = detail::schema_of<T>();
    void* o = const_cast<T*>(&obj);  // read only
    return erase(entity_key{*s.partition_key(o), *s.row_key(o)}, s.etag ? *s.etag(o) : etag::any());
  }
  /// Reads one entity into a `T` (a point read selecting the mapped
  /// properties); an empty optional when it does not exist. `mapping` error
  /// when the stored entity does not fit `T`.
  template <class T>
  result<std::optional<T>> get(const entity_key& key) {
    std::optional<T> out(std::in_place);
    auto r = detail::get_typed(*core_, table_, key, detail::schema_of<T>(), &*out);
    if (!r) return std::move(r).error();
    if (!*r) out.reset();
    return out;
  }
  /// Runs a query (see query.hpp): `query()` or `query<aztables::entity>()`
  /// reads dynamic entities, `query<T>()` a mapped struct. Nothing is sent
  /// until the pager is used.
  template <class T = entity>
  pager<T> query(aztables::query q) const {
    return pager<T>(core_, table_, std::move(q));
  }

  /// A client for the same table with another retry policy: for one call
  /// (`orders.with_retry(careful).insert(e)`) or a group of them. Shares this
  /// client's connections and credential; cheap, but not free (copy it when
  /// used in a loop). The policy is checked when a call is made.
  AZTABLES_DECL table_client with_retry(retry_options retry) const;
  /// This client's retry policy (copy it, change a field, pass it to `with_retry`).
  AZTABLES_DECL const retry_options& retry_policy() const noexcept;

  /// The shared core (for the query, batch and bulk layers).
  const std::shared_ptr<detail::client_core>& core() const noexcept { return core_; }

  /// Internal: made by service_client::table and the factories above.
  table_client(std::shared_ptr<detail::client_core> core, std::string table)
      : core_(std::move(core)), table_(std::move(table)) {}

 private:
  template <class T>
  static result<write_result> refresh_etag(T&& obj, result<write_result> r) {
    using U = std::remove_reference_t<T>;
    if constexpr (std::is_lvalue_reference_v<T> && !std::is_const_v<U>) {
      const detail::entity_schema& s = detail::schema_of<std::remove_cv_t<U>>();
      if (r && s.etag) *s.etag(&obj) = r->etag;
    }
    (void)obj;
    return r;
  }

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
