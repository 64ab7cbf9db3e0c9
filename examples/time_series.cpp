// Time series as one entity per day: 24 hourly properties (H00 ... H23) of a
// single entity, each reading written with an upsert merge that sends only
// its own hour. The design guide's advice for a series that is read together:
// a day is then one point read (one entity, one transaction) instead of a
// 24-entity range scan, and a late or repeated reading just overwrites its
// hour without a read-modify-write.
//
//   AZTABLES_CONNECTION_STRING=... ./time_series      (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// "H00" ... "H23": valid property names that sort and read naturally.
std::string hour_property(int hour) { return "H" + aztables::keys::zero_padded(hour, 2).value(); }

// The reading a sensor would report for an hour (a deterministic demo curve).
double reading(int hour) { return 18.0 + 6.0 * std::sin((hour - 9) * 3.14159265358979 / 12.0); }

}  // namespace

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name =
      "timeseries" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000000);
  try {
    service->create_table(table_name).value();
    aztables::table_client table = service->table(table_name);

    // PartitionKey: the sensor; RowKey: the day. One entity holds the day.
    const aztables::entity_key day{"sensor-7", "2024-05-01"};

    // Each hour arrives on its own: upsert merge writes just that property
    // (creating the entity with the first reading), leaving the others alone.
    for (int hour = 0; hour < 24; ++hour) {
      aztables::entity update(day.partition_key, day.row_key);
      update.set(hour_property(hour), reading(hour));
      table.upsert(update, aztables::update_mode::merge).value();
    }
    // A corrected reading for 13:00 replaces that hour only.
    aztables::entity correction(day.partition_key, day.row_key);
    correction.set("H13", 23.5);
    table.upsert(correction, aztables::update_mode::merge).value();

    // Reading the whole day is one point read.
    aztables::entity got = table.get(day).value().value();
    std::printf("%s %s: %zu hourly values in one entity\n", day.partition_key.c_str(), day.row_key.c_str(), got.size());
    double sum = 0, max = -1e300;
    int max_hour = 0;
    for (int hour = 0; hour < 24; ++hour) {
      const double v = *got.get(hour_property(hour))->as_double();
      sum += v;
      if (v > max) max = v, max_hour = hour;
    }
    std::printf("mean %.2f, max %.2f at %02d:00, H13 = %.1f (the correction)\n", sum / 24, max, max_hour,
                *got.get("H13")->as_double());

    // A projection reads just the afternoon.
    auto afternoon = table.get(day, {"H12", "H13", "H14"}).value().value();
    std::printf("afternoon only: %zu properties\n", afternoon.size());

    service->delete_table(table_name).value();
    return got.size() == 24 && afternoon.size() == 3 ? 0 : 1;
  } catch (const aztables::exception& e) {
    std::fprintf(stderr, "time_series failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
