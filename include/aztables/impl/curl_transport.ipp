// SPDX-License-Identifier: MIT
// Definitions of the libcurl transport (inline in header-only mode, compiled
// once by <aztables/src.hpp> in separate-compilation mode).
#pragma once

#include <aztables/transport.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

struct curl_easy_deleter {
  void operator()(CURL* h) const noexcept { curl_easy_cleanup(h); }
};
using curl_easy_ptr = std::unique_ptr<CURL, curl_easy_deleter>;

/// A request's header lines as a curl_slist whose nodes and text live in
/// buffers kept with the pooled handle and reused by its next request, instead
/// of curl_slist_append's two allocations per line and the frees after (18-20
/// malloc/free pairs per request, each a likely cache miss between requests).
/// libcurl only reads the list during the transfer (CURLOPT_HTTPHEADER is set
/// back to null right after), and curl_slist is its public two-field node.
class header_lines {
 public:
  void clear() {
    text_.clear();
    starts_.clear();
  }
  /// Starts a line; the caller appends its text to text().
  std::string& next_line() {
    if (!starts_.empty()) text_ += '\0';
    starts_.push_back(text_.size());
    return text_;
  }
  void add(std::string_view line) { next_line().append(line.data(), line.size()); }
  /// The list, valid until the next clear() or change.
  curl_slist* list() {
    text_ += '\0';
    nodes_.resize(starts_.size());
    for (std::size_t i = 0; i < starts_.size(); ++i) {
      nodes_[i].data = &text_[starts_[i]];
      nodes_[i].next = i + 1 < starts_.size() ? &nodes_[i + 1] : nullptr;
    }
    return nodes_.empty() ? nullptr : nodes_.data();
  }

 private:
  std::string text_;
  std::vector<std::size_t> starts_;
  std::vector<curl_slist> nodes_;
};

/// A pooled connection: the easy handle and its reusable header buffers.
struct pooled_easy {
  curl_easy_ptr handle;
  header_lines headers;
};

inline void curl_global_once() {
  static const bool initialized = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)initialized;
}

inline transport_failure classify_curl(CURLcode c) noexcept {
  switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return transport_failure::resolve;
    case CURLE_COULDNT_CONNECT: return transport_failure::connect;
    case CURLE_OPERATION_TIMEDOUT: return transport_failure::timeout;
    case CURLE_SEND_ERROR: return transport_failure::send;
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING: return transport_failure::receive;
    case CURLE_PARTIAL_FILE: return transport_failure::truncated;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS: return transport_failure::tls;
    default: return transport_failure::other;
  }
}

// Why a pool of easy handles rather than one curl multi handle: every call in
// this SDK is synchronous from the caller's point of view, so a handle taken
// from a mutex-guarded free list and given back afterwards costs one lock,
// keeps that handle's live connection (curl_easy_reset keeps it) and lets any
// number of threads send at once. Concurrency is bounded by the callers (the
// bulk writer's worker count), not here.
class curl_transport final : public transport {
 public:
  /// Spare bytes kept after a response body: the JSON parser's padding
  /// (simdjson::SIMDJSON_PADDING), so bodies are parsed in place.
  static constexpr std::size_t body_padding = 64;

  explicit curl_transport(curl_transport_options o) : opt_(std::move(o)) { curl_global_once(); }

  result<http_response> send(const http_request& rq) override {
    if (auto bad = check_request(rq)) return std::move(*bad);
    std::unique_ptr<pooled_easy> h = acquire();
    if (!h) return error::make(errc::transport, "could not create a curl handle");
    result<http_response> r = perform(*h, rq);
    release(std::move(h));
    return r;
  }

 private:
  struct receive_state {
    http_response* resp;
    std::size_t cap;
    CURL* handle = nullptr;
    bool too_large = false;
    std::size_t header_bytes = 0;  // headers count against the cap too
    int sends = 0;  // how often curl was about to send the request (see on_prereq)
  };

  // Called each time curl is about to send the request on a connection. More
  // than once in one transfer: curl re-sent it after a reused connection died
  // without an answer (it does so for every method, POST included), so the
  // first send may have been applied.
  static int on_prereq(void* ud, char*, char*, int, int) {
    ++static_cast<receive_state*>(ud)->sends;
    return CURL_PREREQFUNC_OK;
  }

  static std::size_t on_body(char* p, std::size_t size, std::size_t n, void* ud) {
    auto* st = static_cast<receive_state*>(ud);
    std::size_t len = size * n;
    if (st->header_bytes + st->resp->body.size() + len > st->cap) {
      st->too_large = true;
      return 0;  // aborts the transfer with CURLE_WRITE_ERROR
    }
    std::string& body = st->resp->body;
    if (body.empty()) {
      // One buffer for the whole body, with room for the JSON parser's
      // padding after it, so the body is parsed where it lands
      // (detail::padded_view) instead of being copied first.
      curl_off_t announced = -1;
      curl_easy_getinfo(st->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
      const std::size_t expect = announced > 0 && static_cast<std::uint64_t>(announced) <= st->cap
                                     ? static_cast<std::size_t>(announced)
                                     : len;
      body.reserve(expect + body_padding);
    } else if (body.capacity() < body.size() + len + body_padding) {
      body.reserve(std::max(2 * body.capacity(), body.size() + len + body_padding));
    }
    body.append(p, len);
    return len;
  }

  static std::size_t on_header(char* p, std::size_t size, std::size_t n, void* ud) {
    auto* st = static_cast<receive_state*>(ud);
    std::size_t len = size * n;
    st->header_bytes += len;
    if (st->header_bytes > st->cap) {
      st->too_large = true;
      return 0;  // aborts the transfer
    }
    std::string_view line(p, len);
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
    if (line.rfind("HTTP/", 0) == 0) {
      st->resp->headers.clear();  // a new status line (after 100 Continue or a redirect)
      return len;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return len;
    std::string_view name = line.substr(0, colon), value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    st->resp->headers.add(std::string(name), std::string(value));
    return len;
  }

  /// The options that are the same for every request, set once when a
  /// handle is made (they stay: handles are not reset between requests).
  void configure(CURL* h) const {
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &curl_transport::on_body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &curl_transport::on_header);
    curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, &curl_transport::on_prereq);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, opt_.verify_tls ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, opt_.verify_tls ? 2L : 0L);
    if (!opt_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, opt_.ca_file.c_str());
    if (!opt_.ca_path.empty()) curl_easy_setopt(h, CURLOPT_CAPATH, opt_.ca_path.c_str());
    // Fail at once when Content-Length announces more than the cap.
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(opt_.max_response_bytes));
  }

  // Why no curl_easy_reset per request: it clears every option, so each
  // request would set the constant ones again (measured: a visible share of
  // the per-request cost). Instead every option a request may change is set
  // on every request, to its value or back to the default.
  result<http_response> perform(pooled_easy& conn, const http_request& rq) {
    CURL* h = conn.handle.get();
    http_response resp;
    resp.headers.reserve(16);
    receive_state st{&resp, opt_.max_response_bytes};
    st.handle = h;
    char errbuf[CURL_ERROR_SIZE] = {0};

    header_lines& lines = conn.headers;
    lines.clear();
    for (const auto& x : rq.headers) {
      std::string& line = lines.next_line();
      line += x.name;
      if (x.value.empty()) {
        line += ';';  // curl's syntax for an empty header
      } else {
        line += ": ";
        line += x.value;
      }
    }
    lines.add("Expect:");  // no 100-continue round trip
    if (!rq.headers.find("Content-Type")) lines.add("Content-Type:");  // curl would add a form type

    curl_easy_setopt(h, CURLOPT_URL, rq.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, lines.list());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &st);
    curl_easy_setopt(h, CURLOPT_PREREQDATA, &st);
    auto connect_ms = rq.connect_timeout.count() > 0 ? rq.connect_timeout : opt_.connect_timeout;
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_ms.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(rq.timeout.count() > 0 ? rq.timeout.count() : 0));

    // The method: first back to a plain GET with no body and no custom verb.
    curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, static_cast<const char*>(nullptr));
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (rq.method == "GET") {
      // as set above
    } else if (rq.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (rq.body.empty() && rq.method == "DELETE") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else {
      // The whole body is handed over as one buffer: curl sends headers and a
      // body of up to 64 KiB in one write.
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(rq.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq.body.data());
      if (rq.method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq.method.c_str());
    }

    CURLcode rc = curl_easy_perform(h);
    // No pointer into this call's stack or request stays in the pooled handle.
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(nullptr));
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, static_cast<char*>(nullptr));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, static_cast<const char*>(nullptr));
    if (rc != CURLE_OK) {
      error e;
      if (st.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        e.code = errc::invalid_response;
        e.message = "response exceeds the configured maximum of " + std::to_string(opt_.max_response_bytes) +
                    " bytes (client_options::max_response_bytes)";
        return e;
      }
      if (rc == CURLE_WEIRD_SERVER_REPLY || rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_BAD_CONTENT_ENCODING) {
        // The server answered, but not with HTTP we can read: not a network fault.
        e.code = errc::invalid_response;
        e.message = "malformed HTTP response: " + (errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc)));
        return e;
      }
      e.code = errc::transport;
      e.failure = classify_curl(rc);
      e.message = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
      return e;
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    resp.status = static_cast<int>(status);
    resp.resent = st.sends > 1;
    return resp;
  }

  // curl puts header lines and the method on the wire verbatim: a CR or LF
  // in them would split the request (header injection). Refused up front.
  static std::optional<error> check_request(const http_request& rq) {
    auto token = [](std::string_view s) {
      if (s.empty()) return false;
      for (char c : s)
        if (c <= ' ' || c == ':' || c == 0x7f) return false;
      return true;
    };
    // No early exit: a plain loop the compiler can vectorise.
    auto has_line_break = [](std::string_view s) {
      bool bad = false;
      for (char c : s) bad |= (c == '\r') | (c == '\n') | (c == '\0');
      return bad;
    };
    if (!token(rq.method)) return error::invalid_argument("HTTP method", "must be a token (no spaces or control characters)");
    for (const auto& x : rq.headers) {
      if (!token(x.name))
        return error::invalid_argument("HTTP header name", "must be a token (no spaces, ':' or control characters)");
      if (has_line_break(x.value))
        return error::invalid_argument("HTTP header '" + x.name + "'", "contains CR, LF or NUL");
    }
    return std::nullopt;
  }

  std::unique_ptr<pooled_easy> acquire() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<pooled_easy> h = std::move(idle_.back());
        idle_.pop_back();
        return h;
      }
    }
    curl_easy_ptr h(curl_easy_init());
    if (!h) return nullptr;
    configure(h.get());
    auto conn = std::make_unique<pooled_easy>();
    conn->handle = std::move(h);
    return conn;
  }
  void release(std::unique_ptr<pooled_easy> h) {
    std::lock_guard<std::mutex> lk(mu_);
    if (idle_.size() < opt_.max_idle_connections) idle_.push_back(std::move(h));
  }

  curl_transport_options opt_;
  std::mutex mu_;
  std::vector<std::unique_ptr<pooled_easy>> idle_;
};

}  // namespace detail

AZTABLES_DECL std::shared_ptr<transport> make_curl_transport(const curl_transport_options& options) {
  return std::make_shared<detail::curl_transport>(options);
}

AZTABLES_NAMESPACE_END
