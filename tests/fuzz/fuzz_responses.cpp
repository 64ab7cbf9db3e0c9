// Whole operations over a transport that answers with fuzzed statuses,
// headers and bodies: table lists with NextTableName continuations, point
// reads, writes (ETag headers), access policies, with retries (hints) and a
// SAS with a key range. Covers continuation handling and every response path
// of the core. Properties: an operation ends (continuations that do not
// advance are errors), and errors carry a category.
#include "fuzz_common.hpp"

#include <memory>

namespace {

using fuzz::scripted_transport;

void check(const aztables::error& e) {
  FUZZ_ASSERT(static_cast<int>(e.code) >= 1 && static_cast<int>(e.code) <= 11);
  (void)e.to_string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int which = in.ConsumeIntegralInRange<int>(0, 6);
  auto t = std::make_shared<scripted_transport>(in);
  aztables::client_options o;
  o.transport = t;
  o.clock = fuzz::fixed_now;
  o.retry = aztables::retry_options::fixed(2, std::chrono::milliseconds(1));
  o.retry.sleep = [](std::chrono::milliseconds) {};
  o.retry.random = [] { return 0.5; };
  aztables::credential cred =
      which == 6 ? aztables::credential(aztables::sas_credential{"sv=2019-02-02&tn=orders&sp=raud&spk=b&epk=d&sig=c2ln"})
                 : aztables::credential(aztables::shared_key_credential(
                       "devstoreaccount1", std::string(aztables::development_account_key)));
  auto svc = aztables::service_client::create("https://devstoreaccount1.table.core.windows.net", cred, o);
  FUZZ_ASSERT(svc);
  auto tc = svc->table("orders");
  aztables::entity e("c", "r");
  e.set("N", 1);
  switch (which) {
    case 0: {
      auto r = svc->list_tables(in.ConsumeBool() ? "" : "pre");
      if (!r) check(r.error());
      break;
    }
    case 1: {
      auto r = tc.get({"c", "r"});
      if (!r) check(r.error());
      break;
    }
    case 2: {
      auto r = tc.insert(e);
      if (!r) check(r.error());
      break;
    }
    case 3: {
      auto r = tc.upsert(e, in.ConsumeBool() ? aztables::update_mode::merge : aztables::update_mode::replace);
      if (!r) check(r.error());
      break;
    }
    case 4: {
      auto r = aztables::get_access_policies(tc);
      if (!r) check(r.error());
      break;
    }
    case 5: {
      auto r = svc->create_table_if_not_exists("orders");
      if (!r) check(r.error());
      break;
    }
    default: {
      auto r = tc.get({in.ConsumeBool() ? "a" : "c", "r"});
      if (!r) check(r.error());
    }
  }
  return 0;
}
