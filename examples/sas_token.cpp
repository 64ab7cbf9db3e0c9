// Shared access signatures: a trusted service holds the account key and mints
// narrow, short-lived tokens; a device gets only the token. Also an account
// SAS for listing tables, and a stored access policy that revokes tokens.
// ctest runs it against Azurite (examples:sas_token); by hand, set
// AZTABLES_CONNECTION_STRING to a real account's key connection string.
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <variant>

using namespace std::chrono_literals;

int main() {
  const char* cs_env = std::getenv("AZTABLES_CONNECTION_STRING");
  const std::string cs = cs_env ? cs_env : "UseDevelopmentStorage=true";
  try {
    // ---- the trusted side: has the key -------------------------------------
    auto config = aztables::parse_connection_string(cs).value();
    const auto* key = std::get_if<aztables::shared_key_credential>(&config.credential);
    if (!key) {
      std::cerr << "this example needs a connection string with an AccountKey\n";
      return 1;
    }
    auto service = aztables::service_client::from_connection_string(cs).value();
    const std::string table = "sasdemo";
    service.create_table_if_not_exists(table).value();
    (void)service.table(table).erase({"device-42", "2026-11-21T13:00:00Z"}, aztables::etag::any());  // earlier runs

    // Emulators speak plain http on loopback; everything else must use https.
    const bool emulator = config.table_endpoint.rfind("http://", 0) == 0;
    const auto protocol = emulator ? aztables::sas_protocol::https_and_http : aztables::sas_protocol::https;

    // A token for one device: query + add, its own partition only, one hour.
    aztables::table_sas_options device_sas;
    device_sas.table_name = table;
    device_sas.permissions.query = true;
    device_sas.permissions.add = true;
    device_sas.start_partition_key = "device-42";
    device_sas.end_partition_key = "device-42";
    device_sas.expires_on = std::chrono::system_clock::now() + 1h;
    device_sas.protocol = protocol;
    const std::string token = aztables::make_table_sas(*key, device_sas).value();
    std::cout << "minted a table SAS (" << token.size() << " characters; never log it)\n";

    // ---- the device: has only the token ------------------------------------
    auto device = aztables::table_client::create(config.table_endpoint, aztables::sas_credential{token}, table).value();
    aztables::entity reading("device-42", "2026-11-21T13:00:00Z");
    reading.set("Celsius", 21.5);
    auto inserted = device.insert(reading);
    std::cout << "device inserts its reading: " << (inserted ? "ok" : inserted.error().to_string()) << "\n";
    auto read = device.get({"device-42", "2026-11-21T13:00:00Z"});
    std::cout << "device reads it back: " << (read && *read ? "ok" : "missing") << "\n";

    auto other = device.insert(aztables::entity("device-7", "x"));
    std::cout << "device writes another device's partition: " << other.error().to_string() << "\n";
    auto erase = device.erase({"device-42", "2026-11-21T13:00:00Z"}, aztables::etag::any());
    std::cout << "device deletes: " << erase.error().to_string() << "\n";  // 403 AuthorizationPermissionMismatch

    // ---- an account SAS: list tables, nothing else --------------------------
    aztables::account_sas_options lister;
    lister.permissions.list = true;
    lister.resource_types.container = true;
    lister.expires_on = std::chrono::system_clock::now() + 15min;
    lister.protocol = protocol;
    auto listing = aztables::service_client::create(
                       config.table_endpoint, aztables::sas_credential{aztables::make_account_sas(*key, lister).value()})
                       .value();
    std::cout << "tables visible with the account SAS: " << listing.list_tables().value().size() << "\n";

    // ---- a stored access policy: tokens that can be revoked -----------------
    auto table_client = service.table(table);
    const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    aztables::signed_identifier readers{"readers", {now - 1min, now + 1h, aztables::table_sas_permissions{true}}};
    aztables::set_access_policies(table_client, {readers}).value();
    aztables::table_sas_options by_policy;
    by_policy.table_name = table;
    by_policy.policy_id = "readers";  // start, expiry and permissions come from the policy
    by_policy.protocol = protocol;
    auto reader = aztables::table_client::create(config.table_endpoint,
                                                 aztables::sas_credential{aztables::make_table_sas(*key, by_policy).value()},
                                                 table)
                      .value();
    std::cout << "reader with the policy token: " << (reader.get({"device-42", "2026-11-21T13:00:00Z"}) ? "ok" : "refused")
              << "\n";
    aztables::set_access_policies(table_client, {}).value();  // revoke every token naming "readers"
    auto revoked = reader.get({"device-42", "2026-11-21T13:00:00Z"});
    std::cout << "reader after the policy is removed: " << (revoked ? "ok" : revoked.error().to_string()) << "\n";

    service.delete_table(table).value();
    const bool as_expected = inserted && other.error().code == aztables::errc::invalid_argument &&
                             erase.error().http_status == 403 && !revoked;
    std::cout << (as_expected ? "all as expected\n" : "UNEXPECTED results\n");
    return as_expected ? 0 : 1;
  } catch (const aztables::exception& e) {
    std::cerr << "failed: " << e.what() << "\n";  // never contains the key or a signature
    return 1;
  }
}
