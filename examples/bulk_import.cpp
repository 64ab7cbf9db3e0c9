// Bulk import of a CSV-like data set with the bulk writer: rows are parsed
// into entities (PartitionKey = station, RowKey = zero-padded reading time),
// grouped by partition into batches of up to 100, sent with bounded
// concurrency and paced under the service's throttling targets. Progress is
// printed as it goes; rows that break a rule (a deliberately bad station id,
// a bad number) are reported with their line, the rest are written.
// Not atomic across batches: a failure affects only its own batch.
// --stop-after N cancels the import once N rows are done, by throwing from
// the progress callback: the batches in flight finish, nothing else is sent,
// and since every row is an upsert, running the import again completes it.
//
//   AZTABLES_CONNECTION_STRING=... ./bulk_import [rows] [--keep] [--stop-after N]
//   (default: UseDevelopmentStorage=true, 20000 rows; --keep leaves the table)
#include <aztables/aztables.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Thrown from the progress callback to cancel the import.
struct import_cancelled : std::runtime_error {
  explicit import_cancelled(std::size_t done) : std::runtime_error("cancelled after " + std::to_string(done) + " rows") {}
};

/// A generated data set: "station,minute,temperature,humidity" lines over 40
/// stations, plus two bad lines.
std::string generate_csv(int rows) {
  std::string csv = "station,minute,temperature,humidity\n";
  for (int i = 0; i < rows; ++i) {
    const int station = i % 40, minute = i / 40;
    char line[96];
    std::snprintf(line, sizeof line, "WS-%03d,%d,%.1f,%d\n", station, minute, 10.0 + (i * 7 % 250) / 10.0,
                  30 + i % 60);
    csv += line;
    if (i == rows / 3) csv += "WS/999,1,12.5,40\n";  // '/' is not allowed in a key
    if (i == rows / 2) csv += "WS-001,2,warm,40\n";  // not a number
  }
  return csv;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int rows = 20000;
  bool keep = false;
  long stop_after = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--keep") keep = true;
    else if (a == "--stop-after" && i + 1 < argc) stop_after = std::atol(argv[++i]);
    else rows = std::atoi(argv[i]);
  }
  if (rows <= 0 || stop_after == 0 || stop_after < -1) {
    std::fprintf(stderr, "usage: bulk_import [rows] [--keep] [--stop-after N]\n");
    return 2;
  }
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name = "bulkimport";
  try {
    service->create_table_if_not_exists(table_name).value();
    aztables::table_client readings = service->table(table_name);

    aztables::bulk_options options;
    options.concurrency = 4;           // batches in flight
    options.partition_rate = 2000;     // entities/s per partition (the service's target)
    options.account_rate = 20000;      // entities/s in all (the account's target)
    int last_percent = -10;
    options.on_progress = [&](std::size_t done, std::size_t total) {
      const int percent = static_cast<int>(100 * done / total);
      if (percent / 10 != last_percent / 10 || done == total) {
        std::printf("  %3d%%  %zu / %zu\n", percent, done, total);
        std::fflush(stdout);
        last_percent = percent;
      }
      // Cancelling: throw. write() rethrows it once the batches in flight are done.
      if (stop_after > 0 && done >= static_cast<std::size_t>(stop_after) && done < total) throw import_cancelled(done);
    };

    // Parse: one entity per data line; remember each action's line number.
    const std::string csv = generate_csv(rows);
    std::vector<int> line_of;
    std::vector<std::pair<int, std::string>> rejected;
    auto load = [&](aztables::bulk_writer& writer) {
      line_of.clear();
      rejected.clear();
      std::istringstream in(csv);
      std::string line;
      std::getline(in, line);  // header
      for (int line_no = 2; std::getline(in, line); ++line_no) {
        auto cells = split(line);
        char* end = nullptr;
        const double temperature = cells.size() == 4 ? std::strtod(cells[2].c_str(), &end) : 0;
        if (cells.size() != 4 || end == cells[2].c_str() || *end != '\0') {
          rejected.emplace_back(line_no, "not a valid row: " + line);
          continue;
        }
        aztables::entity e(cells[0], aztables::keys::zero_padded(std::atoi(cells[1].c_str()), 6).value());
        e.set("Temperature", temperature).set("Humidity", std::atoi(cells[3].c_str()));
        writer.upsert(std::move(e), aztables::update_mode::replace);  // re-running the import is harmless
        line_of.push_back(line_no);
      }
    };
    aztables::bulk_writer writer(readings, options);
    load(writer);
    std::printf("importing %zu rows into '%s'\n", writer.size(), table_name.c_str());

    const auto t0 = std::chrono::steady_clock::now();
    aztables::bulk_result result;
    try {
      result = writer.write().value();
    } catch (const import_cancelled& c) {
      // Whole batches only: count what landed, then finish with a second run
      // (upserts: the rows already stored are simply written again).
      std::size_t stored = 0;
      for (const aztables::entity& e : readings.query(aztables::query::table_scan().select({"RowKey"}))) {
        (void)e;
        ++stored;
      }
      std::printf("%s: %zu rows are stored (the batches in flight finished); importing again\n", c.what(), stored);
      options.on_progress = nullptr;
      aztables::bulk_writer again(readings, options);
      load(again);
      result = again.write().value();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    for (const auto& f : result.failures) rejected.emplace_back(line_of[f.index], f.error.to_string());
    std::printf("written %zu of %zu rows in %zu batches, %.2f s (%.0f rows/s)\n", result.written, result.total,
                result.batches, secs, static_cast<double>(result.written) / secs);
    std::sort(rejected.begin(), rejected.end());
    std::printf("%zu lines rejected:\n", rejected.size());
    for (const auto& [line_no, why] : rejected) std::printf("  line %d: %s\n", line_no, why.c_str());

    if (!keep) service->delete_table(table_name).value();
    const bool ok = result.written == static_cast<std::size_t>(rows) && rejected.size() == 2;
    if (ok) std::printf("OK: all %d valid rows written, the 2 bad lines rejected\n", rows);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    return 1;
  }
}
