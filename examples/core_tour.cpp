// A tour of the core: connecting (connection strings, explicit endpoint and
// credential, transport options), the eight Edm types read back losslessly,
// and the error model (an absent entity is an answer; everything else is an
// aztables::error with a category, HTTP status and service code).
//
// Runs against Azurite (./examples/run.sh starts one; or tests/azurite.sh) or a
// real account: set AZTABLES_CONNECTION_STRING.
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

int main() {
  const char* env = std::getenv("AZTABLES_CONNECTION_STRING");
  const std::string connection_string = env ? env : "UseDevelopmentStorage=true";

  // [snippet:core-connect]
  // Explicit endpoint + credential + options: what a connection string expands to.
  aztables::connection_config cfg = aztables::parse_connection_string(connection_string).value();
  aztables::client_options options;
  options.connect_timeout = std::chrono::seconds(5);   // TCP (+ TLS) connect
  options.attempt_timeout = std::chrono::seconds(30);  // one request, sent and answered
  options.ca_file = "";                                // empty: the system's CA bundle
  if (auto* key = std::get_if<aztables::shared_key_credential>(&cfg.credential))  // sign with SharedKeyLite
    cfg.credential = aztables::shared_key_credential(key->account_name(), key->secret_base64_key(),
                                                     aztables::shared_key_scheme::shared_key_lite);
  aztables::service_client service = aztables::service_client::create(cfg.table_endpoint, cfg.credential, options).value();
  // [/snippet:core-connect]
  std::cout << "endpoint " << service.endpoint() << "\n";

  const std::string name =
      "coretour" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  service.create_table(name).value();
  aztables::table_client table = service.table(name);
  int status = 0;
  try {
    // [snippet:core-types]
    aztables::entity e("sensor-7", "2026-11-21T13:00");
    e.set("Label", "K\xc3\xbchlraum \xe2\x84\x96" "3")                          // Edm.String (UTF-8)
        .set("Raw", aztables::binary{0x00, 0x01, 0xfe, 0xff})                  // Edm.Binary
        .set("Active", true)                                                   // Edm.Boolean
        .set("Taken", aztables::datetime(aztables::ticks(17955432001234567)))  // Edm.DateTime, 100 ns
        .set("Celsius", 4.0)                                                   // Edm.Double, stays Double
        .set("Id", *aztables::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833"))  // Edm.Guid
        .set("Count", 42)                                                      // Edm.Int32
        .set("Total", std::numeric_limits<std::int64_t>::max());               // Edm.Int64, all 64 bits
    table.insert(e).value();
    aztables::entity back = table.get(e.key()).value().value();  // result<optional<entity>>
    for (const aztables::property& p : back)
      std::cout << "  " << p.name << ": " << aztables::edm_name(p.value.type()) << "\n";
    bool same = back == e;  // types and values, bit for bit
    // [/snippet:core-types]
    std::cout << "read back " << back.size() << " properties, identical: " << (same ? "yes" : "no") << "\n";
    if (!same) status = 1;

    // [snippet:core-errors]
    auto missing = table.get({"sensor-7", "no-such-row"});  // absent: an empty optional, not an error
    std::cout << "missing row found: " << (missing.value() ? "yes" : "no") << "\n";

    auto again = table.insert(e);  // the same keys again
    if (!again) {
      const aztables::error& err = again.error();
      std::cout << aztables::to_string(err.code) << " " << err.http_status << " " << err.service_code << "\n";
      // conflict 409 EntityAlreadyExists
      std::cout << err.to_string() << "\n";  // one line, with the x-ms-request-id
    }

    aztables::entity bad("sensor-7", "a/b");  // '/' may not appear in a key
    std::cout << table.insert(bad).error().message << "\n";  // found before anything is sent
    // RowKey: contains U+002F '/', which keys may not contain (...)
    // [/snippet:core-errors]
    if (again || again.error().service_code != "EntityAlreadyExists") status = 1;
  } catch (const aztables::exception& ex) {
    std::cerr << "failed: " << ex.what() << "\n";
    status = 1;
  }
  (void)service.delete_table(name);
  return status;
}
