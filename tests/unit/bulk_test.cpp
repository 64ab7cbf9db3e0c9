// Unit tests for the bulk writer: grouping and chunking, per-action outcomes,
// bounded concurrency, deterministic pacing and progress.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/bulk.hpp>
#include <aztables/detail/pacing.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using aztables_test::fake_transport;

/// What one `$batch` request held: its partition keys and row keys in order.
struct sent_batch {
  std::set<std::string> partitions;
  std::vector<std::string> row_keys;
  std::size_t body_bytes = 0;
};

/// Reads the (PartitionKey, RowKey) of every sub-request of a batch body
/// written by us (keys here are plain ASCII without quotes).
sent_batch inspect(const std::string& body) {
  sent_batch s;
  s.body_bytes = body.size();
  std::size_t p = 0;
  while ((p = body.find(" HTTP/1.1\r\n", p)) != std::string::npos) {
    std::size_t line = body.rfind("\r\n", p) + 2;
    std::string req = body.substr(line, p - line);
    std::size_t pk = req.find("(PartitionKey='");
    if (pk != std::string::npos) {
      std::size_t a = pk + 15, b = req.find("'", a);
      s.partitions.insert(req.substr(a, b - a));
      std::size_t rk = req.find("RowKey='", b) + 8;
      s.row_keys.push_back(req.substr(rk, req.find("'", rk) - rk));
    } else {  // insert: keys in the JSON body
      std::size_t j = body.find("\r\n\r\n{\"PartitionKey\":\"", p) + 21;
      s.partitions.insert(body.substr(j, body.find('"', j) - j));
      std::size_t r = body.find("\"RowKey\":\"", j) + 10;
      s.row_keys.push_back(body.substr(r, body.find('"', r) - r));
    }
    p += 10;
  }
  return s;
}

/// A 202 with one 204 part per sub-request of `rq`.
aztables::http_response success_for(const aztables::http_request& rq) {
  std::size_t n = inspect(rq.body).row_keys.size();
  std::string body = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n";
  for (std::size_t i = 0; i < n; ++i)
    body += "--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
            "HTTP/1.1 204 No Content\r\nETag: W/\"" + std::to_string(i) + "\"\r\n\r\n\r\n";
  body += "--changesetresponse_1--\r\n--batchresponse_1--\r\n";
  aztables::http_response r;
  r.status = 202;
  r.headers.add("Content-Type", "multipart/mixed; boundary=batchresponse_1");
  r.body = std::move(body);
  return r;
}

/// A 202 whose changeset failed at `index` with a 409.
aztables::http_response failure_at(std::size_t index) {
  aztables::http_response r;
  r.status = 202;
  r.headers.add("Content-Type", "multipart/mixed; boundary=batchresponse_1");
  r.body = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n"
           "--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
           "HTTP/1.1 409 Conflict\r\nContent-ID: " + std::to_string(index + 1) +
           "\r\nContent-Type: application/json;odata=minimalmetadata;charset=utf-8\r\n\r\n"
           "{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"lang\":\"en-US\",\"value\":\"" +
           std::to_string(index) + ":The specified entity already exists.\\nRequestId:x\"}}}\r\n"
           "--changesetresponse_1--\r\n--batchresponse_1--\r\n";
  return r;
}

struct fixture {
  std::shared_ptr<fake_transport> t = std::make_shared<fake_transport>();
  aztables::table_client tc;
  fixture() : tc(make(t)) {
    t->set_default([](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
      return success_for(rq);
    });
  }
  static aztables::table_client make(std::shared_ptr<fake_transport> t) {
    auto o = aztables_test::fake_options(std::move(t));
    o.retry.max_retries = 0;
    return aztables::service_client::from_connection_string(aztables_test::dev_connection_string(), o)
        .value()
        .table("orders");
  }
  std::vector<sent_batch> sent() const {
    std::vector<sent_batch> v;
    for (auto& rq : t->requests()) v.push_back(inspect(rq.body));
    return v;
  }
};

aztables::bulk_options unpaced(std::size_t concurrency = 1) {
  aztables::bulk_options o;
  o.concurrency = concurrency;
  o.partition_rate = 0;
  o.account_rate = 0;
  return o;
}

aztables::entity row(const std::string& pk, int i) {
  char rk[16];
  std::snprintf(rk, sizeof rk, "r%05d", i);
  aztables::entity e(pk, rk);
  e.set("I", i);
  return e;
}

struct order {
  std::string customer, id;
  std::int64_t quantity = 0;
};

}  // namespace

template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties = aztables::fields(aztables::field("Quantity", &order::quantity));
};

TEST_CASE("bulk: groups by partition, keeps order, at most 100 per batch, interleaves partitions", "[bulk]") {
  fixture f;
  aztables::bulk_writer w(f.tc, unpaced(1));
  // 250 in A, 120 in B, 5 in C, input interleaved.
  int a = 0, b = 0, c = 0;
  for (int i = 0; i < 375; ++i) {
    if (i % 3 == 0 && a < 250) w.insert(row("A", a++));
    else if (i % 3 == 1 && b < 120) w.upsert(row("B", b++));
    else if (c < 5) w.upsert(row("C", c++), aztables::update_mode::replace);
    else w.insert(row("A", a++));
  }
  REQUIRE(a == 250);
  REQUIRE(w.size() == 375);
  auto r = w.write().value();
  CHECK(r.ok());
  CHECK(r.total == 375);
  CHECK(r.written == 375);
  CHECK(r.batches == 6);
  CHECK(w.size() == 0);
  auto s = f.sent();
  REQUIRE(s.size() == 6);
  // Round robin over partitions in order of first appearance: A B C A B A.
  const char* expected_pk[] = {"A", "B", "C", "A", "B", "A"};
  const std::size_t expected_n[] = {100, 100, 5, 100, 20, 50};
  std::map<std::string, std::vector<std::string>> rows;
  for (std::size_t i = 0; i < s.size(); ++i) {
    REQUIRE(s[i].partitions.size() == 1);
    CHECK(*s[i].partitions.begin() == expected_pk[i]);
    CHECK(s[i].row_keys.size() == expected_n[i]);
    auto& v = rows[*s[i].partitions.begin()];
    v.insert(v.end(), s[i].row_keys.begin(), s[i].row_keys.end());
  }
  // Within a partition, input order.
  for (auto& [pk, v] : rows) CHECK(std::is_sorted(v.begin(), v.end()));
  CHECK(rows["A"].size() == 250);
}

TEST_CASE("bulk: invalid actions are reported without sending; the rest are written", "[bulk]") {
  fixture f;
  aztables::bulk_writer w(f.tc, unpaced(2));
  for (int i = 0; i < 10; ++i) w.insert(row("p", i));
  w.insert(aztables::entity("p", "bad/key"));                   // 10
  w.update(row("p", 11));                                       // 11: no ETag
  aztables::entity big("p", "big");                             // 12: property too long
  big.set("S", std::string(40000, 'x'));
  w.upsert(big);
  w.erase({"p", "r00003x"}, aztables::etag());                  // 13: no ETag
  w.erase({"p", "r00020"}, aztables::etag::any());              // 14: fine
  auto r = w.write().value();
  CHECK(r.total == 15);
  CHECK(r.written == 11);
  REQUIRE(r.failures.size() == 4);
  CHECK(r.failures[0].index == 10);
  CHECK(r.failures[0].key.row_key == "bad/key");
  CHECK(r.failures[0].error.code == aztables::errc::invalid_argument);
  CHECK(r.failures[0].error.action_index == std::size_t{10});
  CHECK(r.failures[0].error.message.find("action 10 (insert) RowKey") != std::string::npos);
  CHECK(r.failures[1].index == 11);
  CHECK(r.failures[1].kind == aztables::batch_action_kind::update_merge);
  CHECK(r.failures[2].index == 12);
  CHECK(r.failures[2].error.message.find("32768") != std::string::npos);
  CHECK(r.failures[3].index == 13);
  auto s = f.sent();
  REQUIRE(s.size() == 1);
  CHECK(s[0].row_keys.size() == 11);
}

TEST_CASE("bulk: a failed batch reports each of its actions with the batch error", "[bulk]") {
  fixture f;
  // Fail the batch that holds B's entities at its 3rd action.
  f.t->set_default([](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    auto s = inspect(rq.body);
    if (*s.partitions.begin() == "B") return failure_at(2);
    return success_for(rq);
  });
  aztables::bulk_writer w(f.tc, unpaced(3));
  for (int i = 0; i < 5; ++i) w.insert(row("A", i));  // 0..4
  for (int i = 0; i < 4; ++i) w.insert(row("B", i));  // 5..8
  for (int i = 5; i < 8; ++i) w.insert(row("A", i));  // 9..11
  auto r = w.write().value();
  CHECK(r.written == 8);
  CHECK(r.batches == 2);
  REQUIRE(r.failures.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(r.failures[k].index == 5 + k);
    CHECK(r.failures[k].key.partition_key == "B");
    CHECK(r.failures[k].error.code == aztables::errc::conflict);
    CHECK(r.failures[k].error.service_code == "EntityAlreadyExists");
    // The cause, as an index among the actions added: B's 3rd action.
    CHECK(r.failures[k].error.action_index == std::size_t{7});
  }
}

TEST_CASE("bulk: a transport failure fails its batch's actions, not others", "[bulk]") {
  fixture f;
  f.t->set_default([](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    if (*inspect(rq.body).partitions.begin() == "B") {
      aztables::error e = aztables::error::make(aztables::errc::transport, "connection reset");
      e.failure = aztables::transport_failure::receive;
      return e;
    }
    return success_for(rq);
  });
  aztables::bulk_writer w(f.tc, unpaced(1));
  for (int i = 0; i < 3; ++i) w.upsert(row("A", i)).upsert(row("B", i));
  auto r = w.write().value();
  CHECK(r.written == 3);
  REQUIRE(r.failures.size() == 3);
  CHECK(r.failures[0].index == 1);
  CHECK(r.failures[0].error.code == aztables::errc::transport);
  CHECK(!r.failures[0].error.action_index);
}

TEST_CASE("bulk: a repeated RowKey starts a new batch, sent after the first", "[bulk]") {
  fixture f;
  aztables::bulk_writer w(f.tc, unpaced(4));
  w.insert(row("p", 1)).insert(row("p", 2));
  aztables::entity again = row("p", 1);
  again.set("I", 100);
  w.upsert(again).insert(row("p", 3));
  auto r = w.write().value();
  CHECK(r.ok());
  auto s = f.sent();
  REQUIRE(s.size() == 2);
  CHECK(s[0].row_keys == std::vector<std::string>{"r00001", "r00002"});
  CHECK(s[1].row_keys == std::vector<std::string>{"r00001", "r00003"});
}

TEST_CASE("bulk: batches stay within 4 MiB", "[bulk]") {
  fixture f;
  aztables::bulk_writer w(f.tc, unpaced(2));
  for (int i = 0; i < 7; ++i) {
    aztables::entity e = row("p", i);
    for (int k = 0; k < 15; ++k) e.set("B" + std::to_string(k), aztables::binary(60000, std::uint8_t(k)));
    w.insert(std::move(e));
  }
  auto r = w.write().value();
  CHECK(r.ok());
  auto s = f.sent();
  REQUIRE(s.size() == 3);  // ~1.2 MB of JSON each: 3 + 3 + 1
  std::size_t total = 0;
  for (auto& b : s) {
    CHECK(b.body_bytes <= aztables::max_batch_body_bytes);
    total += b.row_keys.size();
  }
  CHECK(total == 7);
}

TEST_CASE("bulk: no more than `concurrency` batches in flight", "[bulk]") {
  fixture f;
  struct gate {
    std::mutex mu;
    std::condition_variable cv;
    int in_flight = 0, max_seen = 0, released = 0;
  };
  auto g = std::make_shared<gate>();
  f.t->set_default([g](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    std::unique_lock<std::mutex> lk(g->mu);
    ++g->in_flight;
    g->max_seen = std::max(g->max_seen, g->in_flight);
    g->cv.notify_all();
    // Hold the first requests until three are in flight at once (proves the
    // pool really runs three), then let everything through.
    g->cv.wait_for(lk, std::chrono::seconds(10), [&] { return g->max_seen >= 3 || g->released > 0; });
    ++g->released;
    --g->in_flight;
    g->cv.notify_all();
    return success_for(rq);
  });
  aztables::bulk_writer w(f.tc, unpaced(3));
  for (int p = 0; p < 10; ++p)
    for (int i = 0; i < 150; ++i) w.upsert(row("P" + std::to_string(p), i));
  auto r = w.write().value();
  CHECK(r.ok());
  CHECK(r.batches == 20);
  CHECK(g->max_seen == 3);
}

TEST_CASE("bulk: progress is reported on the calling thread, ending at total", "[bulk]") {
  fixture f;
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  auto o = unpaced(2);
  o.on_progress = [&](std::size_t done, std::size_t total) {
    calls.emplace_back(done, total);
    same_thread = same_thread && std::this_thread::get_id() == caller;
  };
  aztables::bulk_writer w(f.tc, o);
  for (int p = 0; p < 5; ++p)
    for (int i = 0; i < 120; ++i) w.upsert(row("P" + std::to_string(p), i));
  w.insert(aztables::entity("P0", "bad#"));
  auto r = w.write().value();
  CHECK(r.written == 600);
  REQUIRE(!calls.empty());
  CHECK(same_thread);
  CHECK(calls.back() == std::make_pair(std::size_t{601}, std::size_t{601}));
  // How many calls there are depends on how the workers' completions
  // interleave; that they only go up does not (one assertion either way).
  CHECK(std::adjacent_find(calls.begin(), calls.end(),
                           [](const auto& a, const auto& b) { return b.first <= a.first; }) == calls.end());
}

TEST_CASE("bulk: an exception from the progress callback stops and is rethrown", "[bulk]") {
  fixture f;
  struct flag {
    std::mutex mu;
    std::condition_variable cv;
    bool thrown = false;
  };
  auto fl = std::make_shared<flag>();
  // The second batch, if the worker takes it before the callback starts, is
  // held until the callback has thrown. No batch is taken while the callback
  // runs, so the worker sees the stop before it could take a third: one or
  // two requests, however the threads interleave.
  f.t->set_default([fl, t = f.t.get()](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    if (t->request_count() >= 2) {
      std::unique_lock<std::mutex> lk(fl->mu);
      fl->cv.wait_for(lk, std::chrono::seconds(10), [&] { return fl->thrown; });
    }
    return success_for(rq);
  });
  auto o = unpaced(1);
  o.on_progress = [fl](std::size_t done, std::size_t) {
    if (done >= 100) {
      std::lock_guard<std::mutex> lk(fl->mu);
      fl->thrown = true;
      fl->cv.notify_all();
      throw std::runtime_error("stop");
    }
  };
  aztables::bulk_writer w(f.tc, o);
  for (int p = 0; p < 20; ++p)
    for (int i = 0; i < 100; ++i) w.upsert(row("P" + std::to_string(p), i));
  CHECK_THROWS_WITH(w.write(), "stop");
  CHECK(f.t->request_count() <= 2);  // the one in flight when it threw may finish
}

TEST_CASE("bulk: bad options are rejected before sending", "[bulk]") {
  fixture f;
  auto o = unpaced(0);
  aztables::bulk_writer w(f.tc, o);
  w.insert(row("p", 1));
  auto r = w.write();
  REQUIRE(!r);
  CHECK(r.error().code == aztables::errc::invalid_argument);
  CHECK(r.error().message.find("concurrency") != std::string::npos);
  aztables::bulk_options neg = unpaced(1);
  neg.partition_rate = -1;
  aztables::bulk_writer w2(f.tc, neg);
  w2.insert(row("p", 1));
  CHECK(!w2.write());
  CHECK(f.t->request_count() == 0);
}

TEST_CASE("bulk: typed actions and mapping", "[bulk]") {
  fixture f;
  aztables::bulk_writer w(f.tc, unpaced(1));
  w.insert(order{"c1", "o1", 3}).upsert(order{"c1", "o2", 4});
  auto r = w.write().value();
  CHECK(r.ok());
  auto body = f.t->requests().at(0).body;
  CHECK(body.find(R"({"PartitionKey":"c1","RowKey":"o1","Quantity":"3","Quantity@odata.type":"Edm.Int64"})") !=
        std::string::npos);
}

namespace {
/// A fake monotonic clock that only moves when the code under test sleeps.
struct fake_clock {
  std::shared_ptr<std::atomic<std::int64_t>> ns = std::make_shared<std::atomic<std::int64_t>>(0);
  std::chrono::steady_clock::time_point now() const {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns->load()));
  }
  double seconds() const { return static_cast<double>(ns->load()) / 1e9; }
  void install(aztables::bulk_options& o) const {
    auto n = ns;
    o.now = [n] { return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(n->load())); };
    o.sleep = [n](std::chrono::nanoseconds d) { *n += d.count(); };
  }
};
}  // namespace

TEST_CASE("bulk: pacing keeps a partition under its rate (fake clock)", "[bulk]") {
  fixture f;
  fake_clock clock;
  auto times = std::make_shared<std::vector<double>>();
  f.t->set_default([clock, times](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    times->push_back(clock.seconds());
    return success_for(rq);
  });
  aztables::bulk_options o;
  o.concurrency = 1;
  o.partition_rate = 200;  // entities/s
  o.account_rate = 0;
  clock.install(o);
  aztables::bulk_writer w(f.tc, o);
  for (int i = 0; i < 1000; ++i) w.upsert(row("p", i));
  REQUIRE(w.write().value().ok());
  REQUIRE(times->size() == 10);
  for (std::size_t i = 0; i < times->size(); ++i) CHECK((*times)[i] == Approx(0.5 * static_cast<double>(i)));
}

TEST_CASE("bulk: pacing keeps the account under its rate across partitions (fake clock)", "[bulk]") {
  fixture f;
  fake_clock clock;
  auto times = std::make_shared<std::vector<std::pair<std::string, double>>>();
  f.t->set_default([clock, times](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    times->emplace_back(*inspect(rq.body).partitions.begin(), clock.seconds());
    return success_for(rq);
  });
  aztables::bulk_options o;
  o.concurrency = 1;
  o.partition_rate = 100;   // each partition: one batch of 100 per second
  o.account_rate = 400;     // all: four batches of 100 per second
  clock.install(o);
  aztables::bulk_writer w(f.tc, o);
  for (int p = 0; p < 8; ++p)
    for (int i = 0; i < 200; ++i) w.upsert(row("P" + std::to_string(p), i));
  REQUIRE(w.write().value().ok());
  REQUIRE(times->size() == 16);
  // The account allows a batch every 0.25 s; each partition's second batch
  // comes at least 1 s after its first.
  std::map<std::string, std::vector<double>> by_partition;
  for (std::size_t i = 0; i < times->size(); ++i) {
    CHECK((*times)[i].second == Approx(0.25 * static_cast<double>(i)));
    by_partition[(*times)[i].first].push_back((*times)[i].second);
  }
  for (auto& [pk, ts] : by_partition) {
    REQUIRE(ts.size() == 2);
    CHECK(ts[1] - ts[0] >= 1.0 - 1e-9);
  }
}

TEST_CASE("pacer: reservations are spaced by n/rate, and idle time is not saved up", "[bulk]") {
  using tp = std::chrono::steady_clock::time_point;
  auto at = [](double s) { return tp(std::chrono::duration_cast<tp::duration>(std::chrono::duration<double>(s))); };
  aztables::detail::pacer p(100, 0);
  CHECK(p.reserve("a", 50, at(0)) == at(0));
  CHECK(p.reserve("a", 50, at(0)) == at(0.5));
  CHECK(p.reserve("b", 100, at(0)) == at(0));    // another partition: its own budget
  CHECK(p.reserve("a", 10, at(5)) == at(5));     // idle: starts now, no burst credit
  CHECK(p.reserve("a", 10, at(5)) == at(5.1));
  aztables::detail::pacer off(0, 0);
  CHECK(!off.enabled());
  CHECK(off.reserve("a", 1000, at(1)) == at(1));
}
