// Foot-race registrations, the partitioning guide's example, with typed
// entities and row-range queries.
//
// PartitionKey = the race. Each runner is stored twice in the race's
// partition, so both dominant questions are range scans of one partition:
//   BIB:00042__Ann            who wears bib 42?          (prefix "BIB:00042__")
//   AGE:041__00042__Ann       who is in their forties?   (prefix "AGE:04")
// Both rows are written in one entity group transaction, so they agree.
//
//   AZTABLES_CONNECTION_STRING=... ./foot_race   (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// [snippet:foot-race-mapping]
struct registration {
  std::string race;  // PartitionKey
  std::string key;   // RowKey: "BIB:..." or "AGE:..."
  std::string name;
  std::int32_t bib = 0;
  std::int32_t age = 0;
};
// Properties are named after the members: "name", "bib", "age".
AZTABLES_MAP(registration, race, key, name, bib, age);
// [/snippet:foot-race-mapping]

namespace {

// Zero padding keeps string order equal to numeric order ("041" < "100").
std::string bib_key(int bib, const std::string& name) {
  return "BIB:" + aztables::keys::zero_padded(bib, 5).value() + "__" + name;
}
std::string age_key(int age, int bib, const std::string& name) {
  return "AGE:" + aztables::keys::zero_padded(age, 3).value() + "__" + aztables::keys::zero_padded(bib, 5).value() +
         "__" + name;
}

}  // namespace

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  // A table of its own per run (a deleted name stays busy for a while on Azure).
  const std::string table_name =
      "footrace" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  const std::string race = "oslo-marathon-2026";
  try {
    service->create_table(table_name).value();
    aztables::table_client runners = service->table(table_name);
    std::printf("created table '%s'\n", table_name.c_str());

    struct entry {
      std::string name;
      int bib, age;
    };
    const std::vector<entry> field = {{"Ann", 42, 41},  {"Bo", 7, 38},    {"Cleo", 1234, 55},
                                      {"Dag", 311, 47}, {"Eva", 99, 49},  {"Finn", 500, 60},
                                      {"Gro", 8, 40},   {"Hans", 61, 39}, {"Ida", 4242, 44}};
    for (const entry& e : field) {
      registration by_bib{race, bib_key(e.bib, e.name), e.name, e.bib, e.age};
      registration by_age{race, age_key(e.age, e.bib, e.name), e.name, e.bib, e.age};
      aztables::batch both(runners);
      both.insert(by_bib).insert(by_age);
      both.submit().value();
    }
    std::printf("registered %zu runners, two rows each, each pair in one batch\n", field.size());

    // [snippet:foot-race-age-query]
    // Runners in their forties: one partition, RowKeys from "AGE:04" up to
    // (not including) "AGE:05" -- key_range::prefix computes that bound.
    auto forties = runners.query<registration>(
        aztables::query::row_range(race, aztables::key_range::prefix("AGE:04")));
    for (const registration& r : forties)  // pages are fetched as needed
      std::printf("  %-5s age %d, bib %d\n", r.name.c_str(), r.age, r.bib);
    // [/snippet:foot-race-age-query]

    // Who wears bib 42? The name follows the bib in the key, so this is a
    // prefix range too (at most one row).
    auto bib42 = runners.query<registration>(aztables::query::row_range(race, aztables::key_range::prefix("BIB:00042__")));
    for (const registration& r : bib42) std::printf("bib 42 is %s (age %d)\n", r.name.c_str(), r.age);

    // Both questions at once, counting: 9 BIB rows, 5 runners aged 40-49.
    std::size_t bib_rows = 0, forty_rows = 0;
    for (const registration& r : runners.query<registration>(aztables::query::row_range(race))) {
      if (r.key.rfind("BIB:", 0) == 0) ++bib_rows;
      if (r.key.rfind("AGE:04", 0) == 0) ++forty_rows;
    }
    std::printf("partition '%s': %zu BIB rows, %zu runners in their forties\n", race.c_str(), bib_rows, forty_rows);

    service->delete_table(table_name).value();
    std::printf("deleted table '%s'\n", table_name.c_str());
    return bib_rows == field.size() && forty_rows == 5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
