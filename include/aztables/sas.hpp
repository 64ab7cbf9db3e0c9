// SPDX-License-Identifier: MIT
/// \file sas.hpp
/// Shared access signatures: mint a token with the account key on a trusted
/// machine, hand the token (never the key) to a device or browser, and build
/// a client from it with `sas_credential{token}`.
///
///  - `make_table_sas`: one table, entity permissions (query/add/update/
///    delete), optionally limited to a PartitionKey/RowKey range or bound to a
///    stored access policy (see access_policy.hpp).
///  - `make_account_sas`: the account's table service (list/create/delete
///    tables and entity access in every table).
///
/// Both sign with HMAC-SHA256 over the string-to-sign of the Table service
/// REST reference (service version 2015-04-05 or later; account SAS of
/// 2020-12-06 or later include the encryption-scope line).
#pragma once

#include <aztables/config.hpp>
#include <aztables/credentials.hpp>
#include <aztables/error.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN

/// Which protocols a request made with the SAS may use (`spr`).
enum class sas_protocol {
  https,           ///< "https": only HTTPS (the default, and the only safe choice over a network)
  https_and_http,  ///< "https,http": also plain HTTP (emulators on loopback)
};

/// What a table SAS (or a stored access policy) allows on entities.
struct table_sas_permissions {
  bool query = false;   ///< r: point reads and queries
  bool add = false;     ///< a: insert (the insert half of an upsert needs it too)
  bool update = false;  ///< u: update and merge (the update half of an upsert needs it too)
  bool erase = false;   ///< d: delete

  /// True when at least one permission is set.
  bool any() const noexcept { return query || add || update || erase; }
  /// The wire form in the order the service requires: a subset of "raud".
  AZTABLES_DECL std::string str() const;
  /// Parses the wire form (letters r, a, u, d in any order).
  /// \returns `invalid_argument` on another letter or a repeated one.
  static AZTABLES_DECL result<table_sas_permissions> parse(std::string_view s);
  /// Every permission.
  static table_sas_permissions all() noexcept { return {true, true, true, true}; }
};

/// What an account SAS allows in the account's table service.
struct account_sas_permissions {
  bool read = false;    ///< r: read entities, read service properties
  bool write = false;   ///< w: create tables, write service properties
  bool erase = false;   ///< d: delete tables and entities
  bool list = false;    ///< l: list tables
  bool add = false;     ///< a: insert entities
  bool create = false;  ///< c: create (tables, on emulators that distinguish it from w)
  bool update = false;  ///< u: update and merge entities

  /// True when at least one permission is set.
  bool any() const noexcept { return read || write || erase || list || add || create || update; }
  /// The wire form in the order the service requires: a subset of "rwdlacu".
  AZTABLES_DECL std::string str() const;
};

/// Which levels of the table service an account SAS reaches (`srt`).
struct account_sas_resource_types {
  bool service = false;    ///< s: service-level calls (service properties, statistics)
  bool container = false;  ///< c: tables (create, delete, list)
  bool object = false;     ///< o: entities

  /// True when at least one level is set.
  bool any() const noexcept { return service || container || object; }
  /// The wire form: a subset of "sco".
  AZTABLES_DECL std::string str() const;
};

/// The service version a SAS is signed for by default (`sv`): the version
/// this SDK speaks (client_options::api_version).
inline constexpr std::string_view default_sas_version = "2019-02-02";

/// A table SAS: access to the entities of one table.
struct table_sas_options {
  /// The table (its name is signed in lower case, as the service does).
  std::string table_name;
  /// Required unless `policy_id` names a stored policy that has permissions.
  table_sas_permissions permissions;
  /// When the SAS starts to work (`st`); empty: at once. Seconds precision.
  std::optional<std::chrono::system_clock::time_point> starts_on;
  /// When it stops working (`se`). Required unless `policy_id` names a
  /// stored policy with an expiry. Must be after `starts_on` and after now.
  std::optional<std::chrono::system_clock::time_point> expires_on;
  /// Client IPv4 address or range allowed (`sip`): "168.1.5.65" or
  /// "168.1.5.60-168.1.5.70". Empty: any address.
  std::string ip_range;
  /// `spr`; https only unless you need an emulator over plain http.
  sas_protocol protocol = sas_protocol::https;
  /// Service version the SAS is signed for (`sv`), "YYYY-MM-DD", 2015-04-05 or later.
  std::string version = std::string(default_sas_version);
  /// The key range (`spk`, `srk`, `epk`, `erk`), composite order: an entity is
  /// inside when (PartitionKey, RowKey) >= (start_partition_key,
  /// start_row_key) and <= (end_partition_key, end_row_key). Empty: no
  /// bound. A row key bound needs its partition key bound.
  std::string start_partition_key;
  std::string start_row_key;      ///< `srk` (see `start_partition_key`)
  std::string end_partition_key;  ///< `epk` (see `start_partition_key`)
  std::string end_row_key;        ///< `erk` (see `start_partition_key`)
  /// A stored access policy of the table (`si`, at most 64 characters); the
  /// SAS then takes its start, expiry and permissions from the policy, and
  /// deleting the policy revokes it. Fields set both here and in the policy
  /// are refused by the service.
  std::string policy_id;
  /// "Now", for the checks that the SAS does not expire in the past; null:
  /// the system clock. Tests inject a fixed clock.
  std::function<std::chrono::system_clock::time_point()> clock;
};

/// An account SAS for the table service (`ss=t`).
struct account_sas_options {
  account_sas_permissions permissions;        ///< required: at least one
  account_sas_resource_types resource_types;  ///< required: at least one
  /// When the SAS starts to work (`st`); empty: at once.
  std::optional<std::chrono::system_clock::time_point> starts_on;
  /// When it stops working (`se`); required; after `starts_on` and after now.
  std::optional<std::chrono::system_clock::time_point> expires_on;
  /// Client IPv4 address or range (`sip`), as for a table SAS.
  std::string ip_range;
  /// `spr`.
  sas_protocol protocol = sas_protocol::https;
  /// `sv`, "YYYY-MM-DD", 2015-04-05 or later.
  std::string version = std::string(default_sas_version);
  /// "Now" for the expiry checks; null: the system clock.
  std::function<std::chrono::system_clock::time_point()> clock;
};

/// Signs a table SAS with the account key.
/// \param key the account name and key (from a connection string or the portal)
/// \param options what the SAS allows; see `table_sas_options`
/// \returns the token ("sv=...&tn=...&sig=..."), without a leading '?', for
///   `sas_credential{token}` or a connection string's SharedAccessSignature.
///   `invalid_argument` naming the field when an option breaks a rule
///   (nothing is signed then); the key never appears in an error.
AZTABLES_DECL result<std::string> make_table_sas(const shared_key_credential& key, const table_sas_options& options);

/// Signs an account SAS for the table service with the account key.
/// \returns the token, or `invalid_argument` naming the field at fault.
AZTABLES_DECL result<std::string> make_account_sas(const shared_key_credential& key,
                                                   const account_sas_options& options);

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/sas.ipp>
#endif
