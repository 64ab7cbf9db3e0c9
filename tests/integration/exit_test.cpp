// A client used from a static object's destructor, while the program exits:
// the thread's thread_local objects are already destroyed then, and the SDK's
// per-thread scratch (date cache, signing buffer, JSON parser, batch buffers)
// must not be reached dead (detail/per_thread.hpp).
#include <catch2/catch.hpp>

#include "../support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace az = aztables;

namespace {

/// Writes on its way out: one upsert, one batch of two inserts, one point read
/// and one query, each of which must succeed (else exit status 3..6).
struct writes_at_exit {
  az::table_client table;
  ~writes_at_exit() {
    az::entity e("exit", "upsert");
    e.set("n", std::int64_t{42});
    if (!table.upsert(e)) std::_Exit(3);
    az::batch b(table);
    b.insert(az::entity("exit", "batch-1"));
    b.insert(az::entity("exit", "batch-2"));
    if (!b.submit()) std::_Exit(4);
    auto got = table.get({"exit", "upsert"});
    if (!got || !*got) std::_Exit(5);
    const az::value* n = (*got)->get("n");
    if (!n || !n->as_int64() || *n->as_int64() != 42) std::_Exit(5);
    auto pages = table.query(az::query::row_range("exit"));
    std::size_t rows = 0;
    while (!pages.done()) {
      auto page = pages.next_page();
      if (!page) std::_Exit(6);
      rows += page->items.size();
    }
    if (rows != 3) std::_Exit(6);
  }
};

writes_at_exit& holder(const std::string& table_name) {
  static writes_at_exit h{aztables_test::azurite_service().table(table_name)};
  return h;
}

}  // namespace

TEST_CASE("A client in a static object still works from its destructor at exit", "[azurite][exit]") {
  aztables_test::scoped_table st(aztables_test::azurite_service(), "exit");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child makes one request first, so every per-thread object exists
    // (and is destroyed by exit before the static holder's destructor runs).
    auto first = holder(st.name()).table.get({"exit", "none"});
    if (!first || *first) std::_Exit(2);
    std::exit(0);  // runs thread_local destructors, then ~writes_at_exit
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  auto t = st.client();
  std::size_t rows = 0;
  for (auto& e : t.query(az::query::row_range("exit"))) {
    (void)e;
    ++rows;
  }
  CHECK(rows == 3);
}
