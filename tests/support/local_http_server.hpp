// A tiny threaded HTTP/1.1 (and optionally HTTPS) server for tests, on
// 127.0.0.1 and a port the kernel picks. It records every request and answers
// from a queue of canned responses, a handler, or raw bytes (for malformed
// replies). Keep-alive connections are served until the client closes them.
//
//   aztables_test::local_http_server srv;           // listening now
//   srv.push({200, {{"Content-Type", "application/json"}}, R"({"value":[]})"});
//   auto url = srv.url("/devstoreaccount1");          // http://127.0.0.1:PORT/devstoreaccount1
//   ... run the client ...
//   auto reqs = srv.requests();                       // what arrived
//
// HTTPS: pass a certificate and key file (PEM); see make_self_signed_cert().
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace aztables_test {

/// One request as it arrived.
struct recorded_request {
  std::string method;
  std::string target;  ///< path and query as sent ("/acct/Tables?sig=...")
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// First header of that name (any case); empty if absent.
  std::string header(const std::string& name) const {
    for (const auto& h : headers)
      if (iequal(h.first, name)) return h.second;
    return {};
  }
  bool has_header(const std::string& name) const {
    for (const auto& h : headers)
      if (iequal(h.first, name)) return true;
    return false;
  }
  static bool iequal(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
  }
};

/// A reply. With `raw` set, exactly those bytes are written (nothing else);
/// otherwise a status line, the headers, Content-Length and the body.
struct canned_response {
  canned_response() = default;
  canned_response(int status_code, std::vector<std::pair<std::string, std::string>> hdrs = {}, std::string b = {})
      : status(status_code), headers(std::move(hdrs)), body(std::move(b)) {}
  /// Exactly these bytes, then (by default) close the connection.
  static canned_response raw_bytes(std::string bytes, bool close = true) {
    canned_response r;
    r.raw = std::move(bytes);
    r.close_after = close;
    return r;
  }

  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string raw;
  bool close_after = false;  ///< close the connection after this reply
};

class local_http_server {
 public:
  using handler = std::function<canned_response(const recorded_request&)>;

  /// Starts listening on 127.0.0.1:0. With `cert_file`/`key_file` (PEM) it
  /// speaks TLS.
  explicit local_http_server(const std::string& cert_file = {}, const std::string& key_file = {}) {
    if (!cert_file.empty()) {
      ctx_ = SSL_CTX_new(TLS_server_method());
      if (!ctx_ || SSL_CTX_use_certificate_chain_file(ctx_, cert_file.c_str()) != 1 ||
          SSL_CTX_use_PrivateKey_file(ctx_, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
        throw std::runtime_error("local_http_server: cannot load the TLS certificate/key");
    }
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error("local_http_server: socket failed");
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0)
      throw std::runtime_error("local_http_server: bind/listen failed");
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~local_http_server() { stop(); }
  local_http_server(const local_http_server&) = delete;
  local_http_server& operator=(const local_http_server&) = delete;

  int port() const { return port_; }
  /// "http(s)://127.0.0.1:PORT" + path.
  std::string url(const std::string& path = {}) const {
    return std::string(ctx_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
  }

  /// Queues a reply (used in order; then the handler, then 200 "{}").
  void push(canned_response r) {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(r));
  }
  /// Answers every request not served by the queue.
  void set_handler(handler h) {
    std::lock_guard<std::mutex> lk(mu_);
    handler_ = std::move(h);
  }

  std::vector<recorded_request> requests() const {
    std::lock_guard<std::mutex> lk(mu_);
    return requests_;
  }
  std::size_t request_count() const {
    std::lock_guard<std::mutex> lk(mu_);
    return requests_.size();
  }
  /// TLS handshakes that failed (e.g. the client refused our certificate).
  int failed_handshakes() const { return failed_handshakes_.load(); }

  /// Stops accepting, closes every connection and joins the threads.
  void stop() {
    if (stopped_.exchange(true)) return;
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    if (acceptor_.joinable()) acceptor_.join();
    ::close(listen_fd_);
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
    if (ctx_) SSL_CTX_free(ctx_);
    ctx_ = nullptr;
  }

 private:
  struct connection {
    int fd = -1;
    SSL* ssl = nullptr;
    std::string buffer;  // bytes read but not consumed
    long read(char* p, std::size_t n) {
      if (ssl) {
        int r = SSL_read(ssl, p, static_cast<int>(n));
        return r > 0 ? r : -1;
      }
      ssize_t r = ::recv(fd, p, n, 0);
      return r > 0 ? static_cast<long>(r) : -1;
    }
    bool write_all(const std::string& s) {
      std::size_t off = 0;
      while (off < s.size()) {
        long w;
        if (ssl) {
          int r = SSL_write(ssl, s.data() + off, static_cast<int>(s.size() - off));
          w = r > 0 ? r : -1;
        } else {
          ssize_t r = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
          w = r > 0 ? static_cast<long>(r) : -1;
        }
        if (w < 0) return false;
        off += static_cast<std::size_t>(w);
      }
      return true;
    }
    // Reads until `buffer` holds at least n bytes (false on EOF/error).
    bool fill(std::size_t n) {
      char tmp[16384];
      while (buffer.size() < n) {
        long r = read(tmp, sizeof tmp);
        if (r <= 0) return false;
        buffer.append(tmp, static_cast<std::size_t>(r));
      }
      return true;
    }
    // Reads until the header terminator; returns its end offset, or npos.
    std::size_t fill_headers() {
      char tmp[16384];
      while (true) {
        std::size_t p = buffer.find("\r\n\r\n");
        if (p != std::string::npos) return p + 4;
        if (buffer.size() > (1u << 20)) return std::string::npos;
        long r = read(tmp, sizeof tmp);
        if (r <= 0) return std::string::npos;
        buffer.append(tmp, static_cast<std::size_t>(r));
      }
    }
  };

  void accept_loop() {
    while (!stopped_) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopped_ || (errno != EINTR && errno != ECONNABORTED)) return;
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard<std::mutex> lk(mu_);
      if (stopped_) {
        ::close(fd);
        return;
      }
      open_fds_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Writes to a socket the client already closed must fail with EPIPE, not
  // kill the test process: OpenSSL writes with write(), which raises SIGPIPE.
  // Blocking it in the server's own threads leaves the process alone.
  static void block_sigpipe() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }

  void serve(int fd) {
    block_sigpipe();
    connection c;
    c.fd = fd;
    bool ok = true;
    if (ctx_) {
      c.ssl = SSL_new(ctx_);
      SSL_set_fd(c.ssl, fd);
      if (SSL_accept(c.ssl) != 1) {
        ++failed_handshakes_;
        ERR_clear_error();
        ok = false;
      }
    }
    while (ok && !stopped_) {
      std::size_t head_end = c.fill_headers();
      if (head_end == std::string::npos) break;
      recorded_request rq;
      std::string head = c.buffer.substr(0, head_end - 4);
      c.buffer.erase(0, head_end);
      std::size_t line_end = head.find("\r\n");
      std::string line = head.substr(0, line_end);
      std::size_t s1 = line.find(' '), s2 = line.rfind(' ');
      if (s1 == std::string::npos || s2 == s1) break;
      rq.method = line.substr(0, s1);
      rq.target = line.substr(s1 + 1, s2 - s1 - 1);
      std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
      while (pos < head.size()) {
        std::size_t e = head.find("\r\n", pos);
        if (e == std::string::npos) e = head.size();
        std::string h = head.substr(pos, e - pos);
        pos = e + 2;
        std::size_t colon = h.find(':');
        if (colon == std::string::npos) continue;
        std::string v = h.substr(colon + 1);
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(0, 1);
        rq.headers.emplace_back(h.substr(0, colon), v);
      }
      std::size_t length = 0;
      if (rq.has_header("Content-Length")) length = std::strtoul(rq.header("Content-Length").c_str(), nullptr, 10);
      if (length > 0) {
        if (!c.fill(length)) break;
        rq.body = c.buffer.substr(0, length);
        c.buffer.erase(0, length);
      }
      canned_response resp = respond(rq);
      std::string out;
      if (!resp.raw.empty()) {
        out = resp.raw;
      } else {
        out = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason(resp.status) + "\r\n";
        bool has_length = false;
        for (const auto& h : resp.headers) {
          out += h.first + ": " + h.second + "\r\n";
          if (recorded_request::iequal(h.first, "Content-Length") ||
              recorded_request::iequal(h.first, "Transfer-Encoding"))
            has_length = true;
        }
        if (!has_length) out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
        if (resp.close_after) out += "Connection: close\r\n";
        out += "\r\n";
        out += resp.body;
      }
      if (!c.write_all(out) || resp.close_after) break;
    }
    if (c.ssl) {
      SSL_shutdown(c.ssl);
      SSL_free(c.ssl);
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (auto it = open_fds_.begin(); it != open_fds_.end(); ++it)
        if (*it == fd) {
          open_fds_.erase(it);
          break;
        }
    }
    ::close(fd);
  }

  canned_response respond(const recorded_request& rq) {
    handler h;
    {
      std::lock_guard<std::mutex> lk(mu_);
      requests_.push_back(rq);
      if (!queue_.empty()) {
        canned_response r = std::move(queue_.front());
        queue_.pop_front();
        return r;
      }
      h = handler_;
    }
    if (h) return h(rq);
    return canned_response{200, {{"Content-Type", "application/json"}}, "{}"};
  }

  static const char* reason(int status) {
    switch (status) {
      case 200: return "OK";
      case 201: return "Created";
      case 202: return "Accepted";
      case 204: return "No Content";
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 409: return "Conflict";
      case 412: return "Precondition Failed";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 503: return "Service Unavailable";
      default: return "Status";
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  SSL_CTX* ctx_ = nullptr;
  std::atomic<bool> stopped_{false};
  std::atomic<int> failed_handshakes_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
  std::deque<canned_response> queue_;
  handler handler_;
  std::vector<recorded_request> requests_;
};

/// Files of a self-signed certificate for 127.0.0.1 made by the openssl CLI.
/// A self-signed certificate and key in a private temporary directory,
/// removed with the object.
struct self_signed_cert {
  std::string dir, cert_file, key_file;
  bool ok = false;
  self_signed_cert() = default;
  self_signed_cert(self_signed_cert&& o) noexcept
      : dir(std::exchange(o.dir, {})), cert_file(std::move(o.cert_file)), key_file(std::move(o.key_file)), ok(o.ok) {}
  self_signed_cert(const self_signed_cert&) = delete;
  self_signed_cert& operator=(const self_signed_cert&) = delete;
  self_signed_cert& operator=(self_signed_cert&&) = delete;
  ~self_signed_cert() {
    if (dir.empty()) return;
    std::remove(cert_file.c_str());
    std::remove(key_file.c_str());
    ::rmdir(dir.c_str());
  }
};

/// Makes a fresh self-signed certificate (CN and subjectAltName 127.0.0.1)
/// with the openssl command-line tool, in a new directory under $TMPDIR
/// (default /tmp) whose name starts with `prefix`.
inline self_signed_cert make_self_signed_cert(const std::string& prefix) {
  self_signed_cert c;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(pattern.data())) return c;
  c.dir = pattern;
  c.cert_file = c.dir + "/cert.pem";
  c.key_file = c.dir + "/key.pem";
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=127.0.0.1' "
                    "-addext 'subjectAltName=IP:127.0.0.1' -keyout '" + c.key_file + "' -out '" + c.cert_file +
                    "' >/dev/null 2>&1";
  c.ok = std::system(cmd.c_str()) == 0;
  return c;
}

}  // namespace aztables_test
