// Quickstart: create a table, insert a typed entity, read it back, update it
// with its ETag, see a stale update refused, delete it, and clean up. Run
// against Azurite with ./examples/run.sh, or set AZTABLES_CONNECTION_STRING
// to a real account.
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

// [snippet:quickstart-mapping]
// Your own struct; the member types decide the stored Edm types.
struct order {
  std::string customer;  // PartitionKey
  std::string id;        // RowKey
  std::string product;
  std::int64_t quantity = 0;
  double total = 0;
  bool shipped = false;
  aztables::etag etag;  // the version read or written last (If-Match)
};

template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto etag = &order::etag;
  static constexpr auto properties = aztables::fields(  // stored names are a wire contract
      aztables::field("Product", &order::product), aztables::field("Quantity", &order::quantity),
      aztables::field("Total", &order::total), aztables::field("Shipped", &order::shipped));
};
// [/snippet:quickstart-mapping]

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::cerr << "bad connection string: " << service.error().to_string() << "\n";
    return 1;
  }
  // A table of its own per run (a deleted name stays busy for a while on Azure).
  const std::string table =
      "quickstart" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  try {
    service->create_table(table).value();
    std::cout << "created table '" << table << "'\n";
    aztables::table_client orders = service->table(table);

    // [snippet:quickstart-crud]
    order o{"customer-42", "order-0001", "espresso beans", 3, 27.5, false, {}};
    orders.insert(o).value();  // throws aztables::exception on an error; sets o.etag
    std::cout << "inserted customer-42/order-0001, etag " << o.etag.str() << "\n";

    std::optional<order> got = orders.get<order>({"customer-42", "order-0001"}).value();
    std::cout << "read back: Product=" << got->product << " Quantity=" << got->quantity << " Total=" << got->total
              << "\n";

    order before = *got;  // keeps the ETag we read
    got->shipped = true;
    orders.update(*got).value();  // If-Match: got->etag; refreshed on success
    std::cout << "updated with If-Match, new etag " << got->etag.str() << "\n";

    auto stale = orders.update(before);  // the ETag we read first is now stale
    std::cout << "update with the stale etag: " << stale.error().to_string() << "\n";  // precondition_failed (412)

    orders.erase(*got).value();  // If-Match: the current ETag
    std::cout << "deleted; exists now: " << (orders.get<order>({"customer-42", "order-0001"}).value() ? "yes" : "no")
              << "\n";
    // [/snippet:quickstart-crud]

    service->delete_table(table).value();
    std::cout << "deleted table '" << table << "'\n";
    return stale.error().code == aztables::errc::precondition_failed ? 0 : 1;
  } catch (const aztables::exception& e) {
    std::cerr << "failed: " << e.what() << "\n";
    (void)service->delete_table_if_exists(table);
    return 1;
  }
}
