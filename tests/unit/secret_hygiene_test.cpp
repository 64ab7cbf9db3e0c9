// Secret hygiene: every failure path driven with a recognisable account key,
// SAS signature and bearer token, including servers and transports that echo
// what they received. None of the secrets (nor their percent-encoded forms,
// nor the per-request SharedKey signature) may appear in an error's text,
// an exception's what(), what the retry hook sees, or anything written to
// stderr.
#include <catch2/catch.hpp>
#include <local_http_server.hpp>
#include <test_support.hpp>

#include <aztables/access_policy.hpp>
#include <aztables/detail/redact.hpp>
#include <aztables/detail/sas_token.hpp>
#include <aztables/sas.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

using namespace std::chrono;

namespace {

// base64("HYGIENE-ACCOUNT-KEY-0123456789-SECRET-BYTES!") : valid, recognisable.
const std::string account_key = aztables::detail::base64_encode("HYGIENE-ACCOUNT-KEY-0123456789-SECRET-BYTES!");
const std::string sas_sig = "SASSIGSECRET0123456789abcdef+XYZ/uvw=";  // decoded form
const std::string sas_token = "sv=2019-02-02&tn=orders&sp=raud&se=2030-01-01T00%3A00%3A00Z&spr=https&sig=" +
                              aztables::detail::percent_encode(sas_sig);
const std::string bearer_token = "eyJBEARERTOKENSECRET.eyJwYXlsb2FkIjoic2VjcmV0In0.c2lnbmF0dXJlU0VDUkVU";

/// Everything that may be shown, gathered for one check at the end.
struct collector {
  std::vector<std::string> texts;
  std::vector<std::string> signatures;  // SharedKey signatures the transports saw
  int successes = 0;

  void add(const aztables::error& e) {
    texts.push_back(e.to_string());
    texts.push_back(e.message);
    texts.push_back(e.service_code);
    texts.push_back(e.request_id);
    texts.push_back(aztables::exception(e).what());
  }
  template <class T>
  void add(const aztables::result<T>& r) {
    if (r) {  // a 2xx that needed no parsing (only failures have text to check)
      ++successes;
      return;
    }
    add(r.error());
    try {
      (void)r.value();
      FAIL("value() did not throw");
    } catch (const aztables::exception& ex) {
      texts.push_back(ex.what());
      texts.push_back(ex.error().to_string());
    }
  }
  void add_request(const aztables::http_request& rq) {
    const std::string* a = rq.headers.find("Authorization");
    if (a && a->rfind("SharedKey", 0) == 0) signatures.push_back(a->substr(a->rfind(':') + 1));
  }
  std::function<void(const aztables::attempt_info&)> hook() {
    return [this](const aztables::attempt_info& info) {
      std::lock_guard<std::mutex> lk(mu);
      texts.emplace_back(info.operation);
      if (info.failure) {
        texts.push_back(info.failure->to_string());
        texts.push_back(info.failure->message);
        texts.push_back(info.failure->service_code);
        texts.push_back(info.failure->request_id);
      }
    };
  }
  std::mutex mu;
};

void check_clean(const std::vector<std::string>& texts, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    const std::string forms[] = {secret, aztables::detail::percent_encode(secret)};
    for (const auto& text : texts)
      for (const auto& form : forms)
        if (text.find(form) != std::string::npos)
          FAIL_CHECK("secret " << form.substr(0, 12) << "... appears in: " << text.substr(0, 300));
  }
}

/// A transport that answers with whatever `respond` makes, after recording.
class echo_transport : public aztables::transport {
 public:
  using fn = std::function<aztables::result<aztables::http_response>(const aztables::http_request&)>;
  echo_transport(collector& c, fn f) : c_(c), f_(std::move(f)) {}
  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    {
      std::lock_guard<std::mutex> lk(c_.mu);
      c_.add_request(rq);
    }
    return f_(rq);
  }

 private:
  collector& c_;
  fn f_;
};

/// Everything a request carries, in the shapes a careless server or proxy
/// might echo it.
std::string echo_of(const aztables::http_request& rq) {
  std::string s = rq.method + " " + rq.url + "\n";
  for (const auto& h : rq.headers) s += h.name + ": " + h.value + "\n";
  return s;
}

aztables::http_response json_error(int status, const aztables::http_request& rq) {
  aztables::http_response r;
  r.status = status;
  const std::string echo = echo_of(rq);
  std::string escaped;
  for (char c : echo) escaped += c == '\n' ? std::string("\\n") : c == '"' ? std::string("\\\"") : std::string(1, c);
  r.body = R"({"odata.error":{"code":"AuthenticationFailed","message":{"lang":"en-US","value":"Request was: )" +
           escaped + R"("}}})";
  const std::string* auth = rq.headers.find("Authorization");
  r.headers.add("x-ms-error-code", auth ? *auth : "sig=" + sas_sig);
  r.headers.add("x-ms-request-id", rq.url);
  return r;
}

aztables::http_response xml_error(int status, const aztables::http_request& rq) {
  aztables::http_response r;
  r.status = status;
  const std::string* auth = rq.headers.find("Authorization");
  r.body = "<?xml version=\"1.0\"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate "
           "the request " +
           rq.url + " with " + (auth ? *auth : std::string("no header")) +
           "</Message><AuthenticationErrorDetail>The MAC signature found in the HTTP request '" +
           (auth ? *auth : std::string()) + "' is not the same</AuthenticationErrorDetail></Error>";
  return r;
}

aztables::client_options options_with(std::shared_ptr<aztables::transport> t, collector& c, int retries = 2) {
  aztables::client_options o;
  o.transport = std::move(t);
  o.clock = [] { return system_clock::time_point(seconds(1795000000)); };
  o.retry = aztables::retry_options::fixed(retries, milliseconds(1));
  o.retry.sleep = [](milliseconds) {};
  o.retry.on_attempt = c.hook();
  return o;
}

/// Runs the operations of both clients that can fail at the transport.
void drive(aztables::service_client& svc, collector& c) {
  auto tc = svc.table("orders");
  aztables::entity e("p", "r");
  e.set("N", 1);
  c.add(svc.list_tables());
  c.add(svc.create_table("orders"));
  c.add(svc.delete_table("orders"));
  c.add(tc.insert(e));
  c.add(tc.upsert(e));
  auto any = e;
  any.etag = aztables::etag::any();
  c.add(tc.update(any));
  c.add(tc.erase({"p", "r"}, aztables::etag::any()));
  c.add(tc.get({"p", "r"}));
  c.add(aztables::get_access_policies(tc));
  c.add(aztables::set_access_policies(tc, {{"policy", {std::nullopt, std::nullopt, {true}}}}));
  aztables::batch b(tc);
  b.insert(e).upsert(aztables::entity("p", "r2"));
  c.add(b.submit());
}

/// A 202 $batch answer whose failing part echoes the request (URL and
/// Authorization header) in its error body and headers.
aztables::http_response batch_part_error(const aztables::http_request& rq) {
  aztables::http_response r;
  r.status = 202;
  r.headers.add("Content-Type", "multipart/mixed; boundary=batchresponse_1");
  const std::string* auth = rq.headers.find("Authorization");
  const std::string echo = rq.url + " Authorization: " + (auth ? *auth : std::string("-"));
  r.body = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_2\r\n\r\n"
           "--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
           "HTTP/1.1 403 Forbidden\r\nContent-ID: 1\r\nx-ms-error-code: " + echo +
           "\r\nContent-Type: application/json\r\n\r\n"
           "{\"odata.error\":{\"code\":\"AuthorizationFailure\",\"message\":{\"lang\":\"en-US\",\"value\":\"0:" + echo +
           "\"}}}\r\n--changesetresponse_2--\r\n--batchresponse_1--\r\n";
  return r;
}

/// Captures what is written to stderr while alive.
class stderr_capture {
 public:
  stderr_capture() {
    std::fflush(stderr);
    path_ = "secret-hygiene-stderr-" + std::to_string(::getpid()) + ".txt";
    saved_ = ::dup(2);
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  std::string finish() {
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    std::remove(path_.c_str());
    return ss.str();
  }

 private:
  std::string path_;
  int saved_ = -1;
};

}  // namespace

TEST_CASE("secret hygiene: no key, signature, SAS sig or token in any error text", "[hygiene]") {
  collector c;
  stderr_capture err;
  const std::vector<std::string> statuses_desc = {"json 403", "xml 403", "json 503 (retried)", "xml 500 (retried)"};

  // 1. Servers that echo the request into error bodies and headers, for each credential.
  std::vector<std::pair<std::string, aztables::credential>> creds = {
      {"shared key", aztables::shared_key_credential("hygieneacct", account_key)},
      {"shared key lite",
       aztables::shared_key_credential("hygieneacct", account_key, aztables::shared_key_scheme::shared_key_lite)},
      {"sas", aztables::sas_credential{sas_token}},
      {"bearer", aztables::bearer_credential{[](std::string_view) -> aztables::result<aztables::access_token> {
                                               return aztables::access_token{
                                                   bearer_token, system_clock::time_point(seconds(1795000000)) + hours(1)};
                                             },
                                             {},
                                             minutes(5)}},
  };
  for (auto& [name, cred] : creds) {
    for (int shape = 0; shape < 4; ++shape) {
      INFO(name << " / " << statuses_desc[static_cast<std::size_t>(shape)]);
      auto t = std::make_shared<echo_transport>(c, [shape](const aztables::http_request& rq) {
        switch (shape) {
          case 0: return aztables::result<aztables::http_response>(json_error(403, rq));
          case 1: return aztables::result<aztables::http_response>(xml_error(403, rq));
          case 2: return aztables::result<aztables::http_response>(json_error(503, rq));
          default: return aztables::result<aztables::http_response>(xml_error(500, rq));
        }
      });
      auto svc = aztables::service_client::create("https://hygieneacct.table.core.windows.net", cred,
                                                  options_with(t, c))
                     .value();
      drive(svc, c);
    }
    // 2. Transports that fail with the whole request in their message.
    for (auto failure : {aztables::transport_failure::connect, aztables::transport_failure::tls,
                         aztables::transport_failure::timeout, aztables::transport_failure::other}) {
      auto t = std::make_shared<echo_transport>(c, [failure](const aztables::http_request& rq) {
        aztables::error e = aztables::error::make(aztables::errc::transport, "could not send " + echo_of(rq));
        e.failure = failure;
        return aztables::result<aztables::http_response>(e);
      });
      auto svc = aztables::service_client::create("https://hygieneacct.table.core.windows.net", cred,
                                                  options_with(t, c))
                     .value();
      drive(svc, c);
    }
    // 2b. A $batch whose failing part echoes the request.
    {
      auto t = std::make_shared<echo_transport>(c, [](const aztables::http_request& rq) {
        return aztables::result<aztables::http_response>(batch_part_error(rq));
      });
      auto svc = aztables::service_client::create("https://hygieneacct.table.core.windows.net", cred,
                                                  options_with(t, c))
                     .value();
      aztables::batch b(svc.table("orders"));
      b.insert(aztables::entity("p", "r")).insert(aztables::entity("p", "r2"));
      auto r = b.submit();
      REQUIRE_FALSE(r);
      c.add(r);
    }
    // 3. Parse errors on 2xx answers (the server does not echo here).
    {
      auto t = std::make_shared<echo_transport>(c, [](const aztables::http_request&) {
        aztables::http_response r;
        r.status = 200;
        r.body = R"({"value":[{"TableName":7}],"PartitionKey":1})";
        return aztables::result<aztables::http_response>(r);
      });
      auto svc = aztables::service_client::create("https://hygieneacct.table.core.windows.net", cred,
                                                  options_with(t, c))
                     .value();
      drive(svc, c);
    }
  }

  // 4. Token providers that fail with the token (or an older one) in the message.
  {
    int calls = 0;
    aztables::bearer_credential b;
    b.provider = [&calls](std::string_view) -> aztables::result<aztables::access_token> {
      ++calls;
      return aztables::error::make(aztables::errc::authentication,
                                   "refresh failed for Bearer " + bearer_token + " (token=" + bearer_token + ")");
    };
    auto t = std::make_shared<echo_transport>(c, [](const aztables::http_request& rq) {
      return aztables::result<aztables::http_response>(json_error(401, rq));
    });
    auto svc = aztables::service_client::create("https://hygieneacct.table.core.windows.net", b, options_with(t, c))
                   .value();
    drive(svc, c);
    CHECK(calls > 0);
  }

  // 5. Invalid arguments made with the secrets at hand.
  c.add(aztables::service_client::create("https://hygieneacct.table.core.windows.net",
                                         aztables::shared_key_credential("hygieneacct", account_key + "*bad*")));
  c.add(aztables::service_client::create("https://hygieneacct.table.core.windows.net",
                                         aztables::sas_credential{sas_token + "&sig=" + sas_sig}));
  c.add(aztables::service_client::create("https://hygieneacct.table.core.windows.net",
                                         aztables::sas_credential{"sig=" + sas_sig + " tail"}));
  c.add(aztables::service_client::create("http://example.com", aztables::sas_credential{sas_token}));
  c.add(aztables::service_client::create("http://example.com/?sig=" + sas_sig,
                                         aztables::shared_key_credential("hygieneacct", account_key)));
  for (const std::string& cs :
       {"AccountName=hygieneacct;AccountKey=" + account_key + "*;", "AccountName=hygieneacct;AccountKey=" + account_key +
                                                                          ";AccountKey=" + account_key,
        "AccountName=hygieneacct;" + account_key, "AccountName=hygieneacct;AccountKey=" + account_key +
                                                      ";SharedAccessSignature=" + sas_token,
        "SharedAccessSignature=" + sas_token, "SharedAccessSignature=" + sas_sig,
        "AccountName=Bad_Name;AccountKey=" + account_key,
        "AccountName=hygieneacct;AccountKey=" + account_key + ";TableEndpoint=ftp://" + sas_sig,
        "AccountName=hygieneacct;AccountKey=" + account_key + ";EndpointSuffix=" + sas_sig + "/x",
        "AccountName=hygieneacct;AccountKey=" + account_key + ";DefaultEndpointsProtocol=" + sas_sig}) {
    auto r = aztables::parse_connection_string(cs);
    if (!r) c.add(r.error());
    auto svc = aztables::service_client::from_connection_string(cs);
    if (!svc) c.add(svc.error());
  }
  aztables::shared_key_credential key("hygieneacct", account_key);
  aztables::table_sas_options bad;
  bad.table_name = "orders";
  bad.permissions.query = true;
  bad.expires_on = system_clock::now() - hours(1);
  c.add(aztables::make_table_sas(key, bad));
  bad.expires_on = system_clock::now() + hours(1);
  bad.ip_range = sas_sig;
  c.add(aztables::make_table_sas(key, bad));
  c.add(aztables::make_table_sas(aztables::shared_key_credential("hygieneacct", "*" + account_key), bad));
  aztables::account_sas_options abad;
  c.add(aztables::make_account_sas(key, abad));
  for (const std::string& tok : {sas_sig, "sig=" + sas_sig + "&sig=" + sas_sig, "x=" + sas_sig + "#", sas_token + "&=1"}) {
    auto r = aztables::detail::parse_sas_token(tok);
    if (!r) c.add(r.error());
  }

  const std::string stderr_text = err.finish();
  c.texts.push_back(stderr_text);

  std::vector<std::string> secrets = {account_key, sas_sig, bearer_token};
  REQUIRE(c.signatures.size() > 20);  // the SharedKey runs really signed requests
  for (const auto& s : c.signatures) secrets.push_back(s);
  REQUIRE(c.texts.size() > 500);
  check_clean(c.texts, secrets);
}

TEST_CASE("redact: patterns of unknown origin", "[hygiene]") {
  using aztables::detail::redact;
  CHECK(redact("GET /t?sv=1&sig=abc%2B&x=1") == "GET /t?sv=1&sig=REDACTED&x=1");
  CHECK(redact("url ...?SIG=abc then") == "url ...?SIG=REDACTED then");
  CHECK(redact("nested ?u=https%3A%2F%2Fx%3Fsig%3Dabc%26y") == "nested ?u=https%3A%2F%2Fx%3Fsig%3DREDACTED");
  CHECK(redact("Authorization: Bearer eyJ.abc.def\r\nX: y") == "Authorization: Bearer REDACTED\r\nX: y");
  CHECK(redact("Authorization: SharedKey acct:c2lnbmF0dXJl=\n") == "Authorization: SharedKey acct:REDACTED\n");
  CHECK(redact("SharedKeyLite acct:abc+/=") == "SharedKeyLite acct:REDACTED");
  CHECK(redact("nothing to hide: sig is a word") == "nothing to hide: sig is a word");
  CHECK(redact("sig=") == "sig=REDACTED");
  CHECK(redact("failed: {\"access_token\":\"eyJhbGciOi.eyJzdWIi.c2ln\"}") == "failed: {\"access_token\":\"REDACTED\"}");
  CHECK(redact("refresh_token=abc&client_secret=xyz") == "refresh_token=REDACTED&client_secret=REDACTED");
  CHECK(redact("eyJ alone is fine") == "eyJ alone is fine");
  std::string s = "key Zm9vYmFyYmF6cXV4 and Zm9vYmFyYmF6cXV4%3D and Zm9vYmFyYmF6cXV4%3d and Zm9vYmFyYmF6cXV4=";
  aztables::detail::scrub(s, {"Zm9vYmFyYmF6cXV4="});
  CHECK(s == "key Zm9vYmFyYmF6cXV4 and REDACTED and REDACTED and REDACTED");
  std::string shortie = "abc abc";
  aztables::detail::scrub(shortie, {"abc"});  // too short to be a secret: left alone
  CHECK(shortie == "abc abc");
}

TEST_CASE("secret hygiene: a real HTTP server echoing the request", "[hygiene]") {
  aztables_test::local_http_server srv;
  srv.set_handler([](const aztables_test::recorded_request& rq) {
    std::string echo = rq.method + " " + rq.target;
    for (const auto& h : rq.headers) echo += " | " + h.first + ": " + h.second;
    return aztables_test::canned_response{403,
                                          {{"Content-Type", "application/xml"},
                                           {"x-ms-error-code", rq.header("Authorization")},
                                           {"x-ms-request-id", rq.target}},
                                          "<Error><Code>AuthorizationFailure</Code><Message>" + echo +
                                              "</Message></Error>"};
  });
  collector c;
  aztables::client_options o;
  o.retry = aztables::retry_options::none();
  o.retry.on_attempt = c.hook();
  auto sas = aztables::service_client::create(srv.url("/hygieneacct"), aztables::sas_credential{sas_token}, o).value();
  drive(sas, c);
  auto keyed = aztables::service_client::create(srv.url("/hygieneacct"),
                                                aztables::shared_key_credential("hygieneacct", account_key), o)
                   .value();
  drive(keyed, c);
  std::vector<std::string> secrets = {account_key, sas_sig};
  for (const auto& rq : srv.requests()) {
    const std::string a = rq.header("Authorization");
    if (!a.empty()) secrets.push_back(a.substr(a.rfind(':') + 1));
  }
  REQUIRE(srv.request_count() > 10);
  check_clean(c.texts, secrets);
}
