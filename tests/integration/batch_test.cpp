// Entity group transactions against Azurite: all six action kinds, atomicity,
// the 100-action and 4 MiB limits, and the SDK's own checks for what Azurite
// would accept but the service rejects (mixed partitions).
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/batch.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace {

/// Wraps the real transport and counts requests (proves "nothing was sent").
class counting_transport : public aztables::transport {
 public:
  counting_transport() : inner_(aztables::make_curl_transport()) {}
  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    ++count;
    return inner_->send(rq);
  }
  std::atomic<int> count{0};

 private:
  std::shared_ptr<aztables::transport> inner_;
};

struct counted {
  std::shared_ptr<counting_transport> t = std::make_shared<counting_transport>();
  aztables_test::scoped_table table;
  aztables::table_client tc;
  explicit counted(const std::string& prefix) : table(service(t), prefix), tc(table.client()) {}
  static aztables::service_client service(std::shared_ptr<counting_transport> t) {
    aztables::client_options o;
    o.transport = std::move(t);
    return aztables_test::azurite_service(o);
  }
};

aztables::entity make(const std::string& pk, const std::string& rk, std::initializer_list<std::pair<const char*, int>> props) {
  aztables::entity e(pk, rk);
  for (auto& p : props) e.set(p.first, p.second);
  return e;
}

std::optional<aztables::entity> get(aztables::table_client& tc, const std::string& pk, const std::string& rk) {
  return tc.get({pk, rk}).value();
}

struct runner {
  std::string race, bib;
  std::string name;
  std::int32_t age = 0;
  aztables::etag etag;
};

}  // namespace

template <>
struct aztables::entity_traits<runner> {
  static constexpr auto partition_key = &runner::race;
  static constexpr auto row_key = &runner::bib;
  static constexpr auto etag = &runner::etag;
  static constexpr auto properties =
      aztables::fields(aztables::field("Name", &runner::name), aztables::field("Age", &runner::age));
};

TEST_CASE("Azurite batch: all six action kinds in one transaction", "[batch]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "batchsix");
  auto tc = table.client();
  for (const char* rk : {"x1", "x2", "m1", "m2", "d1"}) REQUIRE(tc.insert(make("p", rk, {{"A", 1}, {"B", 2}})));
  auto m1 = get(tc, "p", "m1").value();
  auto d1 = get(tc, "p", "d1").value();

  aztables::batch b(tc);
  m1.erase("A");
  m1.set("B", 20);
  aztables::entity m2 = make("p", "m2", {{"C", 3}});
  m2.etag = aztables::etag::any();
  b.insert(make("p", "n1", {{"A", 1}}))
      .upsert(make("p", "x1", {{"C", 3}}))                                   // merge: A, B stay
      .upsert(make("p", "x2", {{"C", 3}}), aztables::update_mode::replace)  // replace: only C
      .update(m1)                                                            // merge with m1's ETag
      .update(m2, aztables::update_mode::replace)                            // replace with *
      .erase({"p", "d1"}, d1.etag);
  auto r = b.submit();
  REQUIRE(r);
  REQUIRE(r->actions.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK((r->actions[i].status == 201 || r->actions[i].status == 204));
    CHECK(r->actions[i].etag.empty() == (i == 5));
  }
  CHECK(*get(tc, "p", "n1") == make("p", "n1", {{"A", 1}}));
  CHECK(*get(tc, "p", "x1") == make("p", "x1", {{"A", 1}, {"B", 2}, {"C", 3}}));
  CHECK(*get(tc, "p", "x2") == make("p", "x2", {{"C", 3}}));
  CHECK(*get(tc, "p", "m1") == make("p", "m1", {{"A", 1}, {"B", 20}}));
  CHECK(*get(tc, "p", "m2") == make("p", "m2", {{"C", 3}}));
  CHECK(!get(tc, "p", "d1"));
  // The returned ETags are the entities' current ones.
  CHECK(get(tc, "p", "n1")->etag == r->actions[0].etag);
  CHECK(get(tc, "p", "m1")->etag == r->actions[3].etag);
}

TEST_CASE("Azurite batch: a failing action leaves the table unchanged (atomic)", "[batch]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "batchatomic");
  auto tc = table.client();
  REQUIRE(tc.insert(make("p", "exists", {{"V", 1}})));
  auto original = get(tc, "p", "exists").value();

  SECTION("the 2nd action conflicts (409)") {
    aztables::batch b(tc);
    b.insert(make("p", "a", {{"V", 1}})).insert(make("p", "exists", {{"V", 2}})).insert(make("p", "b", {{"V", 1}}));
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::conflict);
    CHECK(r.error().http_status == 409);
    CHECK(r.error().service_code == "EntityAlreadyExists");
    CHECK(r.error().action_index == std::size_t{1});
    CHECK(r.error().message.rfind("The specified entity already exists", 0) == 0);
  }
  SECTION("a stale ETag at the 3rd action (412)") {
    aztables::entity stale = original;
    REQUIRE(tc.upsert(make("p", "exists", {{"V", 5}})));  // moves the ETag on
    stale.set("V", 9);
    aztables::batch b(tc);
    b.upsert(make("p", "a", {{"V", 1}})).insert(make("p", "b", {{"V", 1}})).update(stale);
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::precondition_failed);
    CHECK(r.error().action_index == std::size_t{2});
    original = get(tc, "p", "exists").value();
  }
  SECTION("an update of a missing entity (404)") {
    aztables::entity missing = make("p", "missing", {{"V", 1}});
    missing.etag = aztables::etag::any();
    aztables::batch b(tc);
    b.insert(make("p", "a", {{"V", 1}})).update(missing);
    auto r = b.submit();
    REQUIRE(!r);
    CHECK(r.error().code == aztables::errc::not_found);
    CHECK(r.error().action_index == std::size_t{1});
  }
  CHECK(!get(tc, "p", "a"));
  CHECK(!get(tc, "p", "b"));
  auto now = get(tc, "p", "exists").value();
  CHECK(now == original);
  CHECK(now.etag == original.etag);
}

TEST_CASE("Azurite batch: 100 actions pass; the 101st is refused before sending", "[batch]") {
  counted c("batch100");
  aztables::batch b(c.tc);
  for (int i = 0; i < 100; ++i) b.insert(make("p", "r" + std::to_string(1000 + i), {{"I", i}}));
  const int before = c.t->count;
  auto r = b.submit();
  REQUIRE(r);
  CHECK(r->actions.size() == 100);
  CHECK(c.t->count == before + 1);
  CHECK(get(c.tc, "p", "r1099")->get("I")->as_int32() != nullptr);

  aztables::batch over(c.tc);
  for (int i = 0; i < 101; ++i) over.upsert(make("q", "r" + std::to_string(i), {{"I", i}}));
  const int before2 = c.t->count;
  auto r2 = over.submit();
  REQUIRE(!r2);
  CHECK(r2.error().code == aztables::errc::invalid_argument);
  CHECK(r2.error().action_index == std::size_t{100});
  CHECK(c.t->count == before2);
  CHECK(!get(c.tc, "q", "r0"));
}

TEST_CASE("Azurite batch: a body just under 4 MiB is written; over it is refused before sending", "[batch]") {
  counted c("batch4mib");
  auto big = [](const std::string& rk) {
    aztables::entity e("p", rk);
    // 15 x 65000 bytes of Binary: ~975 KB by the service's formula (< 1 MiB),
    // ~1.3 MB as base64 JSON.
    for (int k = 0; k < 15; ++k) e.set("B" + std::to_string(k), aztables::binary(65000, std::uint8_t(k * 7)));
    return e;
  };
  aztables::batch b(c.tc);
  b.insert(big("a")).insert(big("b")).insert(big("c"));
  const int before = c.t->count;
  auto r = b.submit();
  REQUIRE(r);
  CHECK(c.t->count == before + 1);
  CHECK(*get(c.tc, "p", "b") == big("b"));

  aztables::batch over(c.tc);
  over.insert(big("d")).insert(big("e")).insert(big("f")).insert(big("g"));
  const int before2 = c.t->count;
  auto r2 = over.submit();
  REQUIRE(!r2);
  CHECK(r2.error().code == aztables::errc::invalid_argument);
  CHECK(r2.error().action_index == std::size_t{3});
  CHECK(r2.error().message.find("4 MiB") != std::string::npos);
  CHECK(c.t->count == before2);
  CHECK(!get(c.tc, "p", "d"));
}

TEST_CASE("Azurite batch: two partitions are refused by the SDK (Azurite would accept them)", "[batch]") {
  counted c("batchmixed");
  aztables::batch b(c.tc);
  b.insert(make("p1", "a", {{"V", 1}})).insert(make("p2", "b", {{"V", 1}}));
  const int before = c.t->count;
  auto r = b.submit();
  REQUIRE(!r);
  CHECK(r.error().code == aztables::errc::invalid_argument);
  CHECK(r.error().action_index == std::size_t{1});
  CHECK(r.error().message.find("one PartitionKey") != std::string::npos);
  CHECK(c.t->count == before);
  CHECK(!get(c.tc, "p1", "a"));
}

TEST_CASE("Azurite batch: keys that need escaping, and typed actions", "[batch]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "batchkeys");
  auto tc = table.client();
  const std::string pk = "caf\xc3\xa9 & co";
  const std::string rk1 = "o'brien x", rk2 = "100% \xf0\x9f\x98\x80";
  aztables::batch b(tc);
  b.upsert(make(pk, rk1, {{"V", 1}})).insert(make(pk, rk2, {{"V", 2}}));
  REQUIRE(b.submit());
  CHECK(get(tc, pk, rk1)->get("V")->as_int32());
  aztables::batch del(tc);
  del.erase({pk, rk1}, aztables::etag::any()).upsert(make(pk, rk2, {{"W", 3}}));
  REQUIRE(del.submit());
  CHECK(!get(tc, pk, rk1));
  CHECK(*get(tc, pk, rk2) == make(pk, rk2, {{"V", 2}, {"W", 3}}));

  aztables::batch typed(tc);
  typed.insert(runner{"race", "0001", "John", 55, {}}).insert(runner{"race", "0002", "Ann", 41, {}});
  auto r = typed.submit();
  REQUIRE(r);
  runner john{"race", "0001", "Johnny", 56, r->actions[0].etag};
  aztables::batch upd(tc);
  upd.update(john, aztables::update_mode::replace).erase(runner{"race", "0002", "", 0, r->actions[1].etag});
  REQUIRE(upd.submit());
  auto got = get(tc, "race", "0001").value();
  CHECK(*got.get("Name")->as_string() == "Johnny");
  CHECK(!get(tc, "race", "0002"));
  // A stale mapped ETag is refused by the service.
  aztables::batch stale(tc);
  stale.update(john);
  auto sr = stale.submit();
  REQUIRE(!sr);
  CHECK(sr.error().code == aztables::errc::precondition_failed);
  CHECK(sr.error().action_index == std::size_t{0});
}
