// SPDX-License-Identifier: MIT
// Internal: the non-template heart shared by service_client and table_client:
// endpoint, credential, signing, transport, and the retry loop that every
// request goes through.
#pragma once

#include <aztables/credentials.hpp>
#include <aztables/detail/per_thread.hpp>
#include <aztables/detail/codec.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/redact.hpp>
#include <aztables/detail/sas_check.hpp>
#include <aztables/detail/shared_key.hpp>
#include <aztables/detail/url.hpp>
#include <aztables/options.hpp>
#include <aztables/retry.hpp>
#include <aztables/transport.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::string_view accept_minimal = "application/json;odata=minimalmetadata";
inline constexpr std::string_view accept_none = "application/json;odata=nometadata";

/// Category of an HTTP error status.
inline errc errc_from_status(int status) noexcept {
  switch (status) {
    case 401:
    case 403: return errc::authentication;
    case 404: return errc::not_found;
    case 409: return errc::conflict;
    case 412: return errc::precondition_failed;
    case 429:
    case 503: return errc::throttled;
    default: return status >= 500 ? errc::service : errc::bad_request;
  }
}

// redact() and scrub(): detail/redact.hpp.

/// Parses the server's retry hint, if any: x-ms-retry-after-ms, retry-after-ms,
/// then Retry-After (seconds or an HTTP date relative to `now`).
inline std::optional<std::chrono::milliseconds> retry_hint(const http_headers& h, std::chrono::system_clock::time_point now) {
  auto ms_header = [&](std::string_view name) -> std::optional<std::chrono::milliseconds> {
    const std::string* v = h.find(name);
    if (!v) return std::nullopt;
    double ms = 0;
    auto r = std::from_chars(v->data(), v->data() + v->size(), ms);
    if (r.ec != std::errc() || r.ptr != v->data() + v->size() || !(ms >= 0) || ms > 1e12) return std::nullopt;
    return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
  };
  if (auto m = ms_header("x-ms-retry-after-ms")) return m;
  if (auto m = ms_header("retry-after-ms")) return m;
  if (const std::string* v = h.find("Retry-After")) {
    std::int64_t secs = 0;
    auto r = std::from_chars(v->data(), v->data() + v->size(), secs);
    if (r.ec == std::errc() && r.ptr == v->data() + v->size() && secs >= 0 && secs < 100000000)
      return std::chrono::milliseconds(secs * 1000);
    if (auto t = parse_rfc1123(*v)) {
      // Whole seconds: a far date minus now must not overflow nanoseconds.
      using std::chrono::seconds;
      const auto d = std::chrono::time_point_cast<seconds>(*t).time_since_epoch().count() -
                     std::chrono::time_point_cast<seconds>(now).time_since_epoch().count();
      if (d <= 0) return std::chrono::milliseconds(0);
      return std::chrono::milliseconds(std::min<std::int64_t>(d, 100000000) * 1000);
    }
  }
  return std::nullopt;
}

/// What an operation asks the core to send.
struct request_spec {
  std::string_view method;   ///< GET POST PUT MERGE DELETE
  std::string path;          ///< relative to the endpoint's base, already escaped ("Tables", "t(PartitionKey='a',...)")
  std::string query;         ///< encoded, without '?', without the SAS
  std::string_view accept = accept_minimal;
  std::string_view content_type;  ///< empty: none
  std::string body;
  http_headers headers;      ///< extra headers (If-Match, Prefer, ...)
};

/// An operation's identity for the retry policy and the per-attempt hook.
/// `idempotent`: safe to repeat after an attempt that may have been applied
/// (upserts, updates and deletes with an ETag or `*`, reads); false for
/// inserts and batches holding one (see README "Retries").
struct operation {
  std::string_view name;
  bool idempotent;
};

/// What `execute` reports besides the response, for callers that verify a
/// write whose earlier attempt may have been applied (insert, batch).
struct execute_info {
  int attempts = 0;  ///< attempts made
  /// An attempt before the one that produced the final answer may have been
  /// applied (it got no definite answer, or the transport re-sent it).
  bool earlier_may_have_applied = false;
};

class client_core : public std::enable_shared_from_this<client_core> {
 public:
  static result<std::shared_ptr<client_core>> create(std::string_view endpoint_url, credential cred, client_options opt) {
    auto ep = parse_endpoint(endpoint_url);
    if (!ep) return std::move(ep).error();
    // The libraries' global state first, so that it outlives a client held
    // in a static (see init_parser_globals; OpenSSL registers its exit handler
    // here, curl_global_init runs when the transport is made below).
    init_parser_globals();
    OPENSSL_init_crypto(0, nullptr);
    auto core = std::make_shared<client_core>();
    core->ep_ = std::move(*ep);
    core->cred_ = std::move(cred);
    core->opt_ = std::move(opt);
    if (auto bad = validate_retry_options(core->opt_.retry)) return std::move(*bad);
    const bool secret_in_clear = core->ep_.scheme == "http" && !core->ep_.is_loopback() &&
                                 (std::holds_alternative<sas_credential>(core->cred_) ||
                                  std::holds_alternative<bearer_credential>(core->cred_));
    if (secret_in_clear && !core->opt_.insecure_allow_http_with_secrets)
      return error::invalid_argument("endpoint", "uses plain http to a non-loopback host with a SAS or bearer "
                                                 "credential; use https (or set insecure_allow_http_with_secrets)");
    if (auto* sk = std::get_if<shared_key_credential>(&core->cred_)) {
      binary key;
      if (sk->secret_base64_key().empty() || !base64_decode_to(sk->secret_base64_key(), key))
        return error::invalid_argument("account key", "is not valid base64 (value not shown)");
      if (sk->account_name().empty()) return error::invalid_argument("account name", "is empty");
      core->account_ = sk->account_name();
      core->mac_ = std::make_unique<hmac_sha256>(key);
      core->secrets_.push_back(sk->secret_base64_key());
    } else {
      core->account_ = account_from_host(core->ep_);
    }
    if (auto* sas = std::get_if<sas_credential>(&core->cred_)) {
      std::string_view t = sas->token;
      if (!t.empty() && t.front() == '?') t.remove_prefix(1);
      auto parsed = parse_sas_token(t);  // errors never echo the token
      if (!parsed) return std::move(parsed).error();
      core->sas_ = std::string(t);
      core->sas_range_ = sas_key_range::from(*parsed);
      core->secrets_.push_back(std::string(parsed->get("sig")));  // scrub() also removes its %-encoded forms
    }
    if (auto* b = std::get_if<bearer_credential>(&core->cred_)) {
      if (!b->provider) return error::invalid_argument("bearer credential", "has no token provider");
      core->scope_ = !b->scope.empty() ? b->scope
                     : core->ep_.cosmos ? std::string("https://cosmos.azure.com/.default")
                                        : std::string("https://storage.azure.com/.default");
    }
    if (!core->opt_.transport) {
      curl_transport_options to;
      to.connect_timeout = core->opt_.connect_timeout;
      to.verify_tls = !core->opt_.insecure_skip_tls_verification;
      to.ca_file = core->opt_.ca_file;
      to.ca_path = core->opt_.ca_path;
      to.max_response_bytes = core->opt_.max_response_bytes;
      core->opt_.transport = make_curl_transport(to);
    }
    core->user_agent_ = "aztables-cpp/" AZTABLES_VERSION_STRING;
    if (!core->opt_.user_agent_suffix.empty()) core->user_agent_ += " " + core->opt_.user_agent_suffix;
    return core;
  }

  const endpoint& ep() const noexcept { return ep_; }
  const std::string& account() const noexcept { return account_; }
  const client_options& options() const noexcept { return opt_; }

  /// A core for the same account and endpoint with another retry policy
  /// (`table_client::with_retry`). It shares this core's transport
  /// (connections) and signs through this core (one key context, one token
  /// cache). The policy is checked on each call, before anything is sent.
  std::shared_ptr<client_core> with_retry(retry_options retry) {
    // Same endpoint, credential and options as this core, which were accepted
    // when it was created: create() cannot fail here.
    auto c = create(ep_.base_url(), cred_, opt_).value();
    c->opt_.retry = std::move(retry);
    c->signer_ = signer_ ? signer_ : shared_from_this();
    return c;
  }
  bool cosmos() const noexcept { return ep_.cosmos; }

  /// Absolute URL for a path relative to the endpoint base (no query).
  std::string url_for(std::string_view path) const {
    // Written piece by piece into one buffer (ep_.base_url() would build a
    // temporary string per request).
    std::string u;
    u.reserve(ep_.scheme.size() + 3 + ep_.authority.size() + ep_.base_path.size() + 1 + path.size() + 1 + sas_.size() +
              64);  // room for a query too
    u += ep_.scheme;
    u += "://";
    u += ep_.authority;
    u += ep_.base_path;
    u += '/';
    u.append(path.data(), path.size());
    return u;
  }

  std::chrono::system_clock::time_point now() const {
    return opt_.clock ? opt_.clock() : std::chrono::system_clock::now();
  }

  /// Builds the signed request for one attempt.
  result<http_request> build(const request_spec& spec) {
    if (signer_) return signer_->build(spec);
    http_request rq;
    rq.method = std::string(spec.method);
    rq.url = url_for(spec.path);
    if (!spec.query.empty() || !sas_.empty()) {
      rq.url += '?';
      rq.url += spec.query;
      if (!sas_.empty()) {
        if (!spec.query.empty()) rq.url += '&';
        rq.url += sas_;
      }
    }
    rq.headers.reserve(8 + spec.headers.size());
    const std::string& date = format_rfc1123_cached(now());
    rq.headers.add("x-ms-date", date);
    rq.headers.add("x-ms-version", opt_.api_version);
    rq.headers.add("Accept", std::string(spec.accept));
    rq.headers.add("DataServiceVersion", "3.0;NetFx");
    rq.headers.add("MaxDataServiceVersion", "3.0;NetFx");
    rq.headers.add("User-Agent", user_agent_);
    if (!spec.content_type.empty()) rq.headers.add("Content-Type", std::string(spec.content_type));
    for (const auto& h : spec.headers) rq.headers.add(h.name, h.value);
    if (mac_) {
      rq.headers.add("Authorization", shared_key_authorization(spec.method, spec.content_type, date, spec.path, spec.query));
    } else if (std::holds_alternative<bearer_credential>(cred_)) {
      auto tok = bearer_token();
      if (!tok) return std::move(tok).error();
      rq.headers.add("Authorization", "Bearer " + *tok);
    }
    // Emulator endpoints (Azurite): a JSON body too large for one read there
    // goes out with non-ASCII escaped, or Azurite would corrupt characters
    // split between reads (detail/json_writer.hpp, README "Azurite").
    if (!(ep_.path_style && spec.body.size() > emulator_single_read_body && spec.content_type == "application/json" &&
          ascii_json(spec.body, rq.body)))
      rq.body = spec.body;
    rq.timeout = opt_.attempt_timeout;
    rq.connect_timeout = opt_.connect_timeout;
    return rq;
  }

  /// The Authorization value of a SharedKey / SharedKeyLite request
  /// ("SharedKey account:signature"): the string to sign built in a reused
  /// per-thread buffer (CanonicalizedResource: "/" + account + the URL path as
  /// sent, plus ?comp= when the query has it; detail/shared_key.hpp), then
  /// HMAC-SHA256 from the key's precomputed state, then base64. Only for a
  /// shared-key client.
  std::string shared_key_authorization(std::string_view method, std::string_view content_type, std::string_view date,
                                       std::string_view path, std::string_view query) const {
    const auto& sk = std::get<shared_key_credential>(cred_);
    struct sign_buffer {
      std::string text;
    };
    std::string& to_sign = per_thread<sign_buffer>().text;
    to_sign.clear();
    append_string_to_sign_head(to_sign, sk.scheme(), method, content_type, date);
    append_canonicalized_resource(to_sign, account_, ep_.base_path, path, query);
    const auto mac = mac_->sign(to_sign);
    std::string auth;
    auth.reserve(16 + account_.size() + 44);
    auth += authorization_scheme(sk.scheme());
    auth += account_;
    auth += ':';
    base64_encode_to(auth, mac.data(), mac.size());
    return auth;
  }

  /// The error a non-2xx response stands for.
  static error error_from_response(http_response& resp) {
    error e;
    e.http_status = resp.status;
    e.code = errc_from_status(resp.status);
    if (const std::string* id = resp.headers.find("x-ms-request-id")) e.request_id = *id;
    std::string body_code;
    parse_error_body(resp.body, body_code, e.message);
    if (const std::string* c = resp.headers.find("x-ms-error-code")) e.service_code = *c;
    if (e.service_code.empty()) e.service_code = std::move(body_code);
    if (e.message.empty()) e.message = "HTTP " + std::to_string(resp.status) + " with no error description";
    e.message = redact(std::move(e.message));
    return e;
  }

  /// Sends a request through the retry policy (decisions in retry.hpp).
  /// Only 2xx responses are returned as values; everything else becomes an
  /// error carrying the attempt count and, for a write (any method but GET),
  /// `may_have_applied` when some attempt may have been applied. `info`, if
  /// given, receives the attempt count and whether an attempt before the
  /// final answer may have been applied (callers verify inserts and batches
  /// with it).
  result<http_response> execute(const operation& op, const request_spec& spec, execute_info* info = nullptr) {
    using std::chrono::milliseconds;
    const retry_options& rp = opt_.retry;
    if (auto bad = validate_retry_options(rp)) return std::move(*bad);
    if (auto bad = check_sas_key_range(sas_range_, spec.method, spec.path, spec.body)) return std::move(*bad);
    auto steady = [&] { return rp.now ? rp.now() : std::chrono::steady_clock::now(); };
    const auto start = steady();
    auto elapsed = [&] { return std::chrono::duration_cast<milliseconds>(steady() - start); };
    const bool write = spec.method != "GET";
    bool earlier = false;  // an attempt before the current one may have been applied
    auto report = [&](int attempt, int status, const error* failure, attempt_outcome outcome, milliseconds delay) {
      if (info) {
        info->attempts = attempt;
        info->earlier_may_have_applied = earlier;
      }
      if (!rp.on_attempt) return;
      attempt_info a;
      a.operation = op.name;
      a.attempt = attempt;
      a.http_status = status;
      a.failure = failure;
      a.outcome = outcome;
      a.delay = delay;
      a.elapsed = elapsed();
      rp.on_attempt(a);
    };
    for (int attempt = 1;; ++attempt) {
      auto rq = build(spec);
      if (!rq) return std::move(rq).error();
      if (rp.max_elapsed.count() > 0) {
        // The deadline bounds the attempt too: its timeout is what is left.
        const milliseconds left = rp.max_elapsed - elapsed();
        const milliseconds floor{1};
        const milliseconds cut = left < floor ? floor : left;
        if (rq->timeout.count() == 0 || cut < rq->timeout) rq->timeout = cut;
      }
      result<http_response> r = opt_.transport->send(*rq);
      // A silent re-send by the transport: its first send may have been applied.
      if (r && r->resent) earlier = true;
      if (r && r->status >= 200 && r->status < 300) {
        report(attempt, r->status, nullptr, attempt_outcome::succeeded, milliseconds(0));
        return r;
      }
      error e;
      std::optional<milliseconds> hint;
      if (r) {
        e = error_from_response(*r);
        hint = retry_hint(r->headers, now());
      } else {
        e = std::move(r).error();
      }
      scrub_error(e, secrets_for(*rq));  // before the hook, the caller or an exception sees it
      if (e.http_status == 401 && std::holds_alternative<bearer_credential>(cred_)) drop_token();
      e.attempts = attempt;
      const bool this_may_have_applied = may_have_applied(e);
      e.may_have_applied = write && (earlier || this_may_have_applied);
      attempt_outcome outcome = attempt_outcome::retrying;
      milliseconds delay{0};
      if (!(rp.is_retryable ? rp.is_retryable(e) : default_is_retryable(e))) {
        outcome = attempt_outcome::not_retryable;
      } else if (attempt > rp.max_retries) {
        outcome = attempt_outcome::retries_exhausted;
      } else if (!op.idempotent && !rp.retry_non_idempotent && (earlier || this_may_have_applied)) {
        outcome = attempt_outcome::not_idempotent;
      } else {
        backoff_input in;
        in.retry = attempt;
        in.random = draw();
        in.server_hint = hint;
        in.failure = &e;
        delay = backoff_delay(rp.backoff, in);
        if (rp.max_elapsed.count() > 0 && elapsed() + delay >= rp.max_elapsed) {
          outcome = attempt_outcome::deadline_exceeded;
          delay = milliseconds(0);
        }
      }
      report(attempt, e.http_status, &e, outcome, delay);
      if (outcome != attempt_outcome::retrying) return e;
      earlier = earlier || this_may_have_applied;
      if (delay.count() > 0) {
        if (rp.sleep) rp.sleep(delay);
        else std::this_thread::sleep_for(delay);
      }
    }
  }

  /// Scrubs this client's known secrets (key, SAS sig) and secret-looking
  /// patterns from an error made outside execute() (e.g. from the parts of
  /// a $batch response), and caps its texts.
  void scrub(error& e) const { scrub_error(e, secrets_); }

 private:
  double draw() {
    if (opt_.retry.random) return opt_.retry.random();
    struct engine {
      std::mt19937_64 gen{std::random_device{}()};
    };
    return std::uniform_real_distribution<double>(0.0, 1.0)(per_thread<engine>().gen);
  }

  /// The known secrets of this client plus the credential part of the
  /// request's Authorization header (a SharedKey signature or a token).
  std::vector<std::string> secrets_for(const http_request& rq) const {
    std::vector<std::string> s = secrets_;
    if (const std::string* a = rq.headers.find("Authorization")) {
      std::size_t cut = a->rfind(':');
      if (cut == std::string::npos) cut = a->find(' ');
      s.push_back(cut == std::string::npos ? *a : a->substr(cut + 1));
    }
    return s;
  }

  void drop_token() {
    if (signer_) return signer_->drop_token();  // with_retry: the token cache is the signer's
    std::lock_guard<std::mutex> lk(token_mu_);
    token_.reset();
  }

  /// The bearer token: the cached one until its refresh time, else a fresh
  /// one from the provider (one call at a time; other threads wait for it).
  /// The refresh time is `refresh_margin` before expiry, or half-way through
  /// the token's life when it lives shorter than twice the margin. If the
  /// provider fails while the cached token has not expired yet, that token
  /// is used.
  result<std::string> bearer_token() {
    const auto& b = std::get<bearer_credential>(cred_);
    std::lock_guard<std::mutex> lk(token_mu_);
    const auto t = now();
    if (token_ && t < token_refresh_at_) return token_->token;
    auto fresh = b.provider(scope_);
    if (!fresh || fresh->token.empty() || fresh->expires_on <= t) {
      if (token_ && t < token_->expires_on) return token_->token;
      error e = !fresh ? std::move(fresh).error()
                       : error::make(errc::authentication, fresh->token.empty()
                                                               ? "returned an empty token"
                                                               : "returned a token that has already expired");
      e.code = errc::authentication;
      e.http_status = 0;
      e.message = "token provider failed: " + e.message;
      std::vector<std::string> known = secrets_;
      if (token_) known.push_back(token_->token);
      if (fresh) known.push_back(fresh->token);
      scrub_error(e, known);
      return e;
    }
    const auto life = fresh->expires_on - t;
    const auto margin = std::min<std::chrono::system_clock::duration>(b.refresh_margin, life / 2);
    token_refresh_at_ = fresh->expires_on - margin;
    token_ = std::move(*fresh);
    return token_->token;
  }

  endpoint ep_;
  std::string account_;
  credential cred_;
  client_options opt_;
  std::unique_ptr<hmac_sha256> mac_;
  std::string sas_;
  sas_key_range sas_range_;            // spk/srk/epk/erk of a table SAS (checked before sending)
  std::vector<std::string> secrets_;   // account key, SAS sig: scrubbed from every error
  std::string scope_;
  std::string user_agent_;
  std::shared_ptr<client_core> signer_;  // with_retry: the core that signs for this one
  std::mutex token_mu_;
  std::optional<access_token> token_;
  std::chrono::system_clock::time_point token_refresh_at_{};
};

}  // namespace detail
AZTABLES_NAMESPACE_END
