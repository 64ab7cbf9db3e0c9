// aztables: a command-line tool over the SDK (built as the `aztables` binary).
//
//   aztables [--connection-string CS] COMMAND ...
//
// The connection comes from --connection-string or AZTABLES_CONNECTION_STRING
// ("UseDevelopmentStorage=true" reaches a local Azurite). Entities travel as
// JSON lines in the service's own form, with `Name@odata.type` annotations
// (Int64 as a string), so what `query` prints can be fed back to `put`.
// Errors go to stderr with the service's code; the exit status is 0 on
// success, 1 when an operation failed, 2 for a usage error. Run
// `aztables help` for the commands.
#include <aztables/aztables.hpp>
#include <aztables/detail/codec.hpp>
#include <aztables/detail/json_reader.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

const char* const usage_text = R"(usage: aztables [--connection-string CS] COMMAND [ARGS]

Connection: --connection-string CS, or the AZTABLES_CONNECTION_STRING environment
variable ("UseDevelopmentStorage=true" for a local Azurite).

Tables:
  tables list [--prefix P]           table names, one a line
  tables create NAME                 create a table (fails if it exists)
  tables delete NAME                 delete a table and everything in it

Entities (JSON lines in the service's form, `Name@odata.type` annotations):
  put TABLE [--mode M]               write the entities on stdin, one JSON object a line;
                                     M: insert (default; fails if it exists), upsert-merge,
                                     upsert-replace, merge, replace (merge/replace update an
                                     existing entity, If-Match: the line's odata.etag or *)
  get TABLE PK RK [--select a,b]     print one entity
  delete TABLE PK RK [--etag E]      delete one entity (If-Match: E, default *)
  query TABLE [--pk P] [--rk-from A] [--rk-to B] [--rk-prefix X]
              [--filter F] [--select a,b] [--top N]
                                     print matching entities, one a line (--rk-from and
                                     --rk-to are inclusive; --filter is raw OData text)
  batch TABLE                        one atomic entity group transaction from stdin lines
                                     {"action":A,"entity":{...}}; A: insert, upsert-merge,
                                     upsert-replace, merge, replace, delete (If-Match: the
                                     entity's odata.etag or *); prints one result a line
  import TABLE [--mode M] [--concurrency N] [--quiet]
                                     bulk-load stdin lines (not atomic; batches of up to
                                     100 per partition); M: insert, upsert-merge (default),
                                     upsert-replace; progress bar on stderr

Shared access signatures (need an AccountKey in the connection):
  sas table NAME --permissions raud --expires WHEN [--start WHEN] [--ip A[-B]]
            [--pk-from P --pk-to P] [--rk-from R --rk-to R] [--policy ID] [--http]
  sas account --permissions rwdlacu --resource-types sco --expires WHEN [--start WHEN]
            [--ip A[-B]] [--http]
                                     WHEN: an ISO 8601 UTC time or +30m, +12h, +7d from now
                                     --http also allows plain http (emulators)

  help | --help                      this text
  version | --version                the SDK version
)";

// ---- arguments -------------------------------------------------------------

struct args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--name" -> value ("" for flags)

  bool has(const std::string& name) const { return options.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const {
    auto it = options.find(name);
    if (it == options.end()) return std::nullopt;
    return it->second;
  }
};

struct usage_error {
  std::string message;
};

const std::vector<std::string> flag_options = {"--quiet", "--http", "--help"};

args parse_args(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
      std::string name = s, value;
      const auto eq = s.find('=');
      if (eq != std::string::npos) {
        name = s.substr(0, eq);
        value = s.substr(eq + 1);
      } else if (std::find(flag_options.begin(), flag_options.end(), s) == flag_options.end()) {
        if (i + 1 >= argc) throw usage_error{s + " needs a value"};
        value = argv[++i];
      }
      if (a.options.count(name)) throw usage_error{name + " given twice"};
      a.options[name] = value;
    } else {
      a.positional.push_back(std::move(s));
    }
  }
  return a;
}

// Refuses options a command does not know (a typo must not be ignored).
void allow_only(const args& a, std::initializer_list<const char*> allowed) {
  for (const auto& [name, value] : a.options) {
    if (name == "--connection-string") continue;
    bool ok = false;
    for (const char* x : allowed) ok = ok || name == x;
    if (!ok) throw usage_error{"unknown option " + name + " for this command"};
  }
}

void need_positional(const args& a, std::size_t n, const char* what) {
  if (a.positional.size() != n) throw usage_error{std::string("expected: ") + what};
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// ---- output ----------------------------------------------------------------

void print_line(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

int fail(std::string_view command, const aztables::error& e, const std::string& where = {}) {
  std::string msg = "aztables " + std::string(command) + ": ";
  if (!where.empty()) msg += where + ": ";
  msg += e.to_string();
  std::fprintf(stderr, "%s\n", msg.c_str());
  return exit_failed;
}

int print_entity(std::string_view command, const aztables::entity& e) {
  auto json = aztables::to_json(e);
  if (!json) return fail(command, json.error(), "entity " + e.partition_key + "/" + e.row_key);
  print_line(*json);
  return exit_ok;
}

// ---- input -----------------------------------------------------------------

// Reads stdin JSON lines (blank lines skipped), calling f(line_number, text).
template <class F>
int for_each_input_line(F&& f) {
  std::string line;
  std::size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (int rc = f(number, line); rc != exit_ok) return rc;
  }
  return exit_ok;
}

enum class write_mode { insert, upsert_merge, upsert_replace, merge, replace, erase };

std::optional<write_mode> parse_mode(std::string_view s, bool allow_delete) {
  if (s == "insert") return write_mode::insert;
  if (s == "upsert-merge") return write_mode::upsert_merge;
  if (s == "upsert-replace") return write_mode::upsert_replace;
  if (s == "merge") return write_mode::merge;
  if (s == "replace") return write_mode::replace;
  if (allow_delete && s == "delete") return write_mode::erase;
  return std::nullopt;
}

// ---- commands --------------------------------------------------------------

int cmd_tables(aztables::service_client& svc, const args& a) {
  if (a.positional.size() < 2) throw usage_error{"expected: tables list|create|delete ..."};
  const std::string& sub = a.positional[1];
  if (sub == "list") {
    allow_only(a, {"--prefix"});
    need_positional(a, 2, "tables list [--prefix P]");
    auto names = svc.list_tables(a.get("--prefix").value_or(""));
    if (!names) return fail("tables list", names.error());
    for (const auto& n : *names) print_line(n);
    return exit_ok;
  }
  if (sub == "create" || sub == "delete") {
    allow_only(a, {});
    need_positional(a, 3, "tables create|delete NAME");
    auto r = sub == "create" ? svc.create_table(a.positional[2]) : svc.delete_table(a.positional[2]);
    if (!r) return fail("tables " + sub, r.error(), a.positional[2]);
    return exit_ok;
  }
  throw usage_error{"unknown tables subcommand '" + sub + "'"};
}

int cmd_put(aztables::table_client& table, const args& a) {
  allow_only(a, {"--mode"});
  need_positional(a, 2, "put TABLE [--mode M] < entities.jsonl");
  auto mode = parse_mode(a.get("--mode").value_or("insert"), false);
  if (!mode) throw usage_error{"--mode must be insert, upsert-merge, upsert-replace, merge or replace"};
  std::size_t written = 0;
  int rc = for_each_input_line([&](std::size_t n, const std::string& line) {
    auto e = aztables::from_json(line);
    if (!e) return fail("put", e.error(), "line " + std::to_string(n));
    aztables::result<aztables::write_result> r = aztables::error();
    switch (*mode) {
      case write_mode::insert: r = table.insert(*e); break;
      case write_mode::upsert_merge: r = table.upsert(*e, aztables::update_mode::merge); break;
      case write_mode::upsert_replace: r = table.upsert(*e, aztables::update_mode::replace); break;
      case write_mode::merge:
      case write_mode::replace:
        if (e->etag.empty()) e->etag = aztables::etag::any();
        r = table.update(*e, *mode == write_mode::merge ? aztables::update_mode::merge : aztables::update_mode::replace);
        break;
      case write_mode::erase: break;
    }
    if (!r)
      return fail("put", r.error(), "line " + std::to_string(n) + " (" + std::to_string(written) +
                                        (written == 1 ? " entity" : " entities") + " written before it)");
    ++written;
    return exit_ok;
  });
  std::fprintf(stderr, "aztables put: %zu %s written\n", written, written == 1 ? "entity" : "entities");
  return rc;
}

int cmd_get(aztables::table_client& table, const args& a) {
  allow_only(a, {"--select"});
  need_positional(a, 4, "get TABLE PK RK [--select a,b]");
  aztables::select_list select;
  if (auto s = a.get("--select")) select = split_list(*s);
  auto r = table.get({a.positional[2], a.positional[3]}, select);
  if (!r) return fail("get", r.error());
  if (!*r) {
    std::fprintf(stderr, "aztables get: not_found: no entity with PartitionKey '%s' and RowKey '%s'\n",
                 a.positional[2].c_str(), a.positional[3].c_str());
    return exit_failed;
  }
  return print_entity("get", **r);
}

int cmd_delete(aztables::table_client& table, const args& a) {
  allow_only(a, {"--etag"});
  need_positional(a, 4, "delete TABLE PK RK [--etag E]");
  const aztables::etag match = a.has("--etag") ? aztables::etag(*a.get("--etag")) : aztables::etag::any();
  auto r = table.erase({a.positional[2], a.positional[3]}, match);
  if (!r) return fail("delete", r.error());
  return exit_ok;
}

int cmd_query(aztables::table_client& table, const args& a) {
  allow_only(a, {"--pk", "--rk-from", "--rk-to", "--rk-prefix", "--filter", "--select", "--top"});
  need_positional(a, 2, "query TABLE [--pk P] [--rk-from A] [--rk-to B] [--rk-prefix X] [--filter F] ...");
  if (a.has("--rk-prefix") && (a.has("--rk-from") || a.has("--rk-to")))
    throw usage_error{"--rk-prefix and --rk-from/--rk-to exclude each other"};

  aztables::key_range rows;
  if (auto p = a.get("--rk-prefix")) {
    rows = aztables::key_range::prefix(*p);
  } else if (a.has("--rk-from") || a.has("--rk-to")) {
    std::optional<aztables::key_bound> lo, hi;
    if (auto f = a.get("--rk-from")) lo = aztables::key_bound{*f, true};
    if (auto t = a.get("--rk-to")) hi = aztables::key_bound{*t, true};
    rows = aztables::key_range(lo, hi);
  }

  if (const auto& err = rows.build_error()) return fail("query", *err);

  aztables::query q = aztables::query::table_scan();
  if (auto pk = a.get("--pk")) {
    q = aztables::query::row_range(*pk, rows);
  } else if (!rows.unbounded()) {
    // No partition: a scan with a RowKey condition (what the service does anyway).
    aztables::filter f;
    if (const auto& lo = rows.lower())
      f = f && (lo->inclusive ? aztables::filter::ge("RowKey", lo->key) : aztables::filter::gt("RowKey", lo->key));
    if (const auto& hi = rows.upper())
      f = f && (hi->inclusive ? aztables::filter::le("RowKey", hi->key) : aztables::filter::lt("RowKey", hi->key));
    q.where(std::move(f));
  }
  if (auto f = a.get("--filter")) q.where(aztables::filter::raw_unchecked(*f));
  if (auto s = a.get("--select")) {
    // Keep the keys in every line, so the output stays addressable (and can be fed back in).
    aztables::select_list names = split_list(*s);
    for (const char* k : {"RowKey", "PartitionKey"})
      if (std::find(names.begin(), names.end(), k) == names.end()) names.insert(names.begin(), k);
    q.select(std::move(names));
  }
  if (auto top = a.get("--top")) {
    char* end = nullptr;
    const long long n = std::strtoll(top->c_str(), &end, 10);
    if (top->empty() || *end != '\0' || n < 1) throw usage_error{"--top must be a positive integer"};
    q.limit(static_cast<std::size_t>(n));
  }

  auto pager = table.query(std::move(q));
  while (!pager.done()) {
    auto page = pager.next_page();
    if (!page) return fail("query", page.error());
    for (const auto& e : page->items)
      if (int rc = print_entity("query", e); rc != exit_ok) return rc;
  }
  return exit_ok;
}

// A batch line: {"action":"...","entity":{...}}.
aztables::result<std::pair<write_mode, aztables::entity>> parse_action(std::string line) {
  namespace od = aztables::detail::od;
  auto bad = [](std::string rule) { return aztables::error::invalid_argument("action", std::move(rule)); };
  od::parser parser;
  od::document doc;
  od::object obj;
  if (parser.iterate(aztables::detail::padded_view(line)).get(doc) || doc.get_object().get(obj))
    return bad("is not a JSON object");
  std::optional<write_mode> mode;
  std::optional<aztables::entity> entity;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return bad("has a bad member name");
    if (key == "action") {
      std::string_view s;
      if (field.value().get_string().get(s)) return bad("\"action\" is not a string");
      mode = parse_mode(s, true);
      if (!mode) return bad("\"action\" must be insert, upsert-merge, upsert-replace, merge, replace or delete");
    } else if (key == "entity") {
      od::object eo;
      if (field.value().get_object().get(eo)) return bad("\"entity\" is not an object");
      aztables::entity e;
      if (auto err = aztables::detail::read_entity(eo, e)) return bad("\"entity\": " + err->message);
      entity = std::move(e);
    } else {
      return bad("has an unknown member \"" + std::string(key) + "\" (expected \"action\" and \"entity\")");
    }
  }
  if (!mode || !entity) return bad("needs \"action\" and \"entity\"");
  return std::make_pair(*mode, std::move(*entity));
}

// The CLI's name of an action kind (as the input spells it).
const char* action_name(aztables::batch_action_kind k) {
  switch (k) {
    case aztables::batch_action_kind::insert: return "insert";
    case aztables::batch_action_kind::upsert_merge: return "upsert-merge";
    case aztables::batch_action_kind::upsert_replace: return "upsert-replace";
    case aztables::batch_action_kind::update_merge: return "merge";
    case aztables::batch_action_kind::update_replace: return "replace";
    case aztables::batch_action_kind::erase: return "delete";
  }
  return "unknown";
}

int cmd_batch(aztables::table_client& table, const args& a) {
  allow_only(a, {});
  need_positional(a, 2, "batch TABLE < actions.jsonl");
  aztables::batch b(table);
  int rc = for_each_input_line([&](std::size_t n, const std::string& line) {
    auto act = parse_action(line);
    if (!act) return fail("batch", act.error(), "line " + std::to_string(n));
    auto& [mode, e] = *act;
    if ((mode == write_mode::merge || mode == write_mode::replace || mode == write_mode::erase) && e.etag.empty())
      e.etag = aztables::etag::any();
    switch (mode) {
      case write_mode::insert: b.insert(std::move(e)); break;
      case write_mode::upsert_merge: b.upsert(std::move(e), aztables::update_mode::merge); break;
      case write_mode::upsert_replace: b.upsert(std::move(e), aztables::update_mode::replace); break;
      case write_mode::merge: b.update(std::move(e), aztables::update_mode::merge); break;
      case write_mode::replace: b.update(std::move(e), aztables::update_mode::replace); break;
      case write_mode::erase: b.erase(e.key(), e.etag); break;
    }
    return exit_ok;
  });
  if (rc != exit_ok) return rc;
  auto r = b.submit();
  if (!r) return fail("batch", r.error(), "nothing was applied");
  for (std::size_t i = 0; i < r->actions.size(); ++i) {
    const auto& ar = r->actions[i];
    std::string out = "{\"index\":" + std::to_string(i) + ",\"action\":\"" + action_name(ar.kind) +
                      "\",\"status\":" + std::to_string(ar.status);
    if (!ar.etag.empty()) {
      out += ",\"odata.etag\":";
      aztables::detail::append_json_string(out, ar.etag.str());
    }
    out += '}';
    print_line(out);
  }
  return exit_ok;
}

// A progress bar on stderr: redrawn in place on a terminal, a line per 10%
// otherwise (logs stay short).
class progress_bar {
 public:
  explicit progress_bar(bool enabled) : enabled_(enabled), tty_(isatty(2) != 0) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;  // the first call: sending starts
    const int decile = static_cast<int>(done * 10 / total);
    if (tty_ ? (done != total && now - last_ < std::chrono::milliseconds(100)) : decile == last_decile_) return;
    last_ = now;
    last_decile_ = decile;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const int width = 30, filled = static_cast<int>(done * width / total);
    std::fprintf(stderr, "%s[%s%s] %zu/%zu (%3d%%) %.0f entities/s%s", tty_ ? "\r" : "",
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), done, total,
                 static_cast<int>(done * 100 / total), secs > 0 ? static_cast<double>(done) / secs : 0.0,
                 tty_ && done != total ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_{}, last_{};
  int last_decile_ = -1;
};

int cmd_import(aztables::table_client& table, const args& a) {
  allow_only(a, {"--mode", "--concurrency", "--quiet"});
  need_positional(a, 2, "import TABLE [--mode M] [--concurrency N] [--quiet] < entities.jsonl");
  auto mode = parse_mode(a.get("--mode").value_or("upsert-merge"), false);
  if (!mode || *mode == write_mode::merge || *mode == write_mode::replace)
    throw usage_error{"--mode must be insert, upsert-merge or upsert-replace"};
  aztables::bulk_options opt;
  if (auto c = a.get("--concurrency")) {
    char* end = nullptr;
    const long n = std::strtol(c->c_str(), &end, 10);
    if (c->empty() || *end != '\0' || n < 1 || n > 256) throw usage_error{"--concurrency must be 1 to 256"};
    opt.concurrency = static_cast<std::size_t>(n);
  }
  progress_bar bar(!a.has("--quiet"));
  opt.on_progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  aztables::bulk_writer w(table, opt);
  int rc = for_each_input_line([&](std::size_t n, const std::string& line) {
    auto e = aztables::from_json(line);
    if (!e) return fail("import", e.error(), "line " + std::to_string(n) + " (nothing was sent)");
    if (*mode == write_mode::insert) w.insert(std::move(*e));
    else w.upsert(std::move(*e), *mode == write_mode::upsert_merge ? aztables::update_mode::merge
                                                                     : aztables::update_mode::replace);
    return exit_ok;
  });
  if (rc != exit_ok) return rc;
  auto r = w.write();
  if (!r) return fail("import", r.error(), "nothing was sent");
  std::fprintf(stderr, "aztables import: %zu of %zu entities written in %zu batches\n", r->written, r->total,
               r->batches);
  for (const auto& f : r->failures)
    fail("import", f.error,
         "entity " + f.key.partition_key + "/" + f.key.row_key + " (input entity " + std::to_string(f.index + 1) + ")");
  return r->ok() ? exit_ok : exit_failed;
}

// "+30m", "+12h", "+7d" or an ISO 8601 UTC time.
std::chrono::system_clock::time_point parse_when(const std::string& s, const char* option) {
  if (s.size() >= 3 && s[0] == '+') {
    char* end = nullptr;
    const long n = std::strtol(s.c_str() + 1, &end, 10);
    const std::string unit = end;
    const auto now = std::chrono::system_clock::now();
    if (n > 0 && n < 100000 && end != s.c_str() + 1) {
      if (unit == "m") return now + std::chrono::minutes(n);
      if (unit == "h") return now + std::chrono::hours(n);
      if (unit == "d") return now + std::chrono::hours(24 * n);
    }
  } else if (auto t = aztables::detail::parse_iso8601(s)) {
    return std::chrono::time_point_cast<std::chrono::system_clock::duration>(*t);
  }
  throw usage_error{std::string(option) + " must be an ISO 8601 UTC time or +Nm, +Nh, +Nd"};
}

int cmd_sas(const std::string& connection_string, const args& a) {
  if (a.positional.size() < 2) throw usage_error{"expected: sas table NAME ... | sas account ..."};
  auto cfg = aztables::parse_connection_string(connection_string);
  if (!cfg) return fail("sas", cfg.error());
  const auto* key = std::get_if<aztables::shared_key_credential>(&cfg->credential);
  if (!key) throw usage_error{"sas needs a connection string with AccountName and AccountKey"};
  const auto protocol = a.has("--http") ? aztables::sas_protocol::https_and_http : aztables::sas_protocol::https;
  aztables::result<std::string> token = std::string();
  if (a.positional[1] == "table") {
    allow_only(a, {"--permissions", "--expires", "--start", "--ip", "--pk-from", "--pk-to", "--rk-from", "--rk-to",
                   "--policy", "--http"});
    need_positional(a, 3, "sas table NAME --permissions raud --expires WHEN ...");
    aztables::table_sas_options o;
    o.table_name = a.positional[2];
    if (auto p = a.get("--permissions")) {
      auto perms = aztables::table_sas_permissions::parse(*p);
      if (!perms) return fail("sas", perms.error());
      o.permissions = *perms;
    }
    if (auto e = a.get("--expires")) o.expires_on = parse_when(*e, "--expires");
    if (auto s = a.get("--start")) o.starts_on = parse_when(*s, "--start");
    o.ip_range = a.get("--ip").value_or("");
    o.start_partition_key = a.get("--pk-from").value_or("");
    o.end_partition_key = a.get("--pk-to").value_or("");
    o.start_row_key = a.get("--rk-from").value_or("");
    o.end_row_key = a.get("--rk-to").value_or("");
    o.policy_id = a.get("--policy").value_or("");
    o.protocol = protocol;
    token = aztables::make_table_sas(*key, o);
  } else if (a.positional[1] == "account") {
    allow_only(a, {"--permissions", "--resource-types", "--expires", "--start", "--ip", "--http"});
    need_positional(a, 2, "sas account --permissions rwdlacu --resource-types sco --expires WHEN ...");
    aztables::account_sas_options o;
    for (char c : a.get("--permissions").value_or("")) {
      bool* flag = c == 'r' ? &o.permissions.read : c == 'w' ? &o.permissions.write : c == 'd' ? &o.permissions.erase
                   : c == 'l' ? &o.permissions.list : c == 'a' ? &o.permissions.add : c == 'c' ? &o.permissions.create
                   : c == 'u' ? &o.permissions.update : nullptr;
      if (!flag) throw usage_error{"--permissions for an account SAS: letters of rwdlacu"};
      *flag = true;
    }
    for (char c : a.get("--resource-types").value_or("")) {
      bool* flag = c == 's' ? &o.resource_types.service : c == 'c' ? &o.resource_types.container
                   : c == 'o' ? &o.resource_types.object : nullptr;
      if (!flag) throw usage_error{"--resource-types: letters of sco"};
      *flag = true;
    }
    if (auto e = a.get("--expires")) o.expires_on = parse_when(*e, "--expires");
    if (auto s = a.get("--start")) o.starts_on = parse_when(*s, "--start");
    o.ip_range = a.get("--ip").value_or("");
    o.protocol = protocol;
    token = aztables::make_account_sas(*key, o);
  } else {
    throw usage_error{"unknown sas kind '" + a.positional[1] + "' (table or account)"};
  }
  if (!token) return fail("sas", token.error());
  print_line(*token);
  return exit_ok;
}

int run(int argc, char** argv) {
  const args a = parse_args(argc, argv);
  if (a.has("--help") || a.positional.empty() || a.positional[0] == "help") {
    std::fputs(usage_text, a.positional.empty() && !a.has("--help") ? stderr : stdout);
    return a.positional.empty() && !a.has("--help") ? exit_usage : exit_ok;
  }
  const std::string& command = a.positional[0];
  if (command == "version" || command == "--version") {
    print_line("aztables " AZTABLES_VERSION_STRING);
    return exit_ok;
  }

  std::string cs;
  if (auto c = a.get("--connection-string")) cs = *c;
  else if (const char* env = std::getenv("AZTABLES_CONNECTION_STRING"); env && *env) cs = env;
  else
    throw usage_error{"no connection: pass --connection-string or set AZTABLES_CONNECTION_STRING "
                      "(\"UseDevelopmentStorage=true\" for Azurite)"};

  if (command == "sas") return cmd_sas(cs, a);

  auto svc = aztables::service_client::from_connection_string(cs);
  if (!svc) return fail("connect", svc.error());
  if (command == "tables") return cmd_tables(*svc, a);

  static const std::map<std::string, int (*)(aztables::table_client&, const args&)> table_commands = {
      {"put", cmd_put},     {"get", cmd_get},       {"delete", cmd_delete},
      {"query", cmd_query}, {"batch", cmd_batch},   {"import", cmd_import},
  };
  auto it = table_commands.find(command);
  if (it == table_commands.end()) throw usage_error{"unknown command '" + command + "'"};
  if (a.positional.size() < 2) throw usage_error{"expected: " + command + " TABLE ..."};
  if (auto v = aztables::validate_table_name(a.positional[1]); !v) return fail(command, v.error());
  aztables::table_client table = svc->table(a.positional[1]);
  return it->second(table, a);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "aztables: %s\n(run 'aztables help' for usage)\n", e.message.c_str());
    return exit_usage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aztables: %s\n", e.what());
    return exit_failed;
  }
}
