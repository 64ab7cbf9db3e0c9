// Catch2's main for the test programs. A local test server writing to a socket
// the client already closed (TLS refusal tests) must not kill the whole test
// process with SIGPIPE: ignore it, as servers do.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>

int main(int argc, char* argv[]) {
  std::signal(SIGPIPE, SIG_IGN);
  return Catch::Session().run(argc, argv);
}
