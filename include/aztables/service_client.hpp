// SPDX-License-Identifier: MIT
/// \file service_client.hpp
/// Account-level operations: create, delete and list tables.
#pragma once

#include <aztables/config.hpp>
#include <aztables/credentials.hpp>
#include <aztables/error.hpp>
#include <aztables/options.hpp>
#include <aztables/table_client.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

/// A client for one account's table service. Cheap to copy (copies share
/// the connection pool and credential); safe to use from several threads.
class service_client {
 public:
  /// A client from a connection string (see `parse_connection_string`).
  static AZTABLES_DECL result<service_client> from_connection_string(std::string_view connection_string,
                                                                     client_options options = {});
  /// A client for an endpoint URL and a credential.
  static AZTABLES_DECL result<service_client> create(std::string_view endpoint, credential cred,
                                                     client_options options = {});

  /// Creates a table; `conflict` (TableAlreadyExists) if it exists.
  AZTABLES_DECL result<void> create_table(std::string_view name);
  /// Creates a table unless it exists; true if this call created it.
  AZTABLES_DECL result<bool> create_table_if_not_exists(std::string_view name);
  /// Deletes a table; `not_found` if there is none.
  AZTABLES_DECL result<void> delete_table(std::string_view name);
  /// Deletes a table if it exists; true if this call deleted it.
  AZTABLES_DECL result<bool> delete_table_if_exists(std::string_view name);
  /// Names of all tables (following continuations), optionally only those
  /// starting with `prefix`.
  AZTABLES_DECL result<std::vector<std::string>> list_tables(std::string_view prefix = {});

  /// A client for one table of this account (sharing this client's connections).
  AZTABLES_DECL table_client table(std::string_view name) const;

  /// The endpoint URL, e.g. "https://acct.table.core.windows.net".
  AZTABLES_DECL std::string endpoint() const;

 private:
  explicit service_client(std::shared_ptr<detail::client_core> core) : core_(std::move(core)) {}
  std::shared_ptr<detail::client_core> core_;
};

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/service_client.ipp>
#endif
