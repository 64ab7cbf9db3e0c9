// SPDX-License-Identifier: MIT
// Definitions of aztables::batch (inline in header-only mode, compiled once
// by <aztables/src.hpp> in separate-compilation mode).
#pragma once

#include <aztables/batch.hpp>
#include <aztables/detail/per_thread.hpp>
#include <aztables/detail/batch_verify.hpp>
#include <aztables/detail/client_core.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/multipart.hpp>
#include <aztables/detail/url.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// A random version-4 GUID (boundary ids only: not a secret, no CSPRNG needed).
inline guid random_guid() {
  struct engine {
    std::mt19937_64 gen{[] {
      std::random_device rd;
      std::seed_seq seq{rd(), rd(), rd(), rd(),
                        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()),
                        static_cast<unsigned>(std::hash<std::thread::id>()(std::this_thread::get_id()))};
      return std::mt19937_64(seq);
    }()};
  };
  std::mt19937_64& gen = per_thread<engine>().gen;
  std::array<std::uint8_t, 16> b{};
  for (int half = 0; half < 2; ++half) {
    std::uint64_t v = gen();
    for (int k = 0; k < 8; ++k) b[static_cast<std::size_t>(half * 8 + k)] = static_cast<std::uint8_t>(v >> (8 * k));
  }
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
  return guid(b);
}

/// Where a batch goes: the table and its absolute URL prefix.
struct batch_target {
  const client_core* core = nullptr;
  std::string table;
  std::string table_url;  ///< absolute URL of the table (sub-request URLs are absolute)
  bool cosmos = false;

  batch_target(const client_core& c, std::string t)
      : core(&c), table(std::move(t)), table_url(c.url_for(table)), cosmos(c.cosmos()) {}
};

/// The boundary strings of one batch ("batch_<guid>", "changeset_<guid>").
struct batch_boundaries {
  std::string batch;
  std::string changeset;
};

inline batch_boundaries make_boundaries(const std::function<guid()>& new_guid) {
  batch_boundaries b;
  b.batch = "batch_" + (new_guid ? new_guid() : random_guid()).to_string();
  b.changeset = "changeset_" + (new_guid ? new_guid() : random_guid()).to_string();
  return b;
}

/// Prefixes an error about one action with the action's index and kind and
/// records the index.
inline error action_error(error e, std::size_t index, batch_action_kind kind) {
  e.message = "action " + std::to_string(index) + " (" + to_string(kind) + ") " + e.message;
  e.action_index = index;
  return e;
}

/// Validates one action and appends its changeset part to `out`. On an error
/// `out` is left as it was and the error (without the action index) is
/// returned.
inline std::optional<error> append_action_part(std::string& out, std::string_view changeset, const batch_target& t,
                                               const batch_action& a) {
  const entity& e = a.entity;
  const bool is_merge = a.kind == batch_action_kind::upsert_merge || a.kind == batch_action_kind::update_merge;
  const bool conditional = a.kind == batch_action_kind::update_merge || a.kind == batch_action_kind::update_replace ||
                           a.kind == batch_action_kind::erase;
  if (conditional && e.etag.empty())
    return error::invalid_argument("etag", a.kind == batch_action_kind::erase
                                               ? "delete needs the entity's ETag or etag::any() for an unconditional delete"
                                               : "update needs the entity's ETag (from a read) or etag::any() for an "
                                                 "unconditional update");
  if (conditional) {
    // An ETag goes into a header line: it must not break the line.
    for (char c : e.etag.str())
      if (c == '\r' || c == '\n' || c == '\0')
        return error::invalid_argument("etag", "contains a line break or NUL; use the ETag exactly as the service sent it");
  }
  if (a.kind == batch_action_kind::erase) {
    if (auto err = check_key("PartitionKey", e.partition_key)) return err;
    if (auto err = check_key("RowKey", e.row_key)) return err;
  }
  const std::size_t mark = out.size();
  std::string_view method;
  switch (a.kind) {
    case batch_action_kind::insert: method = "POST"; break;
    case batch_action_kind::upsert_merge:
    case batch_action_kind::update_merge: method = t.cosmos ? "POST" : "MERGE"; break;
    case batch_action_kind::upsert_replace:
    case batch_action_kind::update_replace: method = "PUT"; break;
    case batch_action_kind::erase: method = "DELETE"; break;
  }
  // The sub-request URL and header lines, built in reused per-thread buffers.
  struct buffers {
    std::string url, headers;
  };
  buffers& buf = per_thread<buffers>();
  std::string& url_buffer = buf.url;
  std::string& headers = buf.headers;
  std::string_view url = t.table_url;
  if (a.kind != batch_action_kind::insert) {
    url_buffer = t.table_url;
    url_buffer += "(PartitionKey='";
    append_key_literal(url_buffer, e.partition_key);
    url_buffer += "',RowKey='";
    append_key_literal(url_buffer, e.row_key);
    url_buffer += "')";
    url = url_buffer;
  }
  headers = "Accept: application/json;odata=minimalmetadata\r\n";
  if (a.kind != batch_action_kind::erase) headers += "Content-Type: application/json\r\n";
  if (a.kind == batch_action_kind::insert) headers += "Prefer: return-no-content\r\n";
  if (conditional) {
    headers += "If-Match: ";
    headers += e.etag.str();
    headers += "\r\n";
  }
  if (is_merge && t.cosmos) headers += "X-HTTP-Method: MERGE\r\n";
  headers += "DataServiceVersion: 3.0;\r\n";
  append_changeset_part_head(out, changeset, method, url, headers);
  if (a.kind != batch_action_kind::erase) {
    if (auto err = append_entity_json(out, e)) {
      out.resize(mark);
      return err;
    }
  }
  out += "\r\n";
  return std::nullopt;
}

/// Shortens a key for an error message.
inline std::string show_key(std::string_view k) {
  return "'" + std::string(k.substr(0, 64)) + (k.size() > 64 ? "...'" : "'");
}

/// Checks every rule and builds the `$batch` body (one buffer).
inline result<std::string> build_batch_body(const batch_target& t, const std::vector<batch_action>& actions,
                                            const std::vector<std::pair<std::size_t, error>>& deferred,
                                            const batch_boundaries& b) {
  if (auto r = validate_table_name(t.table); !r) return std::move(r).error();
  if (actions.empty()) return error::invalid_argument("batch", "has no actions; add at least one");
  if (actions.size() > max_batch_actions) {
    error e = error::invalid_argument("batch", "has " + std::to_string(actions.size()) +
                                                   " actions; an entity group transaction allows at most 100");
    e.action_index = max_batch_actions;
    return e;
  }
  std::string end;
  append_batch_end(end, b.batch, b.changeset);
  std::string out;
  std::size_t estimate = 256;
  for (const auto& a : actions)
    estimate += 400 + t.table_url.size() + 4 * (a.entity.partition_key.size() + a.entity.row_key.size()) +
                entity_json_size_estimate(a.entity);
  out.reserve(std::min(estimate, max_batch_body_bytes + 65536));
  append_batch_start(out, b.batch, b.changeset);
  // RowKeys seen so far: open addressing over at most 100 actions, index + 1
  // per slot (0 = empty), so the duplicate check allocates nothing.
  std::array<std::uint8_t, 256> row_key_slots{};
  static_assert(max_batch_actions < 256 && max_batch_actions * 2 <= 256, "row_key_slots holds every action");
  const std::string& pk0 = actions.front().entity.partition_key;
  std::size_t next_deferred = 0;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const batch_action& a = actions[i];
    while (next_deferred < deferred.size() && deferred[next_deferred].first < i) ++next_deferred;
    if (next_deferred < deferred.size() && deferred[next_deferred].first == i)
      return action_error(deferred[next_deferred].second, i, a.kind);
    if (auto err = append_action_part(out, b.changeset, t, a)) return action_error(std::move(*err), i, a.kind);
    if (a.entity.partition_key != pk0)
      return action_error(error::invalid_argument("PartitionKey", "is " + show_key(a.entity.partition_key) +
                                                                      " but action 0's is " + show_key(pk0) +
                                                                      ": all actions of a batch must share one "
                                                                      "PartitionKey"),
                          i, a.kind);
    std::size_t slot = std::hash<std::string_view>()(a.entity.row_key) & (row_key_slots.size() - 1);
    while (row_key_slots[slot] != 0) {
      const std::size_t seen = row_key_slots[slot] - 1u;
      if (actions[seen].entity.row_key == a.entity.row_key)
        return action_error(error::invalid_argument("RowKey", show_key(a.entity.row_key) + " is already used by action " +
                                                                  std::to_string(seen) +
                                                                  ": a batch may act on each entity only once"),
                            i, a.kind);
      slot = (slot + 1) & (row_key_slots.size() - 1);
    }
    row_key_slots[slot] = static_cast<std::uint8_t>(i + 1);
    if (out.size() + end.size() > max_batch_body_bytes)
      return action_error(error::invalid_argument("batch body", "would exceed the 4 MiB limit (4194304 bytes) with "
                                                                "this action; split the batch"),
                          i, a.kind);
  }
  out += end;
  return out;
}

/// Reads a leading "N:" (the failing action's 0-based index, as the service
/// and Azurite write it) off an error message.
inline std::optional<std::size_t> take_index_prefix(std::string& message) {
  std::size_t i = 0, v = 0;
  while (i < message.size() && i < 6 && message[i] >= '0' && message[i] <= '9') v = v * 10 + static_cast<std::size_t>(message[i++] - '0');
  if (i == 0 || i >= message.size() || message[i] != ':') return std::nullopt;
  message.erase(0, i + 1);
  return v;
}

/// Sets `e.action_index` from the message prefix, else from a `Content-ID`
/// (1-based; Azurite adds one to the failing part), when it is in range.
inline void attach_action_index(error& e, std::size_t actions, const http_headers* part_headers) {
  std::optional<std::size_t> idx = take_index_prefix(e.message);
  if (!idx && part_headers) {
    std::string_view id = part_headers->get("Content-ID");
    std::size_t v = 0;
    bool ok = !id.empty() && id.size() < 7;
    for (char c : id) {
      if (c < '0' || c > '9') ok = false;
      else v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    if (ok && v >= 1) idx = v - 1;
  }
  if (idx && *idx < actions) e.action_index = *idx;
}

/// Turns a 2xx `$batch` response into per-action results or the error it
/// holds. Never reports success unless every action has a 2xx part.
inline result<batch_result> read_batch_response(http_response& r, const std::vector<batch_action>& actions) {
  const std::string request_id(r.headers.get("x-ms-request-id"));
  auto parts = parse_batch_response(r.headers.get("Content-Type"), r.body);
  if (!parts) {
    error e = std::move(parts).error();
    e.http_status = r.status;
    e.request_id = request_id;
    return e;
  }
  for (auto& p : *parts) {
    if (p.status >= 200 && p.status < 300) continue;
    error e;
    e.http_status = p.status;
    e.code = errc_from_status(p.status);
    e.request_id = request_id;
    std::string body_code;
    parse_error_body(p.body, body_code, e.message);
    if (const std::string* c = p.headers.find("x-ms-error-code")) e.service_code = *c;
    if (e.service_code.empty()) e.service_code = std::move(body_code);
    attach_action_index(e, actions.size(), &p.headers);
    if (e.message.empty()) e.message = "batch action failed with HTTP " + std::to_string(p.status) + " and no error description";
    e.message = redact(std::move(e.message));
    return e;
  }
  if (parts->size() != actions.size()) {
    error e = error::make(errc::invalid_response, "$batch response holds " + std::to_string(parts->size()) +
                                                      " results for " + std::to_string(actions.size()) +
                                                      " actions; whether the batch was applied is unknown");
    e.http_status = r.status;
    e.request_id = request_id;
    return e;
  }
  batch_result out;
  out.request_id = request_id;
  out.actions.reserve(actions.size());
  for (std::size_t i = 0; i < actions.size(); ++i) {
    batch_action_result a;
    a.kind = actions[i].kind;
    a.status = (*parts)[i].status;
    if (const std::string* tag = (*parts)[i].headers.find("ETag")) a.etag = etag(*tag);
    out.actions.push_back(std::move(a));
  }
  return out;
}

/// True when repeating the batch cannot change the outcome: upserts only.
inline bool batch_is_idempotent(const std::vector<batch_action>& actions) {
  for (const auto& a : actions)
    if (a.kind != batch_action_kind::upsert_merge && a.kind != batch_action_kind::upsert_replace) return false;
  return true;
}

}  // namespace detail

AZTABLES_DECL result<void> batch::validate() const {
  detail::batch_target t(*client_.core(), client_.name());
  auto body = detail::build_batch_body(t, actions_, deferred_, detail::make_boundaries(opt_.new_guid));
  if (!body) return std::move(body).error();
  return {};
}

AZTABLES_DECL result<batch_result> batch::submit() const {
  detail::client_core& core = *client_.core();
  detail::batch_target t(core, client_.name());
  const detail::batch_boundaries b = detail::make_boundaries(opt_.new_guid);
  auto body = detail::build_batch_body(t, actions_, deferred_, b);
  if (!body) return std::move(body).error();
  const std::string content_type = "multipart/mixed; boundary=" + b.batch;
  detail::request_spec spec;
  spec.method = "POST";
  spec.path = "$batch";
  spec.content_type = content_type;
  spec.body = std::move(*body);
  detail::execute_info info;
  auto r = core.execute({"batch", detail::batch_is_idempotent(actions_)}, spec, &info);
  if (!r) {
    error e = std::move(r).error();
    if (e.http_status != 0) detail::attach_action_index(e, actions_.size(), nullptr);
    return e;
  }
  auto out = detail::read_batch_response(*r, actions_);
  if (!out) core.scrub(out.error());  // a part may echo the request: no secrets in the error
  // A conflict after an attempt that may have applied the batch: verify (detail/batch_verify.hpp).
  if (!out && info.earlier_may_have_applied &&
      (out.error().code == errc::conflict || out.error().code == errc::precondition_failed ||
       out.error().code == errc::not_found))
    return detail::verify_batch(client_, actions_, std::move(out).error());
  return out;
}

AZTABLES_NAMESPACE_END
