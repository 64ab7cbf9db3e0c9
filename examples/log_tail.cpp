// A newest-first log: RowKeys made with inverted ticks, so the service's
// ascending key order is newest first. "The last N lines" is then the first
// N of a row-range query (one request, no scan of older lines), and "what is
// new since I looked" is a range below the newest key already seen.
//
//   AZTABLES_CONNECTION_STRING=... ./log_tail      (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <string>
#include <vector>

namespace keys = aztables::keys;

namespace {

// RowKey: newest-first time, then the writer, so two writers logging in the
// same 100 ns tick never collide (a composite key splits back exactly).
std::string log_row_key(aztables::datetime t, const std::string& writer) {
  return keys::composite({keys::inverted_ticks(t).value(), writer}).value();
}

aztables::datetime time_of(const std::string& row_key) {
  return keys::parse_inverted_ticks(keys::split_composite(row_key).value().at(0)).value();
}

std::string hh_mm_ss(aztables::datetime t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::gmtime(&secs));
  return buf;
}

void print(const char* title, const std::vector<aztables::entity>& lines) {
  std::printf("%s\n", title);
  for (const auto& e : lines)
    std::printf("  %s  %s\n", hh_mm_ss(time_of(e.row_key)).c_str(), e.get("Message")->as_string()->c_str());
}

}  // namespace

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name =
      "logtail" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000000);
  try {
    service->create_table(table_name).value();
    aztables::table_client table = service->table(table_name);
    const std::string source = "web-01";  // PartitionKey: one log source
    const aztables::datetime t0 = keys::datetime_now();

    // 50 lines, one a second, oldest first (as a log is written).
    aztables::bulk_writer writer(table);
    for (int i = 0; i < 50; ++i) {
      const auto t = t0 + std::chrono::seconds(i);
      aztables::entity e(source, log_row_key(t, "writer-1"));
      e.set("Message", "request " + std::to_string(i) + " served").set("Level", i % 10 == 9 ? "WARN" : "INFO");
      writer.insert(std::move(e));
    }
    writer.write().value();

    // tail -n 5: the first five keys of the partition are the newest five lines.
    std::vector<aztables::entity> tail;
    for (auto& e : table.query(aztables::query::row_range(source).limit(5))) tail.push_back(e);
    print("newest 5 lines:", tail);
    const std::string newest_seen = tail.front().row_key;

    // Three more lines arrive...
    for (int i = 50; i < 53; ++i) {
      aztables::entity e(source, log_row_key(t0 + std::chrono::seconds(i), "writer-2"));
      e.set("Message", "request " + std::to_string(i) + " served").set("Level", "INFO");
      table.insert(e).value();
    }
    // ...and "tail -f" fetches just those: keys below the newest one seen.
    std::vector<aztables::entity> fresh;
    for (auto& e : table.query(aztables::query::row_range(source, aztables::key_range::less_than(newest_seen))))
      fresh.push_back(e);
    print("new since the last look:", fresh);

    // Warnings of the last 20 seconds: a key range (newer than t) plus a filter.
    const auto since = t0 + std::chrono::seconds(33);
    auto recent = aztables::query::row_range(source, aztables::key_range::less_than(keys::inverted_ticks(since).value()))
                      .where(aztables::filter::eq("Level", "WARN"));
    std::vector<aztables::entity> warnings;
    for (auto& e : table.query(std::move(recent))) warnings.push_back(e);
    print("warnings after t0+33s:", warnings);

    service->delete_table(table_name).value();
    const bool ok = tail.size() == 5 && fresh.size() == 3 && warnings.size() == 2 &&
                    tail.front().get("Message")->as_string()->find("request 49 ") == 0 &&
                    fresh.front().get("Message")->as_string()->find("request 52 ") == 0;
    return ok ? 0 : 1;
  } catch (const aztables::exception& e) {
    std::fprintf(stderr, "log_tail failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
