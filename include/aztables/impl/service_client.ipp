// SPDX-License-Identifier: MIT
#pragma once

#include <aztables/detail/client_core.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/service_client.hpp>

AZTABLES_NAMESPACE_BEGIN

AZTABLES_DECL result<service_client> service_client::from_connection_string(std::string_view cs, client_options options) {
  auto cfg = parse_connection_string(cs);
  if (!cfg) return std::move(cfg).error();
  return create(cfg->table_endpoint, std::move(cfg->credential), std::move(options));
}

AZTABLES_DECL result<service_client> service_client::create(std::string_view endpoint, credential cred,
                                                            client_options options) {
  auto core = detail::client_core::create(endpoint, std::move(cred), std::move(options));
  if (!core) return std::move(core).error();
  return service_client(std::move(*core));
}

AZTABLES_DECL result<table_client> table_client::from_connection_string(std::string_view cs, std::string_view table,
                                                                        client_options options) {
  auto svc = service_client::from_connection_string(cs, std::move(options));
  if (!svc) return std::move(svc).error();
  if (auto v = validate_table_name(table); !v) return std::move(v).error();
  return svc->table(table);
}

AZTABLES_DECL result<table_client> table_client::create(std::string_view endpoint, credential cred,
                                                        std::string_view table, client_options options) {
  auto svc = service_client::create(endpoint, std::move(cred), std::move(options));
  if (!svc) return std::move(svc).error();
  if (auto v = validate_table_name(table); !v) return std::move(v).error();
  return svc->table(table);
}

AZTABLES_DECL std::string service_client::endpoint() const { return core_->ep().base_url(); }

AZTABLES_DECL table_client service_client::table(std::string_view name) const {
  return table_client(core_, std::string(name));
}

AZTABLES_DECL result<void> service_client::create_table(std::string_view name) {
  if (auto v = validate_table_name(name); !v) return v;
  detail::request_spec spec;
  spec.method = "POST";
  spec.path = "Tables";
  spec.content_type = "application/json";
  spec.body = "{\"TableName\":";
  detail::append_json_string(spec.body, name);
  spec.body += '}';
  spec.headers.add("Prefer", "return-no-content");
  auto r = core_->execute({"create_table", false}, spec);
  if (!r) return std::move(r).error();
  return {};
}

AZTABLES_DECL result<bool> service_client::create_table_if_not_exists(std::string_view name) {
  auto r = create_table(name);
  if (r) return true;
  if (r.error().code == errc::conflict && r.error().service_code == "TableAlreadyExists") return false;
  return std::move(r).error();
}

AZTABLES_DECL result<void> service_client::delete_table(std::string_view name) {
  if (auto v = validate_table_name(name); !v) return v;
  detail::request_spec spec;
  spec.method = "DELETE";
  spec.path = "Tables('" + std::string(name) + "')";
  auto r = core_->execute({"delete_table", true}, spec);
  if (!r) return std::move(r).error();
  return {};
}

AZTABLES_DECL result<bool> service_client::delete_table_if_exists(std::string_view name) {
  auto r = delete_table(name);
  if (r) return true;
  if (r.error().code == errc::not_found) return false;
  return std::move(r).error();
}

AZTABLES_DECL result<std::vector<std::string>> service_client::list_tables(std::string_view prefix) {
  std::vector<std::string> names;
  std::string filter;
  if (!prefix.empty()) {
    // TableName ge 'prefix' and TableName lt 'prefiy' (prefix with its last
    // byte incremented; a trailing 0xFF byte is dropped first).
    std::string upper(prefix);
    while (!upper.empty() && static_cast<unsigned char>(upper.back()) == 0xff) upper.pop_back();
    std::string expr = "TableName ge '";
    for (char c : prefix) expr += c == '\'' ? std::string("''") : std::string(1, c);
    expr += "'";
    if (!upper.empty()) {
      upper.back() = static_cast<char>(static_cast<unsigned char>(upper.back()) + 1);
      expr += " and TableName lt '";
      for (char c : upper) expr += c == '\'' ? std::string("''") : std::string(1, c);
      expr += "'";
    }
    filter = "$filter=" + detail::percent_encode(expr);
  }
  std::string next;
  for (int page = 0;; ++page) {
    detail::request_spec spec;
    spec.method = "GET";
    spec.path = "Tables";
    spec.accept = detail::accept_none;
    spec.query = filter;
    if (!next.empty()) {
      if (!spec.query.empty()) spec.query += '&';
      spec.query += "NextTableName=" + detail::percent_encode(next);
    }
    auto r = core_->execute({"list_tables", true}, spec);
    if (!r) return std::move(r).error();
    if (auto err = detail::parse_table_names(r->body, names)) return std::move(*err);
    const std::string* cont = r->headers.find("x-ms-continuation-NextTableName");
    if (!cont || cont->empty()) break;
    if (*cont == next) return error::make(errc::invalid_response, "list tables: the continuation did not advance");
    next = *cont;
  }
  return names;
}

AZTABLES_NAMESPACE_END
