// SPDX-License-Identifier: MIT
/// \file access_policy.hpp
/// Stored access policies of a table (Get/Set Table ACL): named sets of
/// start, expiry and permissions that a table SAS refers to with
/// `table_sas_options::policy_id`. Changing or deleting a policy changes or
/// revokes every SAS that names it, without touching the account key.
/// A table holds at most 5 policies.
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>
#include <aztables/sas.hpp>
#include <aztables/table_client.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// The most stored access policies a table may hold.
inline constexpr std::size_t max_access_policies = 5;

/// What a SAS naming the policy inherits. A field left empty must then be
/// given by the SAS itself (and a field set here must not be).
struct access_policy {
  std::optional<std::chrono::system_clock::time_point> starts_on;   ///< Start
  std::optional<std::chrono::system_clock::time_point> expires_on;  ///< Expiry
  table_sas_permissions permissions;  ///< Permission (none set: left to the SAS)

  friend bool operator==(const access_policy& a, const access_policy& b) {
    return a.starts_on == b.starts_on && a.expires_on == b.expires_on && a.permissions.str() == b.permissions.str();
  }
  friend bool operator!=(const access_policy& a, const access_policy& b) { return !(a == b); }
};

/// A policy and its name (the `si` a SAS uses).
struct signed_identifier {
  std::string id;  ///< 1 to 64 characters, unique in the table
  access_policy policy;  ///< what a SAS bound to `id` allows, and when

  friend bool operator==(const signed_identifier& a, const signed_identifier& b) {
    return a.id == b.id && a.policy == b.policy;
  }
  friend bool operator!=(const signed_identifier& a, const signed_identifier& b) { return !(a == b); }
};

/// Reads the table's stored access policies (in the order the service keeps them).
/// \returns the policies; `not_found` if the table does not exist,
///   `invalid_response` if the reply is not the expected XML. Needs the
///   account key or a bearer token: a SAS cannot read policies.
AZTABLES_DECL result<std::vector<signed_identifier>> get_access_policies(const table_client& table);

/// Replaces all of the table's stored access policies with `policies` (an
/// empty list removes them all, revoking every SAS that names one).
/// \returns `invalid_argument` before sending when there are more than 5,
///   an id is empty, longer than 64 characters, repeated or contains a control
///   character, or an expiry is not after its start.
AZTABLES_DECL result<void> set_access_policies(const table_client& table,
                                               const std::vector<signed_identifier>& policies);

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/access_policy.ipp>
#endif
