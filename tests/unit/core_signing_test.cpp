// SharedKey / SharedKeyLite: string-to-sign and signatures pinned against
// known vectors. The expected signatures were computed independently with
// python3 hmac / `openssl dgst -sha256 -mac HMAC -macopt hexkey:...` and, where
// noted, are the exact Authorization values Azurite accepted in the transcripts
// of ../shared/AZURITE-NOTES.md (section T).
#include <aztables/detail/codec.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/shared_key.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <thread>

namespace az = aztables;
using aztables_test::fake_options;
using aztables_test::fake_transport;

namespace {

// "Sat, 21 Nov 2026 13:26:15 GMT", the date of transcripts 1-6.
const std::chrono::system_clock::time_point transcript_time{std::chrono::seconds(1795267575)};

std::string sign_b64(const std::string& message) {
  az::binary key;
  REQUIRE(az::detail::base64_decode_to(az::development_account_key, key));
  az::detail::hmac_sha256 mac(key);
  auto d = mac.sign(message);
  std::string out;
  az::detail::base64_encode_to(out, d.data(), d.size());
  return out;
}

az::service_client client_for(std::shared_ptr<fake_transport> t, az::shared_key_scheme scheme,
                              const std::string& endpoint = "http://127.0.0.1:10103/devstoreaccount1") {
  az::shared_key_credential cred("devstoreaccount1", std::string(az::development_account_key), scheme);
  return az::service_client::create(endpoint, cred, fake_options(t, transcript_time)).value();
}

}  // namespace

TEST_CASE("x-ms-date is RFC 1123 from the injected clock", "[core][signing]") {
  CHECK(az::detail::format_rfc1123(transcript_time) == "Sat, 21 Nov 2026 13:26:15 GMT");
  CHECK(az::detail::format_rfc1123(std::chrono::system_clock::time_point{}) == "Thu, 01 Jan 1970 00:00:00 GMT");
  CHECK(az::detail::format_rfc1123(std::chrono::system_clock::time_point{std::chrono::seconds(951782400)}) ==
        "Tue, 29 Feb 2000 00:00:00 GMT");
  auto back = az::detail::parse_rfc1123("Sat, 21 Nov 2026 13:26:15 GMT");
  REQUIRE(back);
  CHECK(*back == transcript_time);
}

TEST_CASE("canonicalized resource: account + path as sent, only comp= from the query", "[core][signing]") {
  using az::detail::canonicalized_resource;
  // Path-style (Azurite): the account appears twice.
  CHECK(canonicalized_resource("devstoreaccount1", "/devstoreaccount1", "Tables", "") ==
        "/devstoreaccount1/devstoreaccount1/Tables");
  CHECK(canonicalized_resource("devstoreaccount1", "/devstoreaccount1", "$batch", "") ==
        "/devstoreaccount1/devstoreaccount1/$batch");
  // Host-style (real service).
  CHECK(canonicalized_resource("myaccount", "", "Tables", "") == "/myaccount/Tables");
  // The path is signed as sent (escapes kept, not decoded).
  CHECK(canonicalized_resource("a", "", "t(PartitionKey='O%27%27Brien',RowKey='x%20y')", "") ==
        "/a/t(PartitionKey='O%27%27Brien',RowKey='x%20y')");
  // Query: nothing but comp is signed.
  CHECK(canonicalized_resource("a", "", "t()", "$filter=x%20eq%201&$top=5") == "/a/t()");
  CHECK(canonicalized_resource("a", "", "t()", "$select=A,B&NextPartitionKey=cGsx") == "/a/t()");
  CHECK(canonicalized_resource("a", "", "mytable", "comp=acl") == "/a/mytable?comp=acl");
  CHECK(canonicalized_resource("a", "", "", "restype=service&comp=properties") == "/a/?comp=properties");
  // A parameter merely ending in "comp" or a value containing "comp=" is not comp.
  CHECK(canonicalized_resource("a", "", "t", "xcomp=1&comp=acl") == "/a/t?comp=acl");
  CHECK(canonicalized_resource("a", "", "t", "xcomp=1") == "/a/t");
  CHECK(canonicalized_resource("a", "", "t", "$filter=comp=1") == "/a/t");
}

TEST_CASE("string-to-sign layouts", "[core][signing]") {
  using az::detail::string_to_sign;
  const std::string date = "Sat, 21 Nov 2026 13:26:15 GMT";
  const std::string res = "/devstoreaccount1/devstoreaccount1/Tables";
  CHECK(string_to_sign(az::shared_key_scheme::shared_key_lite, "POST", "application/json", date, res) ==
        "Sat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables");
  CHECK(string_to_sign(az::shared_key_scheme::shared_key, "POST", "application/json", date, res) ==
        "POST\n\napplication/json\nSat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables");
  CHECK(string_to_sign(az::shared_key_scheme::shared_key, "GET", "", date, res) ==
        "GET\n\n\nSat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables");
}

TEST_CASE("HMAC-SHA256 signatures match independent vectors", "[core][signing]") {
  // Transcript 1 (SharedKeyLite, create table), accepted by Azurite.
  CHECK(sign_b64("Sat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables") ==
        "LZoxHHxbA3u7x/g0nd34l83qJhKU/L4pubhy/s+xz0g=");
  // Transcript 2 (SharedKey, create table), accepted by Azurite.
  CHECK(sign_b64("POST\n\napplication/json\nSat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables") ==
        "YjLU3Oa0O5FPpyqq3xj75dtt9q2ZqWnE/B+rmPskVEc=");
  // Transcript 6: the same resource sent with %27 for the quotes signs differently.
  CHECK(sign_b64("Sat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/"
                 "probe(PartitionKey=%27pk1%27,RowKey=%27rk1%27)") ==
        "BQa3oyRadeIjMEa/E2PAGsM6PEGY+tc59KbJXGa0Kf4=");
  // Empty message and a message of 1 MiB (the pooled context is re-initialised correctly).
  CHECK(sign_b64("") == "RNeMV4QhAsdhJ2sGUgufA/AfRsaKXZU2cEJdUsvj4NY=");
  const std::string first = sign_b64("abc");
  CHECK(sign_b64(std::string(1 << 20, 'x')) == "VcP0TJIhh4rU4USpuTcAB2KwuDN7dTD4s7FftKRyaYQ=");
  CHECK(sign_b64("abc") == first);
}

TEST_CASE("the pooled HMAC gives the same answer from many threads", "[core][signing]") {
  az::binary key;
  REQUIRE(az::detail::base64_decode_to(az::development_account_key, key));
  az::detail::hmac_sha256 mac(key);
  const auto expected = mac.sign("Sat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables");
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i)
        if (mac.sign("Sat, 21 Nov 2026 13:26:15 GMT\n/devstoreaccount1/devstoreaccount1/Tables") != expected)
          ++mismatches;
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches == 0);
}

TEST_CASE("a client signs create-table exactly as in the Azurite transcripts", "[core][signing]") {
  SECTION("SharedKeyLite (transcript 1)") {
    auto t = std::make_shared<fake_transport>();
    t->push(204);
    auto svc = client_for(t, az::shared_key_scheme::shared_key_lite);
    REQUIRE(svc.create_table("probe"));
    auto rq = t->requests().at(0);
    CHECK(rq.headers.get("x-ms-date") == "Sat, 21 Nov 2026 13:26:15 GMT");
    CHECK(rq.headers.get("Authorization") == "SharedKeyLite devstoreaccount1:LZoxHHxbA3u7x/g0nd34l83qJhKU/L4pubhy/s+xz0g=");
  }
  SECTION("SharedKey (transcript 2)") {
    auto t = std::make_shared<fake_transport>();
    t->push(204);
    auto svc = client_for(t, az::shared_key_scheme::shared_key);
    REQUIRE(svc.create_table("probe2"));
    auto rq = t->requests().at(0);
    CHECK(rq.headers.get("Content-Type") == "application/json");
    CHECK(rq.headers.get("Authorization") == "SharedKey devstoreaccount1:YjLU3Oa0O5FPpyqq3xj75dtt9q2ZqWnE/B+rmPskVEc=");
  }
}

TEST_CASE("a client signs entity operations with the key path as sent", "[core][signing]") {
  auto t = std::make_shared<fake_transport>();
  SECTION("SharedKeyLite point get (transcript 5: $select is not signed)") {
    t->push(200, R"({"PartitionKey":"pk1","RowKey":"rk1"})");
    auto tc = client_for(t, az::shared_key_scheme::shared_key_lite).table("probe");
    REQUIRE(tc.get({"pk1", "rk1"}, {"I64", "Dt"}));
    auto rq = t->requests().at(0);
    CHECK(rq.url == "http://127.0.0.1:10103/devstoreaccount1/probe(PartitionKey='pk1',RowKey='rk1')?$select=I64,Dt");
    CHECK(rq.headers.get("Authorization") == "SharedKeyLite devstoreaccount1:xb2ItXBqNR6cfDwKEYixEFwEnYE55mII16xgZ0L9VbM=");
  }
  SECTION("SharedKey point get") {
    t->push(200, R"({"PartitionKey":"pk1","RowKey":"rk1"})");
    auto tc = client_for(t, az::shared_key_scheme::shared_key).table("probe");
    REQUIRE(tc.get({"pk1", "rk1"}));
    CHECK(t->requests().at(0).headers.get("Authorization") ==
          "SharedKey devstoreaccount1:XokfKkFTUhdES0hdtzUGcsdQWw+if/rZVT6ZVqvKHTE=");
  }
  SECTION("SharedKey merge signs the Content-Type") {
    t->push(204);
    auto tc = client_for(t, az::shared_key_scheme::shared_key).table("probe");
    az::entity e("pk1", "rk1");
    e.etag = az::etag::any();
    REQUIRE(tc.update(e, az::update_mode::merge));
    auto rq = t->requests().at(0);
    CHECK(rq.method == "MERGE");
    CHECK(rq.headers.get("Authorization") == "SharedKey devstoreaccount1:dgSwukyCRi05V++WojnImcwHm8KeMO1VyXYXJLXp/Uk=");
  }
  SECTION("SharedKey delete table") {
    t->push(204);
    auto svc = client_for(t, az::shared_key_scheme::shared_key);
    REQUIRE(svc.delete_table("probe"));
    CHECK(t->requests().at(0).headers.get("Authorization") ==
          "SharedKey devstoreaccount1:fjRfl0Ds48e9bp1jG6WrqdTjK07b9twvGvtaU3arazM=");
  }
  SECTION("SharedKey list tables (the query is not signed)") {
    t->push(200, R"({"value":[]})");
    auto svc = client_for(t, az::shared_key_scheme::shared_key);
    REQUIRE(svc.list_tables("pre"));
    auto rq = t->requests().at(0);
    CHECK(rq.url.find("?$filter=") != std::string::npos);
    CHECK(rq.headers.get("Authorization") == "SharedKey devstoreaccount1:R2mTX650n+Dr07g5DyftvWkzQHdfKAHfpTVXTvFRrtc=");
  }
  SECTION("host-style endpoint: the account appears once") {
    t->push(200, R"({"value":[]})");
    az::shared_key_credential cred("myaccount", std::string(az::development_account_key),
                                   az::shared_key_scheme::shared_key_lite);
    auto svc = az::service_client::create("https://myaccount.table.core.windows.net", cred,
                                          fake_options(t, transcript_time))
                   .value();
    REQUIRE(svc.list_tables());
    auto rq = t->requests().at(0);
    CHECK(rq.url == "https://myaccount.table.core.windows.net/Tables");
    CHECK(rq.headers.get("Authorization") == "SharedKeyLite myaccount:9M6V93gmcPn+6Cl2VkXJP4aFBfXnM50AgXq8oqx1wJs=");
  }
}

TEST_CASE("a bad account key is refused without echoing it", "[core][signing]") {
  auto t = std::make_shared<fake_transport>();
  az::shared_key_credential cred("devstoreaccount1", "not*base64!secret");
  auto svc = az::service_client::create("http://127.0.0.1:10002/devstoreaccount1", cred, fake_options(t));
  REQUIRE_FALSE(svc);
  CHECK(svc.error().code == az::errc::invalid_argument);
  CHECK(svc.error().message.find("account key") != std::string::npos);
  CHECK(svc.error().message.find("not*base64!secret") == std::string::npos);
  CHECK(t->request_count() == 0);
}
