// SPDX-License-Identifier: MIT
// Internal: the client-side check that a write or point read made with a
// range-limited table SAS (spk/srk/epk/erk) targets keys inside the range.
// The service refuses such requests too (the Azurite emulator does not check
// ranges); checking here fails fast, before anything is sent, the same way on
// both. Queries are left to the service (it only returns rows in range);
// batches ($batch) are checked by the service.
#pragma once

#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/sas_token.hpp>
#include <aztables/error.hpp>

#include <optional>
#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// Reads "PartitionKey" and "RowKey" from an entity JSON body (insert).
inline bool keys_from_entity_json(std::string_view body, std::string& pk, std::string& rk) {
  std::string copy(body);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded_view(copy)).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  bool have_pk = false, have_rk = false;
  for (auto field : obj) {
    std::string_view key, v;
    if (field.unescaped_key().get(key)) return false;
    if (key == "PartitionKey" || key == "RowKey") {
      if (field.value().get_string().get(v)) return false;
      (key == "PartitionKey" ? pk : rk).assign(v);
      (key == "PartitionKey" ? have_pk : have_rk) = true;
      if (have_pk && have_rk) return true;
    }
  }
  return have_pk && have_rk;
}

/// `invalid_argument` when the request targets an entity outside `range`.
/// `path` is relative to the endpoint base, as in request_spec.
inline std::optional<error> check_sas_key_range(const sas_key_range& range, std::string_view method,
                                                std::string_view path, std::string_view body) {
  if (range.empty()) return std::nullopt;
  std::string pk, rk;
  bool found = keys_from_entity_path(path, pk, rk);
  if (!found && method == "POST" && !path.empty() && path.find_first_of("/($") == std::string_view::npos &&
      path != "Tables")
    found = keys_from_entity_json(body, pk, rk);  // insert into "table"
  if (!found || range.contains(pk, rk)) return std::nullopt;
  return error::invalid_argument("PartitionKey/RowKey ('" + pk.substr(0, 64) + "', '" + rk.substr(0, 64) + "')",
                                 "is outside the SAS token's key range " + range.describe() +
                                     "; the service would refuse it");
}

}  // namespace detail
AZTABLES_NAMESPACE_END
