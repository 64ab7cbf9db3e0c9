// Azurite: every entity operation and its error paths, keys that need escaping,
// every Edm type with edge values, large non-ASCII bodies, and one client
// shared by 8 threads.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace az = aztables;
using aztables_test::azurite_service;
using aztables_test::scoped_table;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string r;
  r.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) r += s;
  return r;
}

az::entity must_get(az::table_client& tc, const az::entity_key& k, const az::select_list& select = {}) {
  auto r = tc.get(k, select);
  if (!r) FAIL("get failed: " << r.error().to_string());
  if (!*r) FAIL("entity (" << k.partition_key << ", " << k.row_key << ") not found");
  return std::move(**r);
}

az::datetime at(std::int64_t unix_seconds, std::int64_t extra_ticks = 0) {
  return az::datetime(az::ticks(unix_seconds * 10000000 + extra_ticks));
}

}  // namespace

TEST_CASE("Azurite: the life of an entity, with ETags and exact error codes", "[core][entities]") {
  scoped_table table(azurite_service(), "life");
  auto tc = table.client();
  az::entity e("p", "r");
  e.set("A", 1).set("B", "x");

  auto w1 = tc.insert(e);
  REQUIRE(w1);
  CHECK_THAT(w1->etag.str(), Catch::StartsWith("W/\"datetime'"));

  auto dup = tc.insert(e);
  REQUIRE_FALSE(dup);
  CHECK(dup.error().code == az::errc::conflict);
  CHECK(dup.error().http_status == 409);
  CHECK(dup.error().service_code == "EntityAlreadyExists");
  CHECK(dup.error().message == "The specified entity already exists.");

  az::entity got = must_get(tc, {"p", "r"});
  CHECK(got == e);
  CHECK(got.etag == w1->etag);
  REQUIRE(got.timestamp);

  SECTION("$select returns only what was asked for") {
    az::entity only_a = must_get(tc, {"p", "r"}, {"A"});
    CHECK(only_a.size() == 1);
    CHECK(*only_a.get("A")->as_int32() == 1);
    CHECK(only_a.partition_key == "p");
    CHECK(only_a.row_key == "r");
    CHECK(only_a.etag == w1->etag);
    az::entity with_missing = must_get(tc, {"p", "r"}, {"B", "Missing"});
    CHECK(*with_missing.get("B")->as_string() == "x");
    CHECK_FALSE(with_missing.contains("Missing"));  // Azurite omits it (the service sends null): absent either way
  }

  // Upsert merge keeps what the entity does not name; replace drops it.
  az::entity c("p", "r");
  c.set("C", 2.5);
  REQUIRE(tc.upsert(c, az::update_mode::merge));
  got = must_get(tc, {"p", "r"});
  CHECK(got.size() == 3);
  CHECK(*got.get("C")->as_double() == 2.5);
  az::entity d("p", "r");
  d.set("D", true);
  auto w2 = tc.upsert(d, az::update_mode::replace);
  REQUIRE(w2);
  got = must_get(tc, {"p", "r"});
  CHECK(got == d);
  CHECK(got.etag == w2->etag);

  // A stale ETag: 412, nothing changed.
  az::entity stale = d;
  stale.etag = w1->etag;
  stale.set("D", false);
  for (auto mode : {az::update_mode::merge, az::update_mode::replace}) {
    auto r = tc.update(stale, mode);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::precondition_failed);
    CHECK(r.error().http_status == 412);
    CHECK(r.error().service_code == "UpdateConditionNotSatisfied");
  }
  CHECK(must_get(tc, {"p", "r"}) == d);

  // The current ETag: accepted, and a new ETag comes back.
  az::entity merge = must_get(tc, {"p", "r"});
  merge.clear();
  merge.set("E", std::int64_t{7});
  auto w3 = tc.update(merge, az::update_mode::merge);
  REQUIRE(w3);
  CHECK(w3->etag != w2->etag);
  got = must_get(tc, {"p", "r"});
  CHECK(got.size() == 2);
  CHECK(got.etag == w3->etag);
  az::entity replace("p", "r");
  replace.set("F", "only");
  replace.etag = az::etag::any();
  REQUIRE(tc.update(replace, az::update_mode::replace));
  CHECK(must_get(tc, {"p", "r"}) == replace);

  // Delete: a stale ETag is refused, the current one works, then it is gone.
  auto bad_delete = tc.erase({"p", "r"}, w1->etag);
  REQUIRE_FALSE(bad_delete);
  CHECK(bad_delete.error().code == az::errc::precondition_failed);
  CHECK(bad_delete.error().service_code == "UpdateConditionNotSatisfied");
  REQUIRE(tc.erase({"p", "r"}, must_get(tc, {"p", "r"}).etag));
  auto missing = tc.get({"p", "r"});
  REQUIRE(missing);
  CHECK_FALSE(missing->has_value());  // absent is an answer, not an error

  // Operations that need the entity: 404 ResourceNotFound.
  auto del = tc.erase({"p", "r"}, az::etag::any());
  REQUIRE_FALSE(del);
  CHECK(del.error().code == az::errc::not_found);
  CHECK(del.error().http_status == 404);
  CHECK(del.error().service_code == "ResourceNotFound");
  for (auto mode : {az::update_mode::merge, az::update_mode::replace}) {
    auto u = tc.update(replace, mode);
    REQUIRE_FALSE(u);
    CHECK(u.error().code == az::errc::not_found);
    CHECK(u.error().service_code == "ResourceNotFound");
  }

  // Upserts create what is missing, in both modes.
  REQUIRE(tc.upsert(az::entity("p", "m1"), az::update_mode::merge));
  REQUIRE(tc.upsert(az::entity("p", "m2"), az::update_mode::replace));
  CHECK(must_get(tc, {"p", "m1"}).empty());
  CHECK(must_get(tc, {"p", "m2"}).empty());
}

TEST_CASE("Azurite: keys that need escaping round trip through every operation", "[core][entities][escaping]") {
  scoped_table table(azurite_service(), "keys");
  auto tc = table.client();
  const std::string keys[] = {
      "O'Brien",
      "it''s '' '",
      "with space",
      " leading and trailing ",
      "100%",
      "%41%zz",
      "a+b",
      "a&b=c;d,e",
      "(x)[y]{z}<>|^`~!@$*:",
      "\"quoted\"",
      "h\xc3\xa9llo",
      "\xe4\xb8\xad\xe6\x96\x87",
      "emoji \xf0\x9f\x98\x80",
      "nbsp\xc2\xa0" "and U+2028\xe2\x80\xa8",
      "",
      std::string(512, 'k'),
      repeat("\xf0\x9f\x98\x80", 256),  // 512 UTF-16 units
  };
  int n = 0;
  for (const auto& k : keys) {
    INFO("key #" << n << ": " << k);
    const std::string other = "r" + std::to_string(n++);
    for (const auto& key : {az::entity_key{k, other}, az::entity_key{other, k}}) {
      az::entity e(key.partition_key, key.row_key);
      e.set("K", k);
      auto w = tc.insert(e);
      REQUIRE(w);
      az::entity got = must_get(tc, key);
      CHECK(got.partition_key == key.partition_key);
      CHECK(got.row_key == key.row_key);
      CHECK(*got.get("K")->as_string() == k);
      got.set("V", 1);
      REQUIRE(tc.update(got, az::update_mode::merge));
      REQUIRE(tc.upsert(got, az::update_mode::replace));
      CHECK(must_get(tc, key, {"V"}).get("V") != nullptr);
      REQUIRE(tc.erase(key, az::etag::any()));
      auto gone = tc.get(key);
      REQUIRE(gone);
      CHECK_FALSE(gone->has_value());
    }
  }
}

TEST_CASE("Azurite: every Edm type round trips losslessly, edge values included", "[core][entities][types]") {
  scoped_table table(azurite_service(), "types");
  auto tc = table.client();
  az::binary bytes(65536);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>((i * 131 + 7) & 0xff);
  az::entity e("types", "edge");
  e.set("I32max", std::numeric_limits<std::int32_t>::max())
      .set("I32min", std::numeric_limits<std::int32_t>::min())
      .set("I32zero", 0)
      .set("I64max", std::numeric_limits<std::int64_t>::max())
      .set("I64min", std::numeric_limits<std::int64_t>::min())
      .set("I64small", std::int64_t{1})
      .set("I64bits", std::int64_t{0x7edcba9876543211})
      .set("I64beyond53", (std::int64_t{1} << 53) + 1)
      .set("Dzero", 0.0)
      .set("Dwhole", 2.0)
      .set("DwholeNeg", -3.0)
      .set("Dbig", 1e308)
      .set("Dmax", std::numeric_limits<double>::max())
      .set("Dmin", std::numeric_limits<double>::min())
      .set("Ddenorm", std::numeric_limits<double>::denorm_min())
      .set("Dtenth", 0.1)
      .set("D1e20", 1e20)
      .set("D2p53", 9007199254740992.0)
      .set("DNaN", std::numeric_limits<double>::quiet_NaN())
      .set("DInf", std::numeric_limits<double>::infinity())
      .set("DNegInf", -std::numeric_limits<double>::infinity())
      .set("T100ns", at(1767323045, 1234567))
      .set("T1tick", at(1767323045, 1))
      .set("Tpre1970", at(-1, 9999999))
      .set("T1601", at(-11644473600))
      .set("T9999", at(253402300799, 9999999))
      .set("G", *az::guid::parse("c9da6455-213d-42c9-9a79-3e9149a57833"))
      .set("Gzero", az::guid())
      .set("Bempty", az::binary{})
      .set("B64k", bytes)
      .set("Btrue", true)
      .set("Bfalse", false)
      .set("Sempty", "")
      .set("Sascii", "plain")
      .set("Sunicode", "h\xc3\xa9llo \xe4\xb8\xad \xf0\x9f\x98\x80")
      .set("Scontrol", std::string("nul\0 \x01\x1f\t\n\r\b\f \x7f", 14))
      .set("Squotes", "\"double\" 'single' \\back\\ /slash/")
      .set("Sseparators", "\xe2\x80\xa8 \xe2\x80\xa9")
      .set("Slooks_typed", "9223372036854775807")
      .set("Sbig", repeat("s", 32768));
  REQUIRE(tc.insert(e));
  az::entity got = must_get(tc, e.key());
  CHECK(got.size() == e.size());
  for (const auto& p : e) {
    INFO("property " << p.name);
    const az::value* v = got.get(p.name);
    REQUIRE(v != nullptr);
    CHECK(edm_name(v->type()) == std::string(edm_name(p.value.type())));
    CHECK(*v == p.value);
    if (const double* d = p.value.as_double()) {  // bit-exact
      const double back = *v->as_double();
      if (!std::isnan(*d)) CHECK(std::memcmp(&back, d, sizeof back) == 0);
    }
  }
  // The same through upsert replace and a $select of a few typed properties.
  REQUIRE(tc.upsert(e, az::update_mode::replace));
  az::entity sel = must_get(tc, e.key(), {"I64min", "Dwhole", "T100ns", "DNaN"});
  CHECK(sel.size() == 4);
  CHECK(*sel.get("I64min") == *e.get("I64min"));
  CHECK(sel.get("Dwhole")->type() == az::edm::double_);
  CHECK(*sel.get("T100ns") == *e.get("T100ns"));
  CHECK(std::isnan(*sel.get("DNaN")->as_double()));
}

TEST_CASE("Azurite: negative zero", "[core][entities][types]") {
  // We send "-0.0" (annotated). Azurite parses it as a JavaScript number and
  // re-serialises it, so it answers 0.0: the sign is lost in the emulator, not
  // in the SDK (the writer's bytes are pinned in the unit tests).
  scoped_table table(azurite_service(), "negzero");
  auto tc = table.client();
  az::entity e("p", "r");
  e.set("Z", -0.0);
  REQUIRE(tc.insert(e));
  az::entity got = must_get(tc, e.key());
  REQUIRE(got.get("Z")->type() == az::edm::double_);
  CHECK(*got.get("Z")->as_double() == 0.0);
}

TEST_CASE("Azurite: 60 KB non-ASCII bodies are stored intact (one write per request)", "[core][entities][utf8]") {
  // Azurite corrupts a UTF-8 character split across two TCP reads; the SDK
  // sends headers and body in one write, which keeps a < 64 KiB request whole.
  scoped_table table(azurite_service(), "utf8");
  auto tc = table.client();
  const std::string texts[] = {
      repeat("\xc3\xa9", 30000),             // 60 000 bytes of 2-byte characters
      repeat("\xe4\xb8\xad", 20000),         // 3-byte characters
      repeat("\xf0\x9f\x98\x80", 15000),     // 4-byte characters (30 000 UTF-16 units)
      "a" + repeat("\xc3\xa9\xe4\xb8\xad", 12000),  // misaligned mix
  };
  int row = 0;
  for (const auto& s : texts) {
    for (int round = 0; round < 3; ++round) {
      INFO("text " << row << " round " << round);
      az::entity e("p", std::to_string(row) + "-" + std::to_string(round));
      e.set("S", s);
      REQUIRE(tc.insert(e));
      CHECK(*must_get(tc, e.key()).get("S")->as_string() == s);
      e.set("S", s + "!");
      REQUIRE(tc.upsert(e, az::update_mode::replace));
      e.etag = az::etag::any();
      e.set("S", "!" + s);
      REQUIRE(tc.update(e, az::update_mode::merge));
      CHECK(*must_get(tc, e.key()).get("S")->as_string() == "!" + s);
    }
    ++row;
  }
}

TEST_CASE("Azurite: non-ASCII bodies larger than 64 KiB are stored intact too", "[core][entities][utf8]") {
  // Node reads at most 64 KiB at a time, so such a body always reaches Azurite
  // in pieces; the SDK sends it to emulator endpoints with non-ASCII escaped.
  scoped_table table(azurite_service(), "utf8big");
  auto tc = table.client();
  const std::string max_string = repeat("\xc3\xa9", 32768);  // 32768 UTF-16 units: the limit
  az::entity e("p\xc3\xa9", "big");
  e.set("A", repeat("\xc3\xa9", 20000))
      .set("B", repeat("\xe4\xb8\xad", 20000))
      .set("C", repeat("\xf0\x9f\x98\x80", 16384))
      .set("Max", max_string);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    REQUIRE(tc.upsert(e, az::update_mode::replace));
    CHECK(must_get(tc, e.key()) == e);
    e.set("A", "x" + *e.get("A")->as_string());
    e.etag = az::etag::any();
    REQUIRE(tc.update(e, az::update_mode::merge));
    CHECK(must_get(tc, e.key()) == e);
  }
  az::entity fresh("p", "insert");
  fresh.set("Max", max_string).set("More", max_string);
  REQUIRE(tc.insert(fresh));
  CHECK(must_get(tc, fresh.key()) == fresh);
}

TEST_CASE("Azurite: one client shared by 8 threads doing CRUD", "[core][entities][threads]") {
  scoped_table table(azurite_service(), "threads");
  az::table_client shared = table.client();
  constexpr int threads_n = 8, rows = 25;
  std::atomic<int> failures{0};
  std::mutex log_mu;
  std::vector<std::string> log;
  auto fail = [&](const std::string& what) {
    ++failures;
    std::lock_guard<std::mutex> lk(log_mu);
    if (log.size() < 20) log.push_back(what);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < threads_n; ++t)
    threads.emplace_back([&, t] {
      az::table_client tc = shared;  // copies share the connection pool and signer
      const std::string pk = "t" + std::to_string(t);
      for (int i = 0; i < rows; ++i) {
        const std::string rk = "r" + std::to_string(i);
        az::entity e(pk, rk);
        e.set("Thread", t).set("Row", std::int64_t{i}).set("Text", "h\xc3\xa9llo " + rk);
        auto w = tc.insert(e);
        if (!w) {
          fail("insert: " + w.error().to_string());
          continue;
        }
        auto g = tc.get({pk, rk});
        if (!g || !*g || !(**g == e)) {
          fail("get after insert " + pk + "/" + rk);
          continue;
        }
        az::entity u = **g;
        u.set("Row", std::int64_t{i * 10});
        if (auto r = tc.update(u, az::update_mode::merge); !r) fail("update: " + r.error().to_string());
        u.etag = w->etag;  // now stale
        if (auto r = tc.update(u); r || r.error().code != az::errc::precondition_failed) fail("stale update not 412");
        if (i % 2 == 0) {
          if (auto r = tc.erase({pk, rk}, az::etag::any()); !r) fail("erase: " + r.error().to_string());
        }
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& l : log) UNSCOPED_INFO(l);
  CHECK(failures == 0);
  // What is left: the odd rows of every thread, with the updated values.
  auto tc = table.client();
  for (int t = 0; t < threads_n; ++t)
    for (int i = 0; i < rows; ++i) {
      auto g = tc.get({"t" + std::to_string(t), "r" + std::to_string(i)});
      REQUIRE(g);
      if (i % 2 == 0) {
        CHECK_FALSE(g->has_value());
      } else {
        REQUIRE(g->has_value());
        CHECK(*(*g)->get("Row")->as_int64() == i * 10);
        CHECK(*(*g)->get("Thread")->as_int32() == t);
      }
    }
}

TEST_CASE("Azurite: validation stops bad input before the service sees it", "[core][entities][validation]") {
  // Azurite accepts these (notes §9: limits not enforced); the SDK refuses them.
  scoped_table table(azurite_service(), "limits");
  auto tc = table.client();
  az::entity many("p", "r");
  for (int i = 0; i < 253; ++i) many.set("P" + std::to_string(i), i);
  auto r = tc.insert(many);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_argument);
  CHECK(r.error().http_status == 0);
  az::entity name("p", "r");
  name.set("has-dash", 1);
  CHECK(tc.insert(name).error().code == az::errc::invalid_argument);
  az::entity old("p", "r");
  old.set("T", at(-11644473601));
  CHECK(tc.insert(old).error().code == az::errc::invalid_argument);
  auto nothing = tc.get({"p", "r"});
  REQUIRE(nothing);
  CHECK_FALSE(nothing->has_value());
}
