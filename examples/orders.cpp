// A typed order table and the three good query kinds: point, row-range and
// partition-range, with projection (a smaller struct reads fewer properties,
// and without an ETag member it is read with odata=nometadata), paging and a
// resume token. The table scan is shown last: explicit, with a limit.
//
//   AZTABLES_CONNECTION_STRING=... ./orders   (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

// [snippet:orders-mapping]
enum class order_status { open, shipped, cancelled };

struct order {
  std::string customer;  // PartitionKey: one partition per customer
  std::string id;        // RowKey: "2026-11-21-0001", sorts by date
  std::string product;
  std::int64_t quantity = 0;
  double total = 0;
  aztables::datetime placed{};
  order_status status = order_status::open;
  std::optional<std::string> note;  // omitted when empty
  aztables::etag etag;              // If-Match on update/erase, refreshed by writes
};

template <>
struct aztables::enum_traits<order_status> {  // stored as a String
  static constexpr std::pair<order_status, const char*> names[] = {
      {order_status::open, "Open"}, {order_status::shipped, "Shipped"}, {order_status::cancelled, "Cancelled"}};
};

template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto etag = &order::etag;
  static constexpr auto properties = aztables::fields(
      aztables::field("Product", &order::product), aztables::field("Quantity", &order::quantity),
      aztables::field("Total", &order::total), aztables::field("Placed", &order::placed),
      aztables::field("Status", &order::status), aztables::field("Note", &order::note));
};

// A projection: only what a listing needs ($select=PartitionKey,RowKey,Total).
struct order_summary {
  std::string customer, id;
  double total = 0;
};
template <>
struct aztables::entity_traits<order_summary> {
  static constexpr auto partition_key = &order_summary::customer;
  static constexpr auto row_key = &order_summary::id;
  static constexpr auto properties = aztables::fields(aztables::field("Total", &order_summary::total));
};
// [/snippet:orders-mapping]

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name =
      "orders" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  try {
    service->create_table(table_name).value();
    aztables::table_client orders = service->table(table_name);
    std::printf("created table '%s'\n", table_name.c_str());

    // 30 customers x 12 orders, one per month of 2026.
    const auto jan1 = aztables::datetime(aztables::ticks(17672256000000000LL));  // 2026-01-01T00:00:00Z
    for (int c = 100; c < 130; ++c) {
      aztables::batch b(orders);  // one partition per customer: one transaction each
      for (int m = 1; m <= 12; ++m) {
        order o;
        o.customer = "c" + std::to_string(c);
        o.id = "2026-" + aztables::keys::zero_padded(m, 2).value() + "-01-0001";
        o.product = m % 2 ? "espresso beans" : "filter papers";
        o.quantity = m;
        o.total = 9.5 * m + c % 7;
        o.placed = jan1 + std::chrono::hours(24 * 30 * (m - 1));
        if (m == 12) o.note = "gift wrap";
        b.insert(o);
      }
      b.submit().value();
    }
    std::printf("inserted 360 orders for 30 customers\n");

    // [snippet:orders-point]
    // Point query: both keys known. The struct comes back with its ETag.
    std::optional<order> o = orders.get<order>({"c107", "2026-03-01-0001"}).value();
    if (o) std::printf("c107's March order: %lld x %s, %.2f\n", static_cast<long long>(o->quantity),
                       o->product.c_str(), o->total);
    // [/snippet:orders-point]

    // Update it: If-Match is the ETag member, which the write refreshes.
    o->status = order_status::shipped;
    orders.update(*o).value();
    o->note = "left at the door";
    orders.update(*o).value();  // the refreshed ETag matches again
    std::printf("updated twice with If-Match; status now Shipped\n");

    // [snippet:orders-row-range]
    // Row-range query: one customer's orders in the second half of the year.
    auto h2 = orders.query<order>(aztables::query::row_range(
        "c107", aztables::key_range::half_open("2026-07", "2027")));
    double spent = 0;
    for (const order& x : h2) spent += x.total;
    std::printf("c107 spent %.2f in July-December\n", spent);
    // [/snippet:orders-row-range]

    // [snippet:orders-partition-range]
    // Partition-range query with projection and a filter: customers c110 to
    // c119, large orders only, reading just the totals, 10 per page.
    auto big = orders.query<order_summary>(
        aztables::query::partition_range(aztables::key_range::half_open("c110", "c120"))
            .where(aztables::filter::ge("Total", 100.0))
            .page_size(10));
    std::size_t pages = 0, count = 0;
    aztables::page<order_summary> page;  // one page object, its entities overwritten in place
    while (!big.done()) {
      big.next_page(page).value();  // errors as results, page by page
      ++pages;
      count += page.items.size();
    }
    std::printf("%zu large orders of c110-c119 in %zu pages\n", count, pages);
    // [/snippet:orders-partition-range]

    // [snippet:orders-resume]
    // Stop after a while, keep the token (a string), resume later: nothing is
    // read twice or skipped.
    auto q = aztables::query::partition_range(aztables::key_range::at_least("c120"));
    auto first = orders.query<order_summary>(q);
    std::size_t read = 0;
    std::string token;
    for (const order_summary& s : first) {
      (void)s;
      if (++read == 50) {
        token = first.token();
        break;
      }
    }
    auto rest = orders.query<order_summary>(q.resume(token));
    for (const order_summary& s : rest) {
      (void)s;
      ++read;
    }
    std::printf("read %zu orders of c120-c129 across two pagers\n", read);
    // [/snippet:orders-resume]

    // [snippet:orders-scan]
    // A full table scan has to be asked for by name.
    auto gifts = orders.query<order>(aztables::query::table_scan()
                                         .where(aztables::filter::eq("Status", order_status::open) &&
                                                aztables::filter::eq("Note", "gift wrap"))
                                         .limit(5));
    std::size_t shown = 0;
    for (const order& g : gifts) {
      std::printf("  gift: %s/%s %s\n", g.customer.c_str(), g.id.c_str(), g.product.c_str());
      ++shown;
    }
    // [/snippet:orders-scan]

    service->delete_table(table_name).value();
    std::printf("deleted table '%s'\n", table_name.c_str());
    return count > 0 && read == 120 && shown == 5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
