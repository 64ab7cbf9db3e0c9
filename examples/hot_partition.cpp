// Spreading a hot append-only partition. Events keyed by day (PartitionKey =
// the date) all land in one partition: every insert of the day hits the same
// partition server, capped at about 2,000 entities/s. A stable hash prefix
// (FNV-1a of the event id, modulo N) spreads the day over N partitions, each
// with its own 2,000 entities/s; readers query all N (a fan-out) and merge.
//
//   AZTABLES_CONNECTION_STRING=... ./hot_partition      (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>
#include <aztables/fan_out.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace keys = aztables::keys;

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name =
      "hotpartition" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000000);
  try {
    service->create_table(table_name).value();
    aztables::table_client table = service->table(table_name);

    // Writers and readers agree on the bucket count; changing it moves data.
    const auto spread = keys::hash_spread::create(8).value();
    const std::string day = "2024-05-01";
    const aztables::datetime t0 = keys::datetime_now();

    // 400 events of the day; RowKey newest first (inverted ticks) + the event id.
    aztables::bulk_writer writer(table);
    std::map<std::string, int> per_partition;
    for (int i = 0; i < 400; ++i) {
      const std::string id = "evt-" + keys::zero_padded(i, 5).value();
      const auto when = t0 + std::chrono::milliseconds(10 * i);
      aztables::entity e(spread.partition_key(day, id).value(),
                         keys::composite({keys::inverted_ticks(when).value(), id}).value());
      e.set("EventId", id).set("Seq", i);
      ++per_partition[e.partition_key];
      writer.insert(std::move(e));
    }
    auto written = writer.write().value();
    std::printf("wrote %zu events of %s in %zu batches over %zu partitions:\n", written.written, day.c_str(),
                written.batches, per_partition.size());
    for (const auto& [pk, n] : per_partition) std::printf("  %-16s %d\n", pk.c_str(), n);

    // Reader: the newest 10 events of the day, across all 8 partitions.
    aztables::fan_out_options fo;
    fo.limit = 10;
    auto newest = aztables::fan_out_query(
                      table, spread.partition_keys(day).value(),
                      [](const std::string& pk) { return aztables::query::row_range(pk).limit(10); }, fo)
                      .value();
    std::printf("newest 10 events of %s (fan-out over %u partitions):", day.c_str(), spread.buckets());
    bool in_order = newest.size() == 10;
    for (std::size_t i = 0; i < newest.size(); ++i) {
      const int seq = *newest[i].get("Seq")->as_int32();
      std::printf(" %d", seq);
      in_order = in_order && seq == 399 - static_cast<int>(i);
    }
    std::printf("\n");

    // Every event of the day, merged newest first.
    auto all = aztables::fan_out_query(table, spread.partition_keys(day).value(),
                                       [](const std::string& pk) { return aztables::query::row_range(pk); })
                   .value();
    std::printf("all %zu events read back in one merged, newest-first list\n", all.size());

    service->delete_table(table_name).value();
    return in_order && all.size() == 400 && per_partition.size() == 8 ? 0 : 1;
  } catch (const aztables::exception& e) {
    std::fprintf(stderr, "hot_partition failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
