// Starts and controls tests/fault/fault_proxy.js (a seeded fault-injecting
// proxy in front of Azurite) for the retry integration tests. POSIX only.
#pragma once

#include <aztables/aztables.hpp>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace aztables_test {

/// The proxy script: $AZTABLES_FAULT_PROXY_SCRIPT, else tests/fault/fault_proxy.js
/// found from this header's own path.
inline std::string fault_proxy_script() {
  if (const char* s = std::getenv("AZTABLES_FAULT_PROXY_SCRIPT")) return s;
  std::string here = __FILE__;  // .../tests/support/fault_proxy.hpp
  auto cut = here.rfind("/support/");
  if (cut == std::string::npos) throw std::runtime_error("cannot locate fault_proxy.js; set AZTABLES_FAULT_PROXY_SCRIPT");
  return here.substr(0, cut) + "/fault/fault_proxy.js";
}

/// One running proxy process; stopped (SIGTERM to its pid) when destroyed.
class fault_proxy {
 public:
  /// `target`: "http://127.0.0.1:PORT" of Azurite. `extra`: more arguments
  /// (--rate, --stall-ms, --weights, --log).
  fault_proxy(const std::string& target, unsigned seed, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"node", fault_proxy_script(), "--target", target, "--seed", std::to_string(seed)};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    const int rc = posix_spawnp(&pid_, "node", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      throw std::runtime_error("could not start node for the fault proxy");
    }
    // Wait (bounded) for "listening <port>\n".
    std::string line;
    pollfd p{fds[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos) {
      if (poll(&p, 1, 15000) <= 0) break;
      char buf[256];
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    if (line.rfind("listening ", 0) != 0) {
      stop();
      throw std::runtime_error("fault proxy did not start: '" + line + "'");
    }
    port_ = std::stoi(line.substr(10));
  }
  ~fault_proxy() { stop(); }
  fault_proxy(const fault_proxy&) = delete;
  fault_proxy& operator=(const fault_proxy&) = delete;

  int port() const { return port_; }
  /// The table endpoint through the proxy.
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_) + "/devstoreaccount1"; }

  /// Changes the fault rate (0: a plain proxy).
  void set_rate(double rate) { control("/__proxy/rate?value=" + std::to_string(rate)); }

  /// The proxy's counters: "requests", "forwarded", "faults" and one per fault kind.
  std::map<std::string, long> stats() {
    std::string body = control("/__proxy/stats");
    std::map<std::string, long> out;
    // Flat scan of "name":number pairs (the JSON is ours and simple).
    std::size_t p = 0;
    while ((p = body.find('"', p)) != std::string::npos) {
      std::size_t q = body.find('"', p + 1);
      if (q == std::string::npos) break;
      std::string name = body.substr(p + 1, q - p - 1);
      p = q + 1;
      if (p < body.size() && body[p] == ':' && p + 1 < body.size() && (body[p + 1] == '-' || (body[p + 1] >= '0' && body[p + 1] <= '9')))
        out[name] = std::strtol(body.c_str() + p + 1, nullptr, 10);
    }
    return out;
  }

 private:
  std::string control(const std::string& path) {
    auto t = aztables::make_curl_transport();
    aztables::http_request rq;
    rq.method = "GET";
    rq.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    rq.timeout = std::chrono::milliseconds(5000);
    auto r = t->send(rq);
    if (!r) throw std::runtime_error("fault proxy control failed: " + r.error().to_string());
    return r->body;
  }
  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st = 0;
      waitpid(pid_, &st, 0);
      pid_ = -1;
    }
  }
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace aztables_test
