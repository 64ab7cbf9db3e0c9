// Azurite: table operations and their error paths, authentication (SharedKey,
// SharedKeyLite, wrong key), and list-tables continuation over > 1000 tables.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

namespace az = aztables;
using aztables_test::azurite_service;
using aztables_test::unique_table_name;

namespace {

az::service_client service_with(az::shared_key_scheme scheme, const std::string& key = std::string(az::development_account_key)) {
  const std::string endpoint = aztables_test::azurite_endpoint();
  return az::service_client::create(endpoint, az::shared_key_credential("devstoreaccount1", key, scheme)).value();
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("Azurite: create, list, delete a table and every error on the way", "[core][tables]") {
  auto svc = azurite_service();
  const std::string name = unique_table_name("core");

  REQUIRE(svc.create_table(name));
  auto again = svc.create_table(name);
  REQUIRE_FALSE(again);
  CHECK(again.error().code == az::errc::conflict);
  CHECK(again.error().http_status == 409);
  CHECK(again.error().service_code == "TableAlreadyExists");
  CHECK_FALSE(again.error().request_id.empty());
  CHECK(again.error().message == "The table specified already exists.");

  // Table names are case-insensitive.
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  CHECK(svc.create_table(upper).error().service_code == "TableAlreadyExists");

  CHECK(svc.create_table_if_not_exists(name).value() == false);
  auto all = svc.list_tables();
  REQUIRE(all);
  CHECK(contains(*all, name));
  auto some = svc.list_tables(name.substr(0, name.size() - 1));
  REQUIRE(some);
  CHECK(contains(*some, name));
  for (const auto& n : *some) CHECK(n.rfind(name.substr(0, name.size() - 1), 0) == 0);

  REQUIRE(svc.delete_table(name));
  auto gone = svc.delete_table(name);
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code == az::errc::not_found);
  CHECK(gone.error().http_status == 404);
  CHECK_FALSE(gone.error().service_code.empty());
  CHECK(svc.delete_table_if_exists(name).value() == false);
  CHECK_FALSE(contains(svc.list_tables().value(), name));

  CHECK(svc.create_table_if_not_exists(name).value() == true);
  CHECK(svc.delete_table_if_exists(name).value() == true);
}

TEST_CASE("Azurite: operations on a missing table fail with TableNotFound", "[core][tables]") {
  auto tc = azurite_service().table(unique_table_name("missing"));
  auto g = tc.get({"p", "r"});
  REQUIRE_FALSE(g);  // unlike a missing entity, a missing table is an error
  CHECK(g.error().code == az::errc::not_found);
  CHECK(g.error().service_code == "TableNotFound");
  auto i = tc.insert(az::entity("p", "r"));
  REQUIRE_FALSE(i);
  CHECK(i.error().code == az::errc::not_found);
  CHECK(i.error().service_code == "TableNotFound");
}

TEST_CASE("Azurite: list tables with a prefix follows continuations past 1000 tables", "[core][tables]") {
  // Azurite pages table lists at 1000 (x-ms-continuation-NextTableName).
  auto svc = azurite_service();
  const std::string prefix = unique_table_name("page") + "x";
  const int count = 1003;
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back(prefix + std::to_string(10000 + i));
  std::atomic<int> failures{0};
  auto in_parallel = [&](auto fn) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        for (int i = t; i < count; i += 8)
          if (!fn(names[static_cast<std::size_t>(i)])) ++failures;
      });
    for (auto& th : threads) th.join();
  };
  in_parallel([&](const std::string& n) { return static_cast<bool>(svc.create_table(n)); });
  REQUIRE(failures == 0);
  // Attempts per page are visible through the retry hook.
  int pages = 0;
  az::client_options opt;
  opt.retry.on_attempt = [&](const az::attempt_info& a) {
    if (a.operation == "list_tables") ++pages;
  };
  auto counting = az::service_client::from_connection_string(aztables_test::azurite_connection_string(), opt).value();
  auto listed = counting.list_tables(prefix);
  REQUIRE(listed);
  CHECK(listed->size() == static_cast<std::size_t>(count));
  std::vector<std::string> sorted = *listed;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());  // nothing twice
  CHECK(sorted == names);
  CHECK(pages == 2);
  in_parallel([&](const std::string& n) { return static_cast<bool>(svc.delete_table(n)); });
  CHECK(failures == 0);
  CHECK(svc.list_tables(prefix).value().empty());
}

TEST_CASE("Azurite: SharedKey and SharedKeyLite are both accepted", "[core][auth]") {
  for (auto scheme : {az::shared_key_scheme::shared_key, az::shared_key_scheme::shared_key_lite}) {
    INFO((scheme == az::shared_key_scheme::shared_key ? "SharedKey" : "SharedKeyLite"));
    auto svc = service_with(scheme);
    const std::string name = unique_table_name("auth");
    REQUIRE(svc.create_table(name));
    auto tc = svc.table(name);
    az::entity e("O'Brien & co", "a b+c%d\xc3\xa9");
    e.set("N", std::int64_t{5});
    auto w = tc.insert(e);
    REQUIRE(w);
    auto got = tc.get(e.key(), {"N"});
    REQUIRE(got);
    REQUIRE(*got);
    CHECK(**got == e);
    e.etag = w->etag;
    REQUIRE(tc.update(e, az::update_mode::replace));
    REQUIRE(tc.erase(e.key(), az::etag::any()));
    CHECK(contains(svc.list_tables(name).value(), name));
    REQUIRE(svc.delete_table(name));
  }
}

TEST_CASE("Azurite: a wrong key is an authentication error that shows no secret", "[core][auth]") {
  // A valid base64 key that is not the account's.
  const std::string wrong = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";
  for (auto scheme : {az::shared_key_scheme::shared_key, az::shared_key_scheme::shared_key_lite}) {
    auto svc = service_with(scheme, wrong);
    for (auto r : {svc.create_table("authwrong"), svc.delete_table("authwrong")}) {
      REQUIRE_FALSE(r);
      CHECK(r.error().code == az::errc::authentication);
      CHECK(r.error().http_status == 403);
      CHECK(r.error().service_code == "AuthorizationFailure");  // from Azurite's XML body
      CHECK_THAT(r.error().message, Catch::StartsWith("Server failed to authenticate the request."));
      CHECK_FALSE(r.error().request_id.empty());
      CHECK(r.error().attempts == 1);  // 403 is never retried
      const std::string text = r.error().to_string();
      CHECK(text.find(wrong) == std::string::npos);
      CHECK(text.find("SharedKey") == std::string::npos);
    }
    auto l = svc.list_tables();
    REQUIRE_FALSE(l);
    CHECK(l.error().code == az::errc::authentication);
    auto g = svc.table("authwrong").get({"p", "r"});
    REQUIRE_FALSE(g);
    CHECK(g.error().code == az::errc::authentication);
  }
}

TEST_CASE("Azurite: the emulator connection string forms", "[core][auth]") {
  // The connection string the harness exports (explicit TableEndpoint) and the
  // same endpoint given directly.
  auto a = az::service_client::from_connection_string(aztables_test::azurite_connection_string()).value();
  CHECK(a.endpoint() == aztables_test::azurite_endpoint());
  CHECK(a.list_tables());
  auto b = az::service_client::from_connection_string(aztables_test::dev_connection_string(aztables_test::azurite_endpoint()))
               .value();
  CHECK(b.list_tables());
  // UseDevelopmentStorage=true means port 10002, which the harness never uses;
  // DevelopmentStorageProxyUri keeps port 10002 too, so only the shape is checked.
  auto dev = az::service_client::from_connection_string("UseDevelopmentStorage=true").value();
  CHECK(dev.endpoint() == "http://127.0.0.1:10002/devstoreaccount1");
}
