// Parsing what comes from outside: service error bodies (JSON, XML, empty),
// connection strings, endpoint URLs; and escaping what goes out (keys in URL
// paths, query strings).
#include <aztables/detail/client_core.hpp>
#include <aztables/detail/url.hpp>

#include <catch2/catch.hpp>
#include <test_support.hpp>

namespace az = aztables;
using aztables_test::fake_options;
using aztables_test::fake_transport;

namespace {

az::error error_of(int status, std::string body, std::vector<az::http_header> headers = {}) {
  az::http_response r;
  r.status = status;
  r.body = std::move(body);
  for (auto& h : headers) r.headers.add(h.name, h.value);
  return az::detail::client_core::error_from_response(r);
}

const std::string key = std::string(az::development_account_key);

}  // namespace

// ---------------------------------------------------------------- errors

TEST_CASE("errors: JSON odata.error with a message object (Azurite, transcript 3)", "[core][errors]") {
  auto e = error_of(409,
                    R"({"odata.error":{"code":"TableAlreadyExists","message":{"lang":"en-US","value":"The table specified already exists.\nRequestId:35b0d362-f1d8-4b39-9036-da099b15c52c\nTime:2026-11-21T13:26:15.317Z"}}})",
                    {{"x-ms-error-code", "TableAlreadyExists"},
                     {"x-ms-request-id", "35b0d362-f1d8-4b39-9036-da099b15c52c"}});
  CHECK(e.code == az::errc::conflict);
  CHECK(e.http_status == 409);
  CHECK(e.service_code == "TableAlreadyExists");
  CHECK(e.message == "The table specified already exists.");  // RequestId/Time trailer cut
  CHECK(e.request_id == "35b0d362-f1d8-4b39-9036-da099b15c52c");
  CHECK(e.to_string() ==
        "conflict (409 TableAlreadyExists): The table specified already exists. [request "
        "35b0d362-f1d8-4b39-9036-da099b15c52c]");
}

TEST_CASE("errors: JSON with a plain string message and no header", "[core][errors]") {
  auto e = error_of(400, R"({"odata.error":{"code":"InvalidInput","message":"Bad value."}})");
  CHECK(e.code == az::errc::bad_request);
  CHECK(e.service_code == "InvalidInput");
  CHECK(e.message == "Bad value.");
}

TEST_CASE("errors: XML <Error> bodies (auth, version, Accept; transcript 15)", "[core][errors]") {
  auto e = error_of(403,
                    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Error>\n  "
                    "<Code>AuthorizationFailure</Code>\n  <Message>Server failed to authenticate the request. Make "
                    "sure the value of the Authorization header is formed correctly including the "
                    "signature.\nRequestId:57c31793-24ec-4704-93b3-a82676d2ea15\nTime:2026-11-21T13:26:16.971Z</"
                    "Message>\n</Error>",
                    {{"x-ms-request-id", "57c31793-24ec-4704-93b3-a82676d2ea15"}, {"content-type", "application/xml"}});
  CHECK(e.code == az::errc::authentication);
  CHECK(e.service_code == "AuthorizationFailure");
  CHECK(e.message ==
        "Server failed to authenticate the request. Make sure the value of the Authorization header is formed "
        "correctly including the signature.");
  CHECK(e.request_id == "57c31793-24ec-4704-93b3-a82676d2ea15");
  // The OData XML flavour (m:code / m:message).
  auto m = error_of(404,
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?><m:error "
                    "xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\"><m:code>"
                    "ResourceNotFound</m:code><m:message xml:lang=\"en-US\">The specified resource does not exist."
                    "\nRequestId:x</m:message></m:error>");
  CHECK(m.service_code == "ResourceNotFound");
  CHECK(m.message == "The specified resource does not exist.");
}

TEST_CASE("errors: x-ms-error-code header wins over the body", "[core][errors]") {
  auto e = error_of(404, R"({"odata.error":{"code":"FromBody","message":{"value":"m"}}})",
                    {{"X-MS-ERROR-CODE", "TableNotFound"}});
  CHECK(e.service_code == "TableNotFound");
  CHECK(e.message == "m");
}

TEST_CASE("errors: empty and unparseable bodies fall back to the status", "[core][errors]") {
  auto empty = error_of(400, "");
  CHECK(empty.code == az::errc::bad_request);
  CHECK(empty.service_code.empty());
  CHECK(empty.message == "HTTP 400 with no error description");
  auto code_only = error_of(500, "", {{"x-ms-error-code", "InternalError"}});
  CHECK(code_only.code == az::errc::service);
  CHECK(code_only.service_code == "InternalError");
  for (const char* junk : {"<html><body>Bad gateway</body></html>", "{not json", "{\"other\":1}", "   \r\n",
                           "{\"odata.error\":5}", "<Error><Code>Unterminated"}) {
    INFO(junk);
    auto e = error_of(502, junk);
    CHECK(e.code == az::errc::service);
    CHECK(e.http_status == 502);
    CHECK_FALSE(e.message.empty());
  }
  // Table-name errors come with "code":"" and no header (notes §5).
  auto name = error_of(400, R"({"odata.error":{"code":"","message":{"lang":"en-US","value":"The specified resource name length is not within the permissible limits.\nRequestId:5152ae39"}}})");
  CHECK(name.service_code.empty());
  CHECK(name.message == "The specified resource name length is not within the permissible limits.");
}

TEST_CASE("errors: status categories", "[core][errors]") {
  const std::pair<int, az::errc> cases[] = {
      {400, az::errc::bad_request},        {401, az::errc::authentication}, {403, az::errc::authentication},
      {404, az::errc::not_found},          {405, az::errc::bad_request},    {409, az::errc::conflict},
      {412, az::errc::precondition_failed}, {413, az::errc::bad_request},   {415, az::errc::bad_request},
      {429, az::errc::throttled},          {500, az::errc::service},        {501, az::errc::service},
      {503, az::errc::throttled},          {504, az::errc::service},
  };
  for (const auto& c : cases) {
    INFO(c.first);
    CHECK(az::detail::errc_from_status(c.first) == c.second);
  }
}

TEST_CASE("errors: no SAS signature or bearer token in error text", "[core][errors]") {
  auto e = error_of(403, R"({"odata.error":{"code":"X","message":"bad url http://h/t?sv=1&sig=SECRETSIG%3D&se=2 and Bearer eyJSECRET"}})");
  CHECK(e.message.find("SECRET") == std::string::npos);
  CHECK(e.message.find("sig=REDACTED") != std::string::npos);

  auto t = std::make_shared<fake_transport>();
  t->push_failure(az::transport_failure::connect, "Failed to connect to http://h/t?sig=SECRETSIG&x=1");
  auto opt = fake_options(t);
  opt.retry = az::retry_options::none();
  auto tc = az::table_client::create("https://acct.table.core.windows.net", az::sas_credential{"sv=1&sig=SECRETSIG"},
                                     "orders", opt)
                .value();
  auto r = tc.get({"p", "r"});
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::transport);
  CHECK(r.error().failure == az::transport_failure::connect);
  CHECK(r.error().to_string().find("SECRETSIG") == std::string::npos);
}

// ---------------------------------------------------------------- connection strings

TEST_CASE("connection strings: development storage", "[core][connection]") {
  auto c = az::parse_connection_string("UseDevelopmentStorage=true");
  REQUIRE(c);
  CHECK(c->table_endpoint == "http://127.0.0.1:10002/devstoreaccount1");
  CHECK(c->account_name == "devstoreaccount1");
  auto* sk = std::get_if<az::shared_key_credential>(&c->credential);
  REQUIRE(sk);
  CHECK(sk->account_name() == "devstoreaccount1");
  CHECK(sk->secret_base64_key() == key);

  auto p = az::parse_connection_string("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://myproxy");
  REQUIRE(p);
  CHECK(p->table_endpoint == "http://myproxy:10002/devstoreaccount1");
  auto p6 = az::parse_connection_string("usedevelopmentstorage=TRUE; developmentstorageproxyuri=http://[::1]:80/");
  REQUIRE(p6);
  CHECK(p6->table_endpoint == "http://[::1]:10002/devstoreaccount1");

  auto bad = az::parse_connection_string("UseDevelopmentStorage=false");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("'UseDevelopmentStorage'") && Catch::Contains("must be 'true'"));
  auto bad_proxy = az::parse_connection_string("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=myproxy");
  REQUIRE_FALSE(bad_proxy);
  CHECK_THAT(bad_proxy.error().message, Catch::Contains("'DevelopmentStorageProxyUri'"));
}

TEST_CASE("connection strings: account name and key", "[core][connection]") {
  auto c = az::parse_connection_string("DefaultEndpointsProtocol=https;AccountName=myaccount;AccountKey=" + key +
                                       ";EndpointSuffix=core.windows.net");
  REQUIRE(c);
  CHECK(c->table_endpoint == "https://myaccount.table.core.windows.net");
  CHECK(c->account_name == "myaccount");
  REQUIRE(std::holds_alternative<az::shared_key_credential>(c->credential));

  auto defaults = az::parse_connection_string("AccountName=myaccount;AccountKey=" + key);
  REQUIRE(defaults);
  CHECK(defaults->table_endpoint == "https://myaccount.table.core.windows.net");

  auto china = az::parse_connection_string(" accountname = myaccount ; ACCOUNTKEY=" + key +
                                           ";endpointsuffix=core.chinacloudapi.cn;defaultendpointsprotocol=HTTP;;");
  REQUIRE(china);
  CHECK(china->table_endpoint == "http://myaccount.table.core.chinacloudapi.cn");

  // Portal strings carry other services' endpoints: ignored.
  auto portal = az::parse_connection_string("DefaultEndpointsProtocol=https;AccountName=myaccount;AccountKey=" + key +
                                            ";BlobEndpoint=https://myaccount.blob.core.windows.net/;"
                                            "TableEndpoint=https://myaccount.table.core.windows.net/;");
  REQUIRE(portal);
  CHECK(portal->table_endpoint == "https://myaccount.table.core.windows.net");
}

TEST_CASE("connection strings: explicit TableEndpoint (Azurite, Cosmos)", "[core][connection]") {
  auto az1 = az::parse_connection_string(aztables_test::dev_connection_string("http://127.0.0.1:52000/devstoreaccount1/"));
  REQUIRE(az1);
  CHECK(az1->table_endpoint == "http://127.0.0.1:52000/devstoreaccount1");

  auto cosmos = az::parse_connection_string("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + key +
                                            ";TableEndpoint=https://acct.table.cosmos.azure.com:443/;");
  REQUIRE(cosmos);
  CHECK(cosmos->table_endpoint == "https://acct.table.cosmos.azure.com:443");
  auto t = std::make_shared<fake_transport>();
  auto svc = az::service_client::create(cosmos->table_endpoint, cosmos->credential, fake_options(t)).value();
  CHECK(svc.table("x").core()->cosmos());
}

TEST_CASE("connection strings: SharedAccessSignature", "[core][connection]") {
  auto s = az::parse_connection_string(
      "TableEndpoint=https://myaccount.table.core.windows.net;SharedAccessSignature=?sv=2019-02-02&ss=t&srt=sco&sp=rl&"
      "se=2030-01-01T00%3A00%3A00Z&sig=abc%3D");
  REQUIRE(s);
  CHECK(s->table_endpoint == "https://myaccount.table.core.windows.net");
  CHECK(s->account_name == "myaccount");
  auto* sas = std::get_if<az::sas_credential>(&s->credential);
  REQUIRE(sas);
  CHECK(sas->token == "sv=2019-02-02&ss=t&srt=sco&sp=rl&se=2030-01-01T00%3A00%3A00Z&sig=abc%3D");

  auto by_name = az::parse_connection_string("AccountName=myaccount;SharedAccessSignature=sv=1&sig=x");
  REQUIRE(by_name);
  CHECK(by_name->table_endpoint == "https://myaccount.table.core.windows.net");
}

TEST_CASE("connection strings: errors name the key and never echo a secret", "[core][connection]") {
  const std::string secret = "c2VjcmV0c2VjcmV0";  // base64, stands for a key
  const std::pair<std::string, std::string> cases[] = {
      {"AccountName=a;AccountKey=" + secret + "!!", "'AccountKey'"},
      {"AccountName=a;AccountKey=", "'AccountKey'"},
      {"AccountKey=" + secret, "'AccountKey'"},
      {"AccountName=a;AccountKey=" + secret + ";SharedAccessSignature=sig=" + secret, "both AccountKey and SharedAccessSignature"},
      {"AccountName=a", "names no credential"},
      {"AccountName=a;SharedAccessSignature=sv=1&x=" + secret, "'SharedAccessSignature'"},
      {"AccountName=a;SharedAccessSignature=", "'SharedAccessSignature'"},
      {"AccountName=My_Account;AccountKey=" + secret, "'AccountName'"},
      {"AccountName=;AccountKey=" + secret, "'AccountName'"},
      {"AccountName=a;AccountKey=" + secret + ";DefaultEndpointsProtocol=ftp", "'DefaultEndpointsProtocol'"},
      {"AccountName=a;AccountKey=" + secret + ";EndpointSuffix=", "'EndpointSuffix'"},
      {"AccountName=a;AccountKey=" + secret + ";EndpointSuffix=x/y", "'EndpointSuffix'"},
      {"AccountName=a;AccountKey=" + secret + ";TableEndpoint=not a url", "'TableEndpoint'"},
      {"AccountName=a;AccountKey=" + secret + ";TableEndpoint=https://h:99999", "'TableEndpoint'"},
      {"SharedAccessSignature=sig=" + secret, "needs AccountName or TableEndpoint"},
      {"AccountName=a;AccountName=b;AccountKey=" + secret, "'AccountName'"},
      {"AccountName=a;" + secret + ";AccountKey=" + secret, "segment 2"},
      {"AccountName=a;AccountKey=" + secret + ";" + secret + "=x;" + secret + "=y", "segment 4"},
      {"", "names no credential"},
  };
  for (const auto& c : cases) {
    INFO(c.first);
    auto r = az::parse_connection_string(c.first);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::invalid_argument);
    CHECK_THAT(r.error().message, Catch::Contains(c.second));
    CHECK(r.error().message.find(secret) == std::string::npos);
  }
  // Through the client factories too.
  auto svc = az::service_client::from_connection_string("AccountName=a;AccountKey=" + secret + "!");
  REQUIRE_FALSE(svc);
  CHECK(svc.error().message.find(secret) == std::string::npos);
}

// ---------------------------------------------------------------- endpoints

TEST_CASE("endpoints: path-style for IPs, localhost and the emulator; host-style for accounts", "[core][endpoint]") {
  using az::detail::account_from_host;
  using az::detail::parse_endpoint;
  auto a = parse_endpoint("http://127.0.0.1:10002/devstoreaccount1").value();
  CHECK(a.path_style);
  CHECK(a.host == "127.0.0.1");
  CHECK(a.port == 10002);
  CHECK(a.base_path == "/devstoreaccount1");
  CHECK(a.base_url() == "http://127.0.0.1:10002/devstoreaccount1");
  CHECK(account_from_host(a) == "devstoreaccount1");
  CHECK(a.is_loopback());
  CHECK_FALSE(a.cosmos);

  auto l = parse_endpoint("HTTP://LocalHost:10002/devstoreaccount1/").value();
  CHECK(l.scheme == "http");
  CHECK(l.path_style);
  CHECK(l.base_path == "/devstoreaccount1");
  CHECK(l.is_loopback());

  auto v6 = parse_endpoint("http://[::1]:10002/devstoreaccount1").value();
  CHECK(v6.host == "::1");
  CHECK(v6.port == 10002);
  CHECK(v6.authority == "[::1]:10002");
  CHECK(v6.path_style);
  CHECK(v6.is_loopback());
  CHECK(v6.base_url() == "http://[::1]:10002/devstoreaccount1");
  auto v6b = parse_endpoint("https://[2001:db8::1]/acct").value();
  CHECK(v6b.port == 0);
  CHECK(v6b.path_style);
  CHECK_FALSE(v6b.is_loopback());

  auto ip = parse_endpoint("http://10.1.2.3:8080/acct").value();
  CHECK(ip.path_style);
  CHECK_FALSE(ip.is_loopback());

  auto h = parse_endpoint("https://myaccount.table.core.windows.net").value();
  CHECK_FALSE(h.path_style);
  CHECK(account_from_host(h) == "myaccount");
  CHECK_FALSE(h.cosmos);
  CHECK_FALSE(h.is_loopback());
  CHECK(h.base_url() == "https://myaccount.table.core.windows.net");

  auto trailing = parse_endpoint("https://myaccount.table.core.windows.net/").value();
  CHECK(trailing.base_path.empty());
  CHECK_FALSE(trailing.path_style);

  // Look-alikes of loopback are not loopback.
  CHECK_FALSE(parse_endpoint("http://127.evil.example/acct").value().is_loopback());
  CHECK_FALSE(parse_endpoint("http://127.0.0.1.evil.example/acct").value().is_loopback());
  CHECK(parse_endpoint("http://127.0.0.2:1/acct").value().is_loopback());
  CHECK(parse_endpoint("http://devstoreaccount1.localhost:1").value().is_loopback());
}

TEST_CASE("endpoints: Cosmos DB Table API detection", "[core][endpoint]") {
  using az::detail::parse_endpoint;
  CHECK(parse_endpoint("https://acct.table.cosmos.azure.com:443/").value().cosmos);
  CHECK(parse_endpoint("https://acct.table.cosmos.azure.com").value().cosmos);
  CHECK(parse_endpoint("https://acct.table.cosmosdb.azure.com").value().cosmos);  // older host name
  CHECK(parse_endpoint("https://ACCT.TABLE.COSMOS.AZURE.COM").value().cosmos);
  CHECK(parse_endpoint("https://localhost:8902/").value().cosmos);  // Cosmos emulator's Table port
  CHECK_FALSE(parse_endpoint("https://acct.table.core.windows.net").value().cosmos);
  CHECK_FALSE(parse_endpoint("http://127.0.0.1:10002/devstoreaccount1").value().cosmos);
  CHECK_FALSE(parse_endpoint("https://cosmos.example.com").value().cosmos);
  CHECK(az::detail::account_from_host(parse_endpoint("https://acct.table.cosmos.azure.com").value()) == "acct");
}

TEST_CASE("endpoints: malformed URLs are refused naming the field", "[core][endpoint]") {
  for (const char* bad : {"", "myaccount.table.core.windows.net", "ftp://h", "http://", "http:///path", "http://h:",
                          "http://h:0", "http://h:65536", "http://h:99999", "http://h:12ab", "http://[::1",
                          "http://[::1]x", "http://[::1]:", "http://[::1]:65536", "http://[::1]:999999",
                          "http://[]:80", "http://::1:10002", "http://h/p?x=1", "http://h#f", "http://u:p@h"}) {
    INFO(bad);
    auto r = az::detail::parse_endpoint(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::invalid_argument);
    CHECK_THAT(r.error().message, Catch::StartsWith("endpoint: "));
  }
  auto t = std::make_shared<fake_transport>();
  auto svc = az::service_client::create("not a url", az::anonymous_credential{}, fake_options(t));
  REQUIRE_FALSE(svc);
  CHECK_THAT(svc.error().message, Catch::StartsWith("endpoint: "));
}

TEST_CASE("endpoints: SAS or bearer over plain http only to loopback", "[core][endpoint]") {
  auto t = std::make_shared<fake_transport>();
  auto far = az::service_client::create("http://10.0.0.1:10002/acct", az::sas_credential{"sv=1&sig=x"}, fake_options(t));
  REQUIRE_FALSE(far);
  CHECK_THAT(far.error().message, Catch::Contains("plain http"));
  auto look_alike =
      az::service_client::create("http://127.evil.example/acct", az::sas_credential{"sv=1&sig=x"}, fake_options(t));
  CHECK_FALSE(look_alike);
  CHECK(az::service_client::create("http://127.0.0.1:10002/acct", az::sas_credential{"sv=1&sig=x"}, fake_options(t)));
  auto opt = fake_options(t);
  opt.insecure_allow_http_with_secrets = true;
  CHECK(az::service_client::create("http://10.0.0.1:10002/acct", az::sas_credential{"sv=1&sig=x"}, opt));
}

// ---------------------------------------------------------------- escaping

TEST_CASE("escaping: keys in URL paths (quote doubled, then percent-encoded)", "[core][escaping]") {
  using az::detail::entity_path;
  CHECK(entity_path("t", "pk1", "rk1") == "t(PartitionKey='pk1',RowKey='rk1')");
  CHECK(entity_path("t", "O'Brien", "it''s") == "t(PartitionKey='O%27%27Brien',RowKey='it%27%27%27%27s')");
  CHECK(entity_path("t", "'", "a'") == "t(PartitionKey='%27%27',RowKey='a%27%27')");
  CHECK(entity_path("t", "''x", "'a'b'") == "t(PartitionKey='%27%27%27%27x',RowKey='%27%27a%27%27b%27%27')");
  CHECK(entity_path("t", "a b", "100%") == "t(PartitionKey='a%20b',RowKey='100%25')");
  CHECK(entity_path("t", "a+b", "x&y=z") == "t(PartitionKey='a%2Bb',RowKey='x%26y%3Dz')");
  CHECK(entity_path("t", "h\xc3\xa9", "\xf0\x9f\x98\x80") == "t(PartitionKey='h%C3%A9',RowKey='%F0%9F%98%80')");
  CHECK(entity_path("t", "", "") == "t(PartitionKey='',RowKey='')");
  CHECK(entity_path("t", "(x),:;$@!*", "-._~") == "t(PartitionKey='%28x%29%2C%3A%3B%24%40%21%2A',RowKey='-._~')");
}

TEST_CASE("escaping: percent encoding and decoding", "[core][escaping]") {
  CHECK(az::detail::percent_encode("AZaz09-._~") == "AZaz09-._~");
  CHECK(az::detail::percent_encode(" !\"#$%&'()*+,/:;=?@[]") == "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D");
  CHECK(az::detail::percent_encode(std::string("\0\xff", 2)) == "%00%FF");
  CHECK(az::detail::percent_decode("a%20b%2Bc%2bd") == "a b+c+d");
  CHECK(az::detail::percent_decode("a+b") == "a+b");
  CHECK(az::detail::percent_decode("a+b", true) == "a b");
  CHECK(az::detail::percent_decode("%41%") == "A%");
  CHECK(az::detail::percent_decode("%4") == "%4");
  CHECK(az::detail::percent_decode("%zz%4g") == "%zz%4g");
  CHECK(az::detail::percent_decode("%C3%A9%F0%9F%98%80") == "\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(az::detail::percent_decode("") == "");
  CHECK(az::detail::percent_decode("%41%42") == "AB");
}

TEST_CASE("escaping: query strings the client builds", "[core][escaping]") {
  auto t = std::make_shared<fake_transport>();
  t->set_default([](const az::http_request& rq) -> az::result<az::http_response> {
    az::http_response r;
    r.status = 200;
    r.body = rq.url.find("/Tables") != std::string::npos ? R"({"value":[]})" : R"({"PartitionKey":"p","RowKey":"r"})";
    return r;
  });
  auto svc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), fake_options(t)).value();
  REQUIRE(svc.list_tables("pre"));
  REQUIRE(svc.table("orders").get({"O'Brien", "a b"}, {"A", "\xc3\xbc" "ber", "Timestamp"}));
  auto rqs = t->requests();
  CHECK(rqs.at(0).url ==
        "http://127.0.0.1:10002/devstoreaccount1/Tables?$filter=TableName%20ge%20%27pre%27%20and%20TableName%20lt%20%27prf%27");
  CHECK(rqs.at(1).url ==
        "http://127.0.0.1:10002/devstoreaccount1/orders(PartitionKey='O%27%27Brien',RowKey='a%20b')"
        "?$select=A,%C3%BCber,Timestamp");
}
