// SPDX-License-Identifier: MIT
// Get/Set Table ACL (inline in header-only mode, compiled once by <aztables/src.hpp>).
#pragma once

#include <aztables/access_policy.hpp>
#include <aztables/detail/acl_xml.hpp>
#include <aztables/detail/client_core.hpp>
#include <aztables/detail/json_writer.hpp>

AZTABLES_NAMESPACE_BEGIN

AZTABLES_DECL result<std::vector<signed_identifier>> get_access_policies(const table_client& table) {
  if (auto v = validate_table_name(table.name()); !v) return std::move(v).error();
  detail::request_spec spec;
  spec.method = "GET";
  spec.path = table.name();
  spec.query = "comp=acl";
  auto r = table.core()->execute({"get_access_policies", true}, spec);
  if (!r) return std::move(r).error();
  return detail::parse_signed_identifiers(r->body);
}

AZTABLES_DECL result<void> set_access_policies(const table_client& table,
                                               const std::vector<signed_identifier>& policies) {
  if (auto v = validate_table_name(table.name()); !v) return std::move(v).error();
  if (policies.size() > max_access_policies)
    return error::invalid_argument("access policies", "a table holds at most 5 (got " +
                                                          std::to_string(policies.size()) + ")");
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto& p = policies[i];
    const std::string field = "access policy " + std::to_string(i) + " id";
    if (p.id.empty()) return error::invalid_argument(field, "is empty");
    const auto scan = detail::scan_utf8(p.id);
    if (!scan.valid) return error::invalid_argument(field, "is not valid UTF-8");
    if (scan.utf16_units > 64) return error::invalid_argument(field, "is longer than 64 characters");
    for (char c : p.id)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return error::invalid_argument(field, "contains a control character");
    for (std::size_t j = 0; j < i; ++j)
      if (policies[j].id == p.id) return error::invalid_argument(field, "'" + p.id + "' appears twice");
    if (p.policy.starts_on && p.policy.expires_on &&
        std::chrono::floor<std::chrono::seconds>(*p.policy.expires_on) <=
            std::chrono::floor<std::chrono::seconds>(*p.policy.starts_on))
      return error::invalid_argument("access policy '" + p.id + "' expires_on", "must be after starts_on");
  }
  detail::request_spec spec;
  spec.method = "PUT";
  spec.path = table.name();
  spec.query = "comp=acl";
  spec.content_type = "application/xml";
  spec.body = detail::write_signed_identifiers(policies);
  auto r = table.core()->execute({"set_access_policies", true}, spec);
  if (!r) return std::move(r).error();
  return {};
}

AZTABLES_NAMESPACE_END
