// Dual rows in one atomic batch: the partitioning guide's pattern for two
// dominant queries. Each runner of a race is stored twice in the race's
// partition, under
//   BIB:01234__John         -> a point query by bib number, and
//   AGE:055__1234__John     -> a row-range scan by age ("AGE:050" .. "AGE:060"),
// and both copies are written (and later changed) in one entity group
// transaction, so they can never disagree: all actions apply or none does.
//
//   AZTABLES_CONNECTION_STRING=... ./dual_row_batch   (default: UseDevelopmentStorage=true)
#include <aztables/aztables.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const std::string race = "marathon-2026";

struct runner {
  int bib;
  std::string name;
  int age;
};

// Zero padding keeps string order equal to numeric order ("055" < "100").
std::string bib_key(const runner& r) { return "BIB:" + aztables::keys::zero_padded(r.bib, 5).value() + "__" + r.name; }
std::string age_key(const runner& r) {
  return "AGE:" + aztables::keys::zero_padded(r.age, 3).value() + "__" + std::to_string(r.bib) + "__" + r.name;
}

aztables::entity row(const runner& r, const std::string& row_key) {
  aztables::entity e(race, row_key);
  e.set("Bib", r.bib).set("Name", r.name).set("Age", r.age);
  return e;
}

}  // namespace

int main() {
  const char* cs = std::getenv("AZTABLES_CONNECTION_STRING");
  auto service = aztables::service_client::from_connection_string(cs ? cs : "UseDevelopmentStorage=true");
  if (!service) {
    std::fprintf(stderr, "bad connection string: %s\n", service.error().to_string().c_str());
    return 1;
  }
  const std::string table_name = "dualrows";
  try {
    service->create_table_if_not_exists(table_name).value();
    aztables::table_client runners = service->table(table_name);

    // 1. Each runner: both rows in one batch (same partition, two RowKeys).
    for (const runner& r : {runner{1234, "John", 55}, runner{77, "Ann", 41}}) {
      aztables::batch b(runners);
      b.upsert(row(r, bib_key(r)), aztables::update_mode::replace)
          .upsert(row(r, age_key(r)), aztables::update_mode::replace);
      auto written = b.submit().value();
      std::printf("wrote %s and %s atomically (HTTP %d, %d)\n", bib_key(r).c_str(), age_key(r).c_str(),
                  written.actions[0].status, written.actions[1].status);
    }

    // 2. Query 1: by bib, a point query.
    runner john{1234, "John", 55};
    auto by_bib = runners.get({race, bib_key(john)}).value();
    if (!by_bib) throw std::runtime_error("BIB row missing");
    std::printf("point query %s -> Age %d\n", bib_key(john).c_str(), *by_bib->get("Age")->as_int32());

    // 3. John has a birthday: the AGE row's key changes, so the change is a
    //    delete of the old AGE row, an insert of the new one and a merge of
    //    the BIB row, conditional on the version just read, in one batch.
    runner older = john;
    older.age = 56;
    aztables::entity bib_update(race, bib_key(john));
    bib_update.set("Age", older.age);
    bib_update.etag = by_bib->etag;  // If-Match: fails if someone changed it meanwhile
    aztables::batch birthday(runners);
    birthday.erase({race, age_key(john)}, aztables::etag::any())
        .insert(row(older, age_key(older)))
        .update(bib_update);
    birthday.submit().value();
    std::printf("moved %s -> %s and updated the BIB row, atomically\n", age_key(john).c_str(),
                age_key(older).c_str());

    // 4. A batch that cannot apply changes nothing: John's BIB row exists, so
    //    inserting it again fails at action 0 and the new AGE row (action 1)
    //    is not written either.
    runner again{1234, "John", 57};
    aztables::batch dup(runners);
    dup.insert(row(again, bib_key(again))).insert(row(again, age_key(again)));
    auto failed = dup.submit();
    if (failed) throw std::runtime_error("the duplicate batch unexpectedly succeeded");
    std::printf("duplicate batch refused: %s\n", failed.error().to_string().c_str());
    const bool leaked = runners.get({race, age_key(again)}).value().has_value();
    std::printf("its AGE row %s written: %s\n", age_key(again).c_str(), leaked ? "yes (BUG)" : "no");

    // 5. The checks made before sending: two partitions in one batch.
    aztables::batch mixed(runners);
    mixed.insert(row(again, bib_key(again))).insert(aztables::entity("another-race", "BIB:00001__Zed"));
    std::printf("mixed partitions: %s\n", mixed.validate().error().to_string().c_str());

    service->delete_table(table_name).value();
    return leaked ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    (void)service->delete_table_if_exists(table_name);
    return 1;
  }
}
