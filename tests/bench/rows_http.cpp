// SPDX-License-Identifier: MIT
// Row 5: per-request overhead against a local server.
//   server: a minimal HTTP/1.1 server in a child process on 127.0.0.1 (port 0),
//           keep-alive, answering every request with the same ~1 KB entity.
//   ours: table_client::get() - signing, the pooled curl handle, header and
//         body capture, JSON parse into an entity.
//   baseline: a raw libcurl loop reusing one easy handle: the same URL and the
//           same request headers as the SDK sends (captured once, set once as a
//           fixed list), body appended to a string, nothing signed or parsed.
//           So the ratio is the SDK's own per-request overhead on top of the
//           transfer it has to make anyway.
#include "harness.hpp"
#include "rows.hpp"
#include "workload.hpp"

#include <aztables/aztables.hpp>

#include <curl/curl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {
namespace {

/// Serves `response` to every request on every connection until `control_fd` closes.
[[noreturn]] void serve(int listen_fd, int control_fd, const std::string& response) {
  struct conn {
    int fd;
    std::string in;
  };
  std::vector<conn> conns;
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({listen_fd, POLLIN, 0});
    fds.push_back({control_fd, POLLIN, 0});
    for (auto& c : conns) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[1].revents) _exit(0);  // parent gone or done
    if (fds[0].revents & POLLIN) {
      int fd = accept(listen_fd, nullptr, nullptr);
      if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conns.push_back({fd, {}});
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      conn& c = conns[i - 2];
      char buf[16384];
      ssize_t n = read(c.fd, buf, sizeof buf);
      if (n <= 0) {
        close(c.fd);
        c.fd = -1;
        continue;
      }
      c.in.append(buf, static_cast<std::size_t>(n));
      for (;;) {
        std::size_t end = c.in.find("\r\n\r\n");
        if (end == std::string::npos) break;
        std::size_t body = 0;
        std::size_t cl = c.in.find("Content-Length:");
        if (cl == std::string::npos) cl = c.in.find("content-length:");
        if (cl != std::string::npos && cl < end) body = std::strtoul(c.in.c_str() + cl + 15, nullptr, 10);
        if (c.in.size() < end + 4 + body) break;
        c.in.erase(0, end + 4 + body);
        std::size_t off = 0;
        while (off < response.size()) {
          ssize_t w = write(c.fd, response.data() + off, response.size() - off);
          if (w <= 0) break;
          off += static_cast<std::size_t>(w);
        }
      }
    }
    std::vector<conn> kept;
    for (auto& c : conns)
      if (c.fd >= 0) kept.push_back(std::move(c));
    conns = std::move(kept);
  }
}

class local_server {
 public:
  explicit local_server(const std::string& response) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0) throw std::runtime_error("socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(lfd, 16) != 0)
      throw std::runtime_error("bind/listen");
    socklen_t len = sizeof a;
    getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    int p[2];
    if (pipe(p) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      close(p[1]);
      serve(lfd, p[0], response);
    }
    close(p[0]);
    close(lfd);
    control_ = p[1];
  }
  ~local_server() {
    close(control_);  // the child exits when it sees this
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  int port() const { return port_; }

 private:
  int port_ = 0;
  pid_t pid_ = -1;
  int control_ = -1;
};

std::size_t append_body(char* p, std::size_t size, std::size_t n, void* ud) {
  static_cast<std::string*>(ud)->append(p, size * n);
  return size * n;
}

/// Passes requests to the curl transport and keeps a copy of the last one.
class recording_transport final : public aztables::transport {
 public:
  aztables::result<aztables::http_response> send(const aztables::http_request& rq) override {
    last = rq;
    return inner_->send(rq);
  }
  aztables::http_request last;

 private:
  std::shared_ptr<aztables::transport> inner_ = aztables::make_curl_transport();
};

struct raw_curl {
  CURL* h = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  raw_curl(const std::string& url, const aztables::http_headers& hs) {
    for (const auto& x : hs) headers = curl_slist_append(headers, (x.name + ": " + x.value).c_str());
    h = curl_easy_init();
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &append_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  }
  ~raw_curl() {
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
  }
  void get() {
    body.clear();
    if (curl_easy_perform(h) != CURLE_OK) throw std::runtime_error("raw curl: request failed");
  }
};

}  // namespace

void rows_http(context& ctx) {
  row r;
  r.id = "5";
  r.title = "point get, local keep-alive server";
  r.ours = "table_client::get(): sign, pooled curl handle, headers, JSON into an entity";
  r.baseline = "raw libcurl loop, one easy handle, same URL and request headers set once, body unparsed";
  r.unit = "req";
  r.target = 0.8;
  r.target_text = ">= 0.80x";
  if (!ctx.wants(r.id)) return;
  const order o = make_order(1);
  const std::string body = make_entity_body(o);
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json;odata=minimalmetadata\r\n"
      "x-ms-request-id: 5a90b05a-6bb6-4660-add4-f31f7cc6b4dc\r\nx-ms-version: 2019-02-02\r\n"
      "Date: Sat, 21 Nov 2026 13:26:15 GMT\r\nETag: " +
      o.etag.str() + "\r\nConnection: keep-alive\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
      body;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  local_server server(response);
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(server.port()) + "/devstoreaccount1";
  const std::string cs = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" +
                         std::string(aztables::development_account_key) + ";TableEndpoint=" + endpoint;
  auto client = std::make_shared<aztables::table_client>(aztables::table_client::from_connection_string(cs, "orders").value());
  const aztables::entity_key key{o.customer, o.id};
  aztables::http_request sent;
  {
    // Once through a recording transport: check the answer, capture the request.
    auto rec = std::make_shared<recording_transport>();
    aztables::client_options opt;
    opt.transport = rec;
    auto probe = aztables::table_client::from_connection_string(cs, "orders", opt).value();
    auto got = probe.get(key).value();
    if (!got || got->row_key != o.id) throw std::runtime_error("row 5: the SDK did not read the canned entity");
    sent = rec->last;
  }
  auto raw = std::make_shared<raw_curl>(sent.url, sent.headers);
  raw->get();
  if (raw->body != body) throw std::runtime_error("row 5: raw curl got another body");
  auto ours = loop_wall([client, key] {
    auto e = client->get(key);
    if (!e || !*e) throw std::runtime_error("row 5: get failed");
    keep(*e);
  });
  auto base = loop_wall([raw] {
    raw->get();
    keep(raw->body);
  });
  ctx.add(r, compare(ctx.s, ours, base, r.id));
}

}  // namespace bench
