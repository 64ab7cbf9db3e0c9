// SPDX-License-Identifier: MIT
#pragma once

#include <aztables/detail/client_core.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/write_verify.hpp>
#include <aztables/table_client.hpp>

AZTABLES_NAMESPACE_BEGIN

namespace detail {

inline write_result write_result_from(const http_response& r) {
  write_result w;
  if (const std::string* e = r.headers.find("ETag")) w.etag = etag(*e);
  return w;
}

inline std::optional<error> check_keys(const entity_key& k) {
  if (auto e = check_key("PartitionKey", k.partition_key)) return e;
  return check_key("RowKey", k.row_key);
}

/// "$select=a,b" after validating each name (system names allowed here).
inline result<std::string> select_query(const select_list& select) {
  std::string q;
  for (const auto& n : select) {
    if (n != "PartitionKey" && n != "RowKey" && n != "Timestamp")
      if (auto e = check_property_name(n)) return std::move(*e);
    q += q.empty() ? "$select=" : ",";
    percent_encode_to(q, n);  // non-ASCII letters are allowed in names
  }
  return q;
}

}  // namespace detail

AZTABLES_DECL result<void> validate_table_name(std::string_view name) {
  auto bad = [&](const char* rule) {
    return error::invalid_argument("table name '" + detail::printable_name(name) + "'", rule);
  };
  if (name.size() < 3 || name.size() > 63) return bad("must be 3 to 63 characters long");
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (!alpha(name[0])) return bad("must start with a letter");
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return bad("may contain only letters and digits");
  if (http_headers::iequals(name, "tables")) return bad("is reserved");
  return {};
}

namespace detail {
/// The table name of a table_client, checked before each request (the name
/// goes into the URL path; service_client::table() cannot report an error).
inline std::optional<error> check_table(const std::string& name) {
  auto v = validate_table_name(name);
  if (!v) return std::move(v).error();
  return std::nullopt;
}
}  // namespace detail

AZTABLES_DECL result<write_result> table_client::insert(const entity& e) {
  if (auto err = detail::check_table(table_)) return std::move(*err);
  detail::request_spec spec;
  spec.method = "POST";
  spec.path = table_;
  spec.content_type = "application/json";
  spec.body.reserve(256);
  if (auto err = detail::append_entity_json(spec.body, e)) return std::move(*err);
  spec.headers.add("Prefer", "return-no-content");
  auto r = core_->execute({"insert", false}, spec);
  if (!r) {
    // 409 after an attempt that may have inserted it: read back and compare (README "Retries").
    if (r.error().code == errc::conflict && r.error().may_have_applied)
      return detail::verify_write(*this, e, detail::verify_mode::equal, std::move(r).error());
    return std::move(r).error();
  }
  return detail::write_result_from(*r);
}

AZTABLES_DECL result<write_result> table_client::upsert(const entity& e, update_mode mode) {
  if (auto err = detail::check_table(table_)) return std::move(*err);
  detail::request_spec spec;
  spec.method = mode == update_mode::merge ? "MERGE" : "PUT";
  spec.path = detail::entity_path(table_, e.partition_key, e.row_key);
  spec.content_type = "application/json";
  if (auto err = detail::append_entity_json(spec.body, e)) return std::move(*err);
  auto r = core_->execute({mode == update_mode::merge ? "upsert_merge" : "upsert_replace", true}, spec);
  if (!r) return std::move(r).error();
  return detail::write_result_from(*r);
}

AZTABLES_DECL result<write_result> table_client::update(const entity& e, update_mode mode) {
  if (auto err = detail::check_table(table_)) return std::move(*err);
  if (e.etag.empty())
    return error::invalid_argument("etag", "update needs the entity's ETag (from a read) or etag::any() for an "
                                           "unconditional update");
  detail::request_spec spec;
  spec.method = mode == update_mode::merge ? "MERGE" : "PUT";
  spec.path = detail::entity_path(table_, e.partition_key, e.row_key);
  spec.content_type = "application/json";
  if (auto err = detail::append_entity_json(spec.body, e)) return std::move(*err);
  spec.headers.add("If-Match", e.etag.str());
  auto r = core_->execute({mode == update_mode::merge ? "update_merge" : "update_replace", true}, spec);
  if (!r) {
    // 412 after an attempt that may have applied it (the ETag moved on): read back and compare.
    if (r.error().code == errc::precondition_failed && r.error().may_have_applied)
      return detail::verify_write(*this, e,
                                  mode == update_mode::merge ? detail::verify_mode::contains : detail::verify_mode::equal,
                                  std::move(r).error());
    return std::move(r).error();
  }
  return detail::write_result_from(*r);
}

AZTABLES_DECL result<void> table_client::erase(const entity_key& key, const etag& match) {
  if (auto err = detail::check_table(table_)) return std::move(*err);
  if (auto err = detail::check_keys(key)) return std::move(*err);
  if (match.empty())
    return error::invalid_argument("etag", "delete needs the entity's ETag or etag::any() for an unconditional delete");
  detail::request_spec spec;
  spec.method = "DELETE";
  spec.path = detail::entity_path(table_, key.partition_key, key.row_key);
  spec.headers.add("If-Match", match.str());
  auto r = core_->execute({"delete", true}, spec);
  if (!r) {
    // 404 after an attempt that may have deleted it: cannot be told apart from "was never there"
    // (README "Retries"); reported as not_found with may_have_applied set.
    if (r.error().code == errc::not_found && r.error().may_have_applied)
      r.error().message += " (an earlier attempt of this delete got no answer and may have deleted it)";
    return std::move(r).error();
  }
  return {};
}

AZTABLES_DECL table_client table_client::with_retry(retry_options retry) const {
  return table_client(core_->with_retry(std::move(retry)), table_);
}

AZTABLES_DECL const retry_options& table_client::retry_policy() const noexcept { return core_->options().retry; }

AZTABLES_DECL result<std::optional<entity>> table_client::get(const entity_key& key, const select_list& select) {
  if (auto err = detail::check_table(table_)) return std::move(*err);
  if (auto err = detail::check_keys(key)) return std::move(*err);
  auto q = detail::select_query(select);
  if (!q) return std::move(q).error();
  detail::request_spec spec;
  spec.method = "GET";
  spec.path = detail::entity_path(table_, key.partition_key, key.row_key);
  spec.query = std::move(*q);
  auto r = core_->execute({"get", true}, spec);
  if (!r) {
    if (r.error().code == errc::not_found && r.error().service_code == "ResourceNotFound") return std::optional<entity>();
    return std::move(r).error();
  }
  auto e = detail::parse_entity(r->body);
  if (!e) return std::move(e).error();
  if (const std::string* tag = r->headers.find("ETag")) e->etag = etag(*tag);
  // With $select the service may omit the keys; the caller asked for this one.
  if (e->partition_key.empty()) e->partition_key = key.partition_key;
  if (e->row_key.empty()) e->row_key = key.row_key;
  return std::optional<entity>(std::move(*e));
}

AZTABLES_NAMESPACE_END
