// Quickstart: create a table, insert an entity, read it back, update it with
// its ETag, delete it, and clean up. Run against Azurite with
// ./examples/run.sh, or set AZTABLES_CONNECTION_STRING to a real account.
#include <aztables/aztables.hpp>

#include <cstdlib>
#include <iostream>

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::cerr << "bad connection string: " << service.error().to_string() << "\n";
    return 1;
  }
  try {
    bool created = service->create_table_if_not_exists("quickstart").value();
    std::cout << (created ? "created" : "found existing") << " table 'quickstart'\n";
    aztables::table_client orders = service->table("quickstart");

    aztables::entity order("customer-42", "order-0001");
    order.set("Product", "espresso beans")
        .set("Quantity", std::int64_t{3})
        .set("Total", 27.5)
        .set("Shipped", false);
    auto written = orders.insert(order).value();
    std::cout << "inserted customer-42/order-0001, etag " << written.etag.str() << "\n";

    std::optional<aztables::entity> got = orders.get({"customer-42", "order-0001"}).value();
    std::cout << "read back: Product=" << *got->get("Product")->as_string()
              << " Quantity=" << *got->get("Quantity")->as_int64() << " Total=" << *got->get("Total")->as_double()
              << "\n";

    got->set("Shipped", true);
    auto updated = orders.update(*got, aztables::update_mode::merge).value();  // If-Match: the ETag we read
    std::cout << "updated with If-Match, new etag " << updated.etag.str() << "\n";

    auto stale = orders.update(*got);  // the ETag we read is now stale
    std::cout << "update with the stale etag: " << stale.error().to_string() << "\n";

    orders.erase({"customer-42", "order-0001"}, updated.etag).value();
    std::cout << "deleted; exists now: " << (orders.get({"customer-42", "order-0001"}).value() ? "yes" : "no") << "\n";

    service->delete_table("quickstart").value();
    std::cout << "deleted table 'quickstart'\n";
  } catch (const aztables::exception& e) {
    std::cerr << "failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
