// Typed entities and the four query kinds against Azurite: 2,600 entities in
// 26 partitions (keys chosen so string order differs from numeric order),
// exact counts and order, resume tokens, projection and nometadata size,
// typed round trips of every member type, filter literals, prefix edges.
#include <catch2/catch.hpp>
#include <test_support.hpp>
#include <typed_models.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <thread>

namespace az = aztables;
using az::filter;
using az::key_range;
using az::query;

namespace {

constexpr int partitions = 26;
constexpr int rows_per_partition = 100;
constexpr int total = partitions * rows_per_partition;

std::string pk_of(int p) { return "p" + std::to_string(p); }   // p0 p1 p10 ... : string order
std::string rk_of(int r) { return "r" + std::to_string(r); }

struct item {
  std::string pk, rk;
  std::int32_t n = 0;
  std::int64_t big = 0;
  std::string name;
};

}  // namespace

AZTABLES_MAP(item, pk, rk, n, big, name);

namespace {

/// Counts response body bytes (to compare metadata levels).
class counting_transport : public az::transport {
 public:
  explicit counting_transport(std::shared_ptr<az::transport> inner) : inner_(std::move(inner)) {}
  az::result<az::http_response> send(const az::http_request& rq) override {
    auto r = inner_->send(rq);
    if (r) bytes += r->body.size();
    return r;
  }
  std::atomic<std::size_t> bytes{0};

 private:
  std::shared_ptr<az::transport> inner_;
};

/// One table with 2,600 entities, deleted when the object goes.
struct big_table {
  aztables_test::scoped_table table{aztables_test::azurite_service(), "typedq"};
  std::vector<std::pair<std::string, std::string>> keys;  // in the service's order
  big_table() {
    auto tc = table.client();
    std::atomic<int> next{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w)
      workers.emplace_back([&] {
        for (int i = next++; i < total; i = next++) {
          item it{pk_of(i / rows_per_partition), rk_of(i % rows_per_partition), i, std::int64_t(i) << 33,
                  "name-" + std::to_string(i)};
          if (!tc.insert(it)) ++failures;
        }
      });
    for (auto& t : workers) t.join();
    REQUIRE(failures == 0);
    for (int i = 0; i < total; ++i) keys.emplace_back(pk_of(i / rows_per_partition), rk_of(i % rows_per_partition));
    std::sort(keys.begin(), keys.end());
  }
};

template <class T>
std::vector<std::pair<std::string, std::string>> keys_of(const std::vector<T>& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& x : v) out.emplace_back(x.pk, x.rk);
  return out;
}

template <class T>
std::vector<T> drain(az::pager<T>&& p) {
  std::vector<T> out;
  for (auto& x : p) out.push_back(std::move(x));
  return out;
}

std::vector<std::pair<std::string, std::string>> expected_where(
    const big_table& bt, const std::function<bool(const std::string&, const std::string&)>& pred) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& k : bt.keys)
    if (pred(k.first, k.second)) out.push_back(k);
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

TEST_CASE("Azurite: the four query kinds over 2,600 entities", "[typed][query][paging]") {
  // One table for every block below (no SECTIONs: they would re-run the
  // setup, and a static table would outlive libcurl at exit).
  big_table bt;
  auto tc = bt.table.client();

  {  // table scan: every entity exactly once, in PartitionKey then RowKey string order
    auto all = drain(tc.query<item>(query::table_scan()));
    CHECK(all.size() == static_cast<std::size_t>(total));
    CHECK(keys_of(all) == bt.keys);
    for (auto& x : all) CHECK(x.name == "name-" + std::to_string(x.n));
  }
  {  // page by page with a small page size
    auto p = tc.query<item>(query::table_scan().page_size(333));
    std::size_t pages = 0, count = 0;
    while (!p.done()) {
      auto pg = p.next_page().value();
      CHECK(pg.items.size() <= 333);
      count += pg.items.size();
      ++pages;
    }
    CHECK(count == static_cast<std::size_t>(total));
    CHECK(pages >= 8);
  }
  {  // resume from a token in the middle of a page gives the rest exactly once
    auto p = tc.query<item>(query::table_scan());
    std::vector<item> first;
    std::string token;
    for (auto& x : p) {
      first.push_back(x);
      if (first.size() == 1234) {
        token = p.token();
        break;
      }
    }
    REQUIRE_FALSE(token.empty());
    auto rest = drain(tc.query<item>(query::table_scan().resume(token)));
    CHECK(first.size() + rest.size() == static_cast<std::size_t>(total));
    first.insert(first.end(), rest.begin(), rest.end());
    CHECK(keys_of(first) == bt.keys);
  }
  {  // resume from page tokens, stored as strings between pagers
    std::vector<item> got;
    std::string token;
    int pagers = 0;
    do {
      auto q = query::table_scan().page_size(700);
      if (!token.empty()) q.resume(token);
      auto p = tc.query<item>(std::move(q));
      auto pg = p.next_page().value();
      got.insert(got.end(), pg.items.begin(), pg.items.end());
      token = pg.token;
      ++pagers;
    } while (!token.empty());
    CHECK(pagers >= 4);
    CHECK(keys_of(got) == bt.keys);
  }
  {  // an overall limit, then the rest from the token
    auto p = tc.query<item>(query::table_scan().limit(2501));
    auto head = drain(std::move(p));
    CHECK(head.size() == 2501);
    auto p2 = tc.query<item>(query::table_scan().limit(2501));
    for (auto& x : p2) (void)x;
    const std::string tok = p2.token();
    REQUIRE_FALSE(tok.empty());
    auto tail = drain(tc.query<item>(query::table_scan().resume(tok)));
    CHECK(tail.size() == static_cast<std::size_t>(total - 2501));
    head.insert(head.end(), tail.begin(), tail.end());
    CHECK(keys_of(head) == bt.keys);
  }
  {  // point query
    auto got = drain(tc.query<item>(query::point({"p7", "r42"})));
    REQUIRE(got.size() == 1);
    CHECK(got[0].n == 742);
    CHECK(drain(tc.query<item>(query::point({"p7", "r420"}))).empty());
    auto filtered = drain(tc.query<item>(query::point({"p7", "r42"}).where(filter::eq("n", 0))));
    CHECK(filtered.empty());
  }
  {  // row range: prefix, half-open, closed, exclusive
    auto pre = drain(tc.query<item>(query::row_range("p7", key_range::prefix("r1"))));
    CHECK(keys_of(pre) == expected_where(bt, [](auto& p, auto& r) { return p == "p7" && starts_with(r, "r1"); }));
    CHECK(pre.size() == 11);
    auto ho = drain(tc.query<item>(query::row_range("p3", key_range::half_open("r20", "r3"))));
    CHECK(keys_of(ho) == expected_where(bt, [](auto& p, auto& r) { return p == "p3" && r >= "r20" && r < "r3"; }));
    auto cl = drain(tc.query<item>(query::row_range("p3", key_range::closed("r20", "r3"))));
    CHECK(cl.size() == ho.size() + 1);
    auto gt = drain(tc.query<item>(query::row_range("p3", key_range::greater_than("r98"))));
    CHECK(keys_of(gt) == expected_where(bt, [](auto& p, auto& r) { return p == "p3" && r > "r98"; }));
    auto whole = drain(tc.query<item>(query::row_range("p25")));
    CHECK(whole.size() == 100);
    auto extra = drain(tc.query<item>(query::row_range("p25").where(filter::ge("n", 2590) && filter::ne("n", 2595))));
    CHECK(extra.size() == 9);
  }
  {  // partition range, alone and with a RowKey condition (crosses pages)
    auto pr = drain(tc.query<item>(query::partition_range(key_range::prefix("p1"))));
    CHECK(keys_of(pr) == expected_where(bt, [](auto& p, auto&) { return starts_with(p, "p1"); }));
    CHECK(pr.size() == 1100);
    auto prr = drain(tc.query<item>(query::partition_range(key_range::half_open("p1", "p2"), key_range::at_most("r1"))));
    CHECK(keys_of(prr) ==
          expected_where(bt, [](auto& p, auto& r) { return p >= "p1" && p < "p2" && r <= "r1"; }));
    CHECK(prr.size() == 22);  // r0, r1 in 11 partitions
  }
  {  // table scan with a filter on a property
    auto odd = drain(tc.query<item>(query::table_scan().where(filter::ge("big", std::int64_t(2500) << 33))));
    CHECK(odd.size() == 100);
  }
  {  // dynamic query with projection, and the bytes nometadata saves
    auto counter = std::make_shared<counting_transport>(az::make_curl_transport());
    az::client_options opt;
    opt.transport = counter;
    auto svc = aztables_test::azurite_service(opt);
    auto ctc = svc.table(bt.table.name());
    auto dyn = drain(ctc.query(query::partition_range(key_range::prefix("p1")).select({"PartitionKey", "RowKey", "n", "big", "name"})));
    const std::size_t minimal_bytes = counter->bytes.exchange(0);
    REQUIRE(dyn.size() == 1100);
    CHECK(dyn[0].get("big")->type() == az::edm::int64);  // types survive on minimalmetadata
    CHECK(dyn[0].size() == 3);
    auto typed = drain(ctc.query<item>(query::partition_range(key_range::prefix("p1"))));
    const std::size_t none_bytes = counter->bytes.exchange(0);
    REQUIRE(typed.size() == 1100);
    for (std::size_t i = 0; i < typed.size(); ++i) {
      CHECK(typed[i].big == *dyn[i].get("big")->as_int64());
      CHECK(typed[i].name == *dyn[i].get("name")->as_string());
    }
    std::printf("projection of 1100 entities (5 properties): minimalmetadata %zu bytes, nometadata %zu bytes, "
                "saved %zu bytes (%.1f%%)\n",
                minimal_bytes, none_bytes, minimal_bytes - none_bytes,
                100.0 * double(minimal_bytes - none_bytes) / double(minimal_bytes));
    CHECK(none_bytes < minimal_bytes);
    auto only_n = drain(ctc.query(query::row_range("p0").select({"n"})));
    REQUIRE(only_n.size() == 100);
    CHECK(only_n[0].size() == 1);
    CHECK(only_n[0].contains("n"));
  }
}

TEST_CASE("Azurite: typed round trip of every member type and edge value", "[typed]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "typedrt");
  auto tc = table.client();
  using typed_models::everything;
  everything x;
  x.pk = "p\xC3\xA9";
  x.rk = "r \xE4\xB8\xAD 'q'";
  x.s = "";
  x.b = true;
  x.i32 = std::numeric_limits<std::int32_t>::min();
  x.i64 = std::numeric_limits<std::int64_t>::max();
  x.d = std::numeric_limits<double>::quiet_NaN();
  x.t = az::datetime(az::ticks(16409952001234567LL));  // 100 ns precision
  x.g = *az::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833");
  x.bin = {0, 1, 2, 255};
  x.c = typed_models::color::blue;
  x.sz = typed_models::size::large;
  x.os = "h\xC3\xA9llo \xF0\x9F\x98\x80 \"quoted\" \\ \n";
  x.oi64 = std::numeric_limits<std::int64_t>::min();
  x.od = -std::numeric_limits<double>::infinity();
  x.ot = az::datetime(az::ticks(-116444736000000000LL));  // 1601-01-01
  x.obin = az::binary{};
  x.osz = typed_models::size::small;

  auto check_same = [&](const everything& y) {
    CHECK(y.pk == x.pk);
    CHECK(y.rk == x.rk);
    CHECK(y.s == x.s);
    CHECK(y.b == x.b);
    CHECK(y.i32 == x.i32);
    CHECK(y.i64 == x.i64);
    CHECK(std::isnan(y.d));
    CHECK(y.t == x.t);
    CHECK(y.g == x.g);
    CHECK(y.bin == x.bin);
    CHECK(y.c == x.c);
    CHECK(y.sz == x.sz);
    CHECK(y.h == x.h);
    CHECK(y.os == x.os);
    CHECK_FALSE(y.ob);
    CHECK_FALSE(y.oi32);
    CHECK(y.oi64 == x.oi64);
    CHECK(y.od == x.od);
    CHECK(y.ot == x.ot);
    CHECK_FALSE(y.og);
    CHECK(y.obin == x.obin);
    CHECK(y.osz == x.osz);
  };

  REQUIRE(tc.insert(x));
  CHECK_FALSE(x.etag.empty());
  auto got = tc.get<everything>({x.pk, x.rk}).value();
  REQUIRE(got);
  check_same(*got);
  CHECK(got->etag == x.etag);
  auto listed = drain(tc.query<everything>(query::row_range(x.pk)));
  REQUIRE(listed.size() == 1);
  check_same(listed[0]);
  CHECK(listed[0].etag == x.etag);
  auto dyn = tc.get({x.pk, x.rk}).value();
  REQUIRE(dyn);
  CHECK(az::from_entity<everything>(*dyn));

  SECTION("update with the ETag member; a stale one is 412") {
    everything stale = *got;
    got->i32 = 7;
    REQUIRE(tc.update(*got));
    CHECK(got->etag != stale.etag);
    auto r = tc.update(stale);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::precondition_failed);
    auto e = tc.erase(stale);
    CHECK(e.error().code == az::errc::precondition_failed);
    REQUIRE(tc.erase(*got));
    CHECK_FALSE(tc.get<everything>({x.pk, x.rk}).value());
  }
  SECTION("a stored entity that does not fit the struct is a mapping error naming the property") {
    az::entity e(x.pk, "wrong");
    e.set("I64", "not a number");
    REQUIRE(tc.insert(e));
    auto r = tc.get<typed_models::everything_view>({x.pk, "wrong"});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::mapping);
    CHECK_THAT(r.error().message, Catch::StartsWith("property 'I64'"));
    auto q = tc.query<everything>(query::row_range(x.pk, key_range::at_least("wrong"))).next_page();
    REQUIRE_FALSE(q);
    CHECK(q.error().code == az::errc::mapping);
    CHECK_THAT(q.error().message, Catch::StartsWith("property 'I64'"));
    az::entity missing(x.pk, "x-missing");
    missing.set("S", "only this");
    REQUIRE(tc.insert(missing));
    auto m = tc.get<typed_models::everything_view>({x.pk, "x-missing"});
    REQUIRE_FALSE(m);
    CHECK_THAT(m.error().message, Catch::StartsWith("property 'I64': is missing"));
  }
}

TEST_CASE("Azurite: every filter literal type matches, hostile strings match only themselves", "[typed][filter]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "typedflt");
  auto tc = table.client();
  const std::vector<std::string> hostile = {"x' or 1 eq 1 or 'a' eq 'a", "'", "a''b", "' or PartitionKey ne '",
                                            "%27 or true", "&$top=1", "\xC3\xA9'\xF0\x9F\x98\x80"};
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    az::entity e("h", "r" + std::to_string(i));
    e.set("S", hostile[i]);
    REQUIRE(tc.insert(e));
  }
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    INFO(hostile[i]);
    auto got = drain(tc.query(query::row_range("h").where(filter::eq("S", hostile[i]))));
    REQUIRE(got.size() == 1);
    CHECK(got[0].row_key == "r" + std::to_string(i));
  }
  CHECK(drain(tc.query(query::table_scan().where(filter::eq("S", "' or '1' eq '1")))).empty());

  az::entity t("typed", "1");
  const az::datetime when(az::ticks(16409952001234567LL));
  const az::guid g = *az::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833");
  t.set("I32", 42).set("I64", std::int64_t{1} << 40).set("D", 0.1).set("Big", 1e300).set("B", true).set("T", when)
      .set("G", g).set("X", az::binary{1, 2, 255}).set("W", 2.0);
  REQUIRE(tc.insert(t));
  auto one = [&](const filter& f) { return drain(tc.query(query::row_range("typed").where(f))).size(); };
  CHECK(one(filter::eq("I32", 42)) == 1);
  CHECK(one(filter::eq("I64", std::int64_t{1} << 40)) == 1);
  CHECK(one(filter::eq("I64", 1 << 30)) == 0);  // an Int64 property never equals an Int32 literal
  CHECK(one(filter::eq("D", 0.1)) == 1);
  CHECK(one(filter::eq("Big", 1e300)) == 1);
  CHECK(one(filter::eq("W", 2.0)) == 1);
  CHECK(one(filter::eq("B", true)) == 1);
  CHECK(one(filter::eq("T", when)) == 1);
  CHECK(one(filter::gt("T", when)) == 0);
  CHECK(one(filter::eq("G", g)) == 1);
  CHECK(one(filter::eq("X", az::binary{1, 2, 255})) == 1);
  CHECK(one(filter::eq("I32", 42) && !(filter::eq("B", false) || filter::lt("D", 0.0))) == 1);
}

TEST_CASE("Azurite: prefix ranges at the UTF-16 edges", "[typed][query][range]") {
  aztables_test::scoped_table table(aztables_test::azurite_service(), "typedpfx");
  auto tc = table.client();
  const std::vector<std::string> keys = {
      "a", "a\xEF\xBF\xBF", "a\xEF\xBF\xBF" "b", "b", "ab",
      "\xED\x9F\xBF", "\xED\x9F\xBF" "z", "\xF0\x90\x80\x80", "\xEE\x80\x80",
      "x\xF4\x8F\xBF\xBF", "x\xF4\x8F\xBF\xBF" "q", "x\xEE\x80\x80", "\xC3\xA9", "\xC3\xAA",
  };
  for (const auto& k : keys) REQUIRE(tc.insert(az::entity("pfx", k)));
  for (const std::string prefix : {"a", "a\xEF\xBF\xBF", "\xED\x9F\xBF", "x\xF4\x8F\xBF\xBF", "\xC3\xA9", ""}) {
    INFO(prefix);
    std::set<std::string> expect;
    for (const auto& k : keys)
      if (starts_with(k, prefix)) expect.insert(k);
    std::set<std::string> got;
    for (auto& e : tc.query(query::row_range("pfx", key_range::prefix(prefix)))) got.insert(e.row_key);
    CHECK(got == expect);
  }
}
