// fan_out_query: one query per partition, merged in the service's RowKey order.
#include <aztables/fan_out.hpp>
#include <aztables/keys.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

// Serves a row-range query per partition from a fixed map: the partition is
// read from the $filter (PartitionKey eq '...').
std::shared_ptr<aztables_test::fake_transport> partitions_transport(std::map<std::string, std::vector<std::string>> rows,
                                                                    std::string failing_partition = {}) {
  auto t = std::make_shared<aztables_test::fake_transport>();
  t->set_default([rows, failing_partition](const aztables::http_request& rq) -> aztables::result<aztables::http_response> {
    aztables::http_response r;
    std::string pk;
    for (const auto& [name, _] : rows)
      if (rq.url.find("PartitionKey%20eq%20%27" + name + "%27") != std::string::npos) pk = name;
    if (!failing_partition.empty() && pk == failing_partition) {
      r.status = 503;
      r.body = R"({"odata.error":{"code":"ServerBusy","message":{"lang":"en-US","value":"busy"}}})";
      r.headers.add("x-ms-error-code", "ServerBusy");
      return r;
    }
    r.status = 200;
    r.body = R"({"value":[)";
    bool first = true;
    if (!pk.empty())
      for (const auto& rk : rows.at(pk)) {
        if (!first) r.body += ',';
        first = false;
        r.body += R"({"PartitionKey":")" + pk + R"(","RowKey":")" + rk + R"("})";
      }
    r.body += "]}";
    return r;
  });
  return t;
}

aztables::table_client client_for(std::shared_ptr<aztables_test::fake_transport> t) {
  auto o = aztables_test::fake_options(t);
  o.retry = aztables::retry_options::none();
  return aztables::table_client::from_connection_string(aztables_test::dev_connection_string(), "events", o).value();
}

std::vector<std::string> row_keys(const std::vector<aztables::entity>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.partition_key + "/" + e.row_key);
  return out;
}

auto whole_partition = [](const std::string& pk) { return aztables::query::row_range(pk); };

}  // namespace

TEST_CASE("fan_out_query merges partitions by RowKey, ties in partition order", "[fan_out]") {
  auto t = partitions_transport({{"a", {"1", "4", "7"}}, {"b", {"2", "4", "9"}}, {"c", {}}, {"d", {"0"}}});
  auto table = client_for(t);
  for (std::size_t conc : {1u, 2u, 8u}) {
    aztables::fan_out_options o;
    o.concurrency = conc;
    auto r = aztables::fan_out_query(table, {"a", "b", "c", "d"}, whole_partition, o);
    REQUIRE(r);
    CHECK(row_keys(*r) == std::vector<std::string>{"d/0", "a/1", "b/2", "a/4", "b/4", "a/7", "b/9"});
  }
  CHECK(t->request_count() == 12);  // one query per partition, per run
}

TEST_CASE("fan_out_query limit keeps the first N in merged order", "[fan_out]") {
  auto table = client_for(partitions_transport({{"a", {"1", "4", "7"}}, {"b", {"2", "3", "9"}}}));
  aztables::fan_out_options o;
  o.limit = 3;
  auto r = aztables::fan_out_query(table, {"a", "b"}, whole_partition, o);
  REQUIRE(r);
  CHECK(row_keys(*r) == std::vector<std::string>{"a/1", "b/2", "b/3"});
}

TEST_CASE("fan_out_query merges in UTF-16 order, not UTF-8 byte order", "[fan_out]") {
  // U+FF01 (EF BC 81) sorts after U+1F600 (F0 9F 98 80) in UTF-16 (D83D DE00).
  auto table = client_for(partitions_transport({{"a", {"\xef\xbc\x81"}}, {"b", {"\xf0\x9f\x98\x80"}}}));
  auto r = aztables::fan_out_query(table, {"a", "b"}, whole_partition);
  REQUIRE(r);
  CHECK(row_keys(*r) == std::vector<std::string>{"b/\xf0\x9f\x98\x80", "a/\xef\xbc\x81"});
}

TEST_CASE("fan_out_query reports a failing partition's error, and bad options as invalid_argument", "[fan_out]") {
  auto table = client_for(partitions_transport({{"a", {"1"}}, {"b", {"2"}}}, "b"));
  auto r = aztables::fan_out_query(table, {"a", "b"}, whole_partition);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == aztables::errc::throttled);
  CHECK(r.error().service_code == "ServerBusy");

  aztables::fan_out_options zero;
  zero.concurrency = 0;
  auto z = aztables::fan_out_query(table, {"a"}, whole_partition, zero);
  REQUIRE_FALSE(z);
  CHECK(z.error().code == aztables::errc::invalid_argument);

  auto none = aztables::fan_out_query(table, {}, whole_partition);
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("fan_out_query over a hash_spread reads every bucket", "[fan_out][keys]") {
  auto spread = aztables::keys::hash_spread::create(4).value();
  auto pks = spread.partition_keys("day").value();
  std::map<std::string, std::vector<std::string>> rows;
  for (const auto& pk : pks) rows[pk] = {};
  for (int i = 0; i < 40; ++i) {
    const std::string rk = aztables::keys::zero_padded(i, 3).value();
    rows[spread.partition_key("day", rk).value()].push_back(rk);
  }
  auto table = client_for(partitions_transport(rows));
  auto r = aztables::fan_out_query(table, pks, whole_partition);
  REQUIRE(r);
  REQUIRE(r->size() == 40);
  for (int i = 0; i < 40; ++i) CHECK((*r)[static_cast<std::size_t>(i)].row_key == aztables::keys::zero_padded(i, 3).value());
}
