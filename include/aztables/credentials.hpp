// SPDX-License-Identifier: MIT
/// \file credentials.hpp
/// How a client proves who it is: a shared account key (SharedKey or
/// SharedKeyLite signing), a shared access signature, or a bearer token from
/// a provider you supply (Entra ID). And connection strings, which name an
/// endpoint and one of these.
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

AZTABLES_NAMESPACE_BEGIN

/// Which of the two account-key signing schemes to use.
enum class shared_key_scheme {
  shared_key,       ///< signs verb, Content-MD5, Content-Type, date and resource
  shared_key_lite,  ///< signs date and resource (what the JS SDK uses)
};

/// The account name and its base64 key. The key is never printed: it has no
/// output operator and appears in no error text.
class shared_key_credential {
 public:
  /// A credential for `account_name` with its base64 account key; nothing is
  /// checked until a client is created (a bad key is `invalid_argument` then).
  shared_key_credential(std::string account_name, std::string base64_key,
                        shared_key_scheme scheme = shared_key_scheme::shared_key)
      : account_(std::move(account_name)), key_(std::move(base64_key)), scheme_(scheme) {}
  /// The storage account name.
  const std::string& account_name() const noexcept { return account_; }
  /// Which signing scheme requests use.
  shared_key_scheme scheme() const noexcept { return scheme_; }
  /// The base64 key, for the signer. Do not log it.
  const std::string& secret_base64_key() const noexcept { return key_; }

 private:
  std::string account_;
  std::string key_;
  shared_key_scheme scheme_;
};

/// A shared access signature token (the query string, with or without a
/// leading '?'), as made by `aztables::sas` builders or the portal.
struct sas_credential {
  std::string token;  ///< e.g. "sv=2019-02-02&tn=orders&sp=r&se=...&sig=..."
};

/// A bearer token and when it expires.
struct access_token {
  std::string token;                                ///< the bearer token (never logged)
  std::chrono::system_clock::time_point expires_on;  ///< when the token stops being valid
};

/// Returns a token for a scope ("https://storage.azure.com/.default" or
/// "https://cosmos.azure.com/.default"). Called when no cached token is valid.
using token_provider = std::function<result<access_token>(std::string_view scope)>;

/// A bearer-token credential over a user-supplied provider. Tokens are cached
/// and refreshed `refresh_margin` before they expire; thread-safe.
struct bearer_credential {
  /// Called for a new token; must not be empty.
  token_provider provider;
  /// Empty: chosen from the endpoint (Storage or Cosmos audience).
  std::string scope;
  /// A cached token is replaced this long before it expires.
  std::chrono::seconds refresh_margin{300};
};

/// No credential: for an endpoint that needs none (a proxy that signs, tests).
struct anonymous_credential {};

/// One of the credentials above.
using credential = std::variant<anonymous_credential, shared_key_credential, sas_credential, bearer_credential>;

/// The well-known Azurite / storage emulator account.
inline constexpr std::string_view development_account_name = "devstoreaccount1";
/// The well-known (public) key of the emulator account.
inline constexpr std::string_view development_account_key =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// What a connection string names.
struct connection_config {
  std::string table_endpoint;  ///< e.g. "https://acct.table.core.windows.net" or "http://127.0.0.1:10002/devstoreaccount1"
  std::string account_name;    ///< may be empty for a SAS-only string with an explicit endpoint
  aztables::credential credential;  ///< what the string authenticates with
};

/// Parses a storage connection string. Recognised keys (case-insensitive):
/// UseDevelopmentStorage, DevelopmentStorageProxyUri, DefaultEndpointsProtocol,
/// AccountName, AccountKey, EndpointSuffix, TableEndpoint, SharedAccessSignature.
/// Errors are `invalid_argument` naming the key at fault; values (keys!) are
/// never echoed.
AZTABLES_DECL result<connection_config> parse_connection_string(std::string_view connection_string);

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/credentials.ipp>
#endif
