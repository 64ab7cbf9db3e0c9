// SPDX-License-Identifier: MIT
/// \file batch.hpp
/// Entity group transactions: up to 100 actions on one partition of one
/// table, applied atomically (all or none) in one request.
///
/// ```cpp
/// aztables::batch b(client);                       // bound to one table
/// b.insert(by_id).insert(by_age);                  // same PartitionKey
/// auto r = b.submit();                             // result<batch_result>
/// if (!r) std::puts(r.error().to_string().c_str());  // "... [action 1]: ..."
/// ```
///
/// The service's rules are checked before anything is sent, each failure an
/// `invalid_argument` error naming the rule and the offending action (see
/// `batch::validate`). For any number of entities over many partitions use
/// `aztables::bulk_writer` (bulk.hpp), which is not atomic across batches.
#pragma once

#include <aztables/config.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/detail/schema.hpp>
#include <aztables/mapping.hpp>
#include <aztables/table_client.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {
/// True for a user type (not `entity`) to go through `to_entity`.
template <class T>
inline constexpr bool is_typed_entity_v = !std::is_same_v<std::decay_t<T>, entity> &&
                                          !std::is_same_v<std::decay_t<T>, entity_key>;
}  // namespace detail

/// The service's limit on actions in one entity group transaction.
inline constexpr std::size_t max_batch_actions = 100;
/// The service's limit on the size of a `$batch` request body (4 MiB).
inline constexpr std::size_t max_batch_body_bytes = std::size_t(4) * 1024 * 1024;

/// What one action of a batch does.
enum class batch_action_kind {
  insert,          ///< Insert Entity: fails (409) if the entity exists
  upsert_merge,    ///< Insert Or Merge: unconditional
  upsert_replace,  ///< Insert Or Replace: unconditional
  update_merge,    ///< Merge Entity with If-Match (an ETag or `*`)
  update_replace,  ///< Update Entity with If-Match (an ETag or `*`)
  erase,           ///< Delete Entity with If-Match (an ETag or `*`)
};

/// A short stable name for an action kind ("insert", "update_merge", ...).
inline const char* to_string(batch_action_kind k) noexcept {
  switch (k) {
    case batch_action_kind::insert: return "insert";
    case batch_action_kind::upsert_merge: return "upsert_merge";
    case batch_action_kind::upsert_replace: return "upsert_replace";
    case batch_action_kind::update_merge: return "update_merge";
    case batch_action_kind::update_replace: return "update_replace";
    case batch_action_kind::erase: return "erase";
  }
  return "unknown";
}

/// One action as added to a batch. For `erase`, only the entity's keys and
/// `etag` are used.
struct batch_action {
  batch_action_kind kind = batch_action_kind::insert;  ///< what the action does
  aztables::entity entity;                              ///< the entity (keys and ETag for `erase`)
};

/// The outcome of one action of a committed batch.
struct batch_action_result {
  batch_action_kind kind = batch_action_kind::insert;  ///< the action's kind
  int status = 0;       ///< the action's HTTP status (201 or 204)
  aztables::etag etag;  ///< the entity's new ETag; empty for `erase`
};

/// A committed batch: one result per action, in the order they were added.
struct batch_result {
  std::vector<batch_action_result> actions;  ///< one per action, in the order added
  std::string request_id;  ///< x-ms-request-id of the `$batch` response
  /// The batch was retried after an attempt whose answer was lost, the retry
  /// failed on an action that conflicts with that attempt (409, 412, 404),
  /// and reading every entity back showed all actions applied (README
  /// "Retries"). The ETags are then the ones read back.
  bool verified_after_retry = false;
};

namespace detail {
/// The action-adding half shared by `batch` and `bulk_writer` (CRTP: every
/// adder returns the derived object for chaining). Holds the actions and the
/// errors found while adding them (a typed struct that does not convert).
template <class Derived>
class action_list {
 public:
  /// Adds an Insert: fails with `conflict` (EntityAlreadyExists) if the
  /// entity exists.
  Derived& insert(entity e) { return add(batch_action_kind::insert, std::move(e)); }
  /// Adds an unconditional upsert (merge: Insert Or Merge; replace: Insert Or
  /// Replace).
  Derived& upsert(entity e, update_mode mode = update_mode::merge) {
    return add(mode == update_mode::merge ? batch_action_kind::upsert_merge : batch_action_kind::upsert_replace,
               std::move(e));
  }
  /// Adds an update of an existing entity, sent with `If-Match: e.etag`
  /// (`etag::any()` for `*`). An empty ETag is an `invalid_argument` error
  /// when sent: say which version you mean.
  Derived& update(entity e, update_mode mode = update_mode::merge) {
    return add(mode == update_mode::merge ? batch_action_kind::update_merge : batch_action_kind::update_replace,
               std::move(e));
  }
  /// Adds a delete of `key` with `If-Match: match` (`etag::any()` for `*`).
  Derived& erase(const entity_key& key, const etag& match) {
    entity e(key.partition_key, key.row_key);
    e.etag = match;
    return add(batch_action_kind::erase, std::move(e));
  }

  /// Typed forms: a mapped struct (see mapping.hpp) is converted with
  /// `to_entity`; its mapped ETag member (if any) is the If-Match of
  /// `update` and `erase`. A conversion error is reported for that action
  /// when the actions are sent.
  template <class T, std::enable_if_t<is_typed_entity_v<T>, int> = 0>
  Derived& insert(const T& obj) {
    return add_typed(batch_action_kind::insert, obj);
  }
  /// Typed upsert (see the typed `insert`).
  template <class T, std::enable_if_t<is_typed_entity_v<T>, int> = 0>
  Derived& upsert(const T& obj, update_mode mode = update_mode::merge) {
    return add_typed(mode == update_mode::merge ? batch_action_kind::upsert_merge : batch_action_kind::upsert_replace,
                     obj);
  }
  /// Typed update, If-Match: the mapped ETag member (see the typed `insert`).
  template <class T, std::enable_if_t<is_typed_entity_v<T>, int> = 0>
  Derived& update(const T& obj, update_mode mode = update_mode::merge) {
    return add_typed(mode == update_mode::merge ? batch_action_kind::update_merge : batch_action_kind::update_replace,
                     obj);
  }
  /// Typed delete of `obj`'s keys, If-Match: its mapped ETag member.
  template <class T, std::enable_if_t<is_typed_entity_v<T>, int> = 0>
  Derived& erase(const T& obj) {
    return add_typed(batch_action_kind::erase, obj);
  }

  /// Number of actions added (for `bulk_writer`: since the last `write()`).
  std::size_t size() const noexcept { return actions_.size(); }
  /// True when no action was added.
  bool empty() const noexcept { return actions_.empty(); }
  /// The actions, in the order added.
  const std::vector<batch_action>& actions() const noexcept { return actions_; }
  /// Removes every action without sending it.
  void clear() noexcept {
    actions_.clear();
    deferred_.clear();
  }

 protected:
  Derived& add(batch_action_kind k, entity e) {
    actions_.push_back(batch_action{k, std::move(e)});
    return static_cast<Derived&>(*this);
  }
  template <class T>
  Derived& add_typed(batch_action_kind k, const T& obj) {
    result<entity> e = to_entity(obj);
    if (!e) {
      deferred_.emplace_back(actions_.size(), std::move(e).error());
      return add(k, entity());
    }
    if (k == batch_action_kind::erase) e->clear();
    return add(k, std::move(*e));
  }

  std::vector<batch_action> actions_;
  std::vector<std::pair<std::size_t, error>> deferred_;  // errors found while adding (typed mapping), by index
};
}  // namespace detail

/// Options of a batch.
struct batch_options {
  /// Source of the ids in the multipart boundaries (`batch_<id>`,
  /// `changeset_<id>`), called twice per submit; null: random version-4 GUIDs.
  /// Tests inject fixed ids to pin the exact bytes.
  std::function<guid()> new_guid;
};

/// An entity group transaction on the table of one `table_client` (so "one
/// table" holds by construction). Add actions, then `submit()`. A batch is a
/// plain value: not thread-safe; `submit()` does not change it.
class batch : public detail::action_list<batch> {
 public:
  /// An empty batch on `client`'s table.
  explicit batch(table_client client, batch_options options = {})
      : client_(std::move(client)), opt_(std::move(options)) {}

  /// The client (and so the table) this batch is bound to.
  const table_client& client() const noexcept { return client_; }

  /// Checks the batch without sending it. Each failure is an
  /// `invalid_argument` error whose message names the rule and, where one
  /// action is at fault, `action_index` says which (0-based):
  /// - not empty; at most 100 actions (index: the 101st);
  /// - every entity valid (keys, property names and values, 255 properties,
  ///   1 MiB), an ETag or `*` on every update and erase;
  /// - one PartitionKey (index: the first action with another one);
  /// - each RowKey at most once (index: the repeat);
  /// - the request body at most 4 MiB (index: the first action that does not fit).
  /// The table name is checked too.
  AZTABLES_DECL result<void> validate() const;

  /// Checks the batch (as `validate`), then sends it as one `$batch`
  /// request. On success: one result per action, in order. On failure
  /// nothing was applied and the error carries the service's status, code
  /// and message, and `action_index` of the failing action when the service
  /// names it (it does for every per-action failure). Checks failing before
  /// sending are `invalid_argument`.
  AZTABLES_DECL result<batch_result> submit() const;

 private:
  table_client client_;
  batch_options opt_;
};

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/batch.ipp>
#endif
