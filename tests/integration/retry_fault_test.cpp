// The retry policy under injected faults: >= 10,000 mixed operations through
// a seeded fault-injecting proxy (tests/fault/fault_proxy.js) in front of
// Azurite, 30 % of requests faulted (500/503/504/408/429 with and without
// hints, resets before and after forwarding, stalls past the client timeout,
// responses cut short), including query pages with continuations. Every
// operation is checked against an in-memory model
// of the table as it happens, and the table is compared with the model at
// the end: nothing lost, nothing duplicated, every operation ended in success
// or in the error it deserved (with the documented exceptions, counted:
// README "Retries").
//
// Environment: AZTABLES_FAULT_SEED (default 5), AZTABLES_FAULT_OPS (default 10000).
#include <catch2/catch.hpp>
#include <fault_proxy.hpp>
#include <test_support.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using aztables::errc;

namespace {

std::string azurite_target() {
  std::string ep = aztables_test::azurite_endpoint();  // http://127.0.0.1:PORT/devstoreaccount1
  auto slash = ep.find('/', ep.find("://") + 3);
  return ep.substr(0, slash);
}

unsigned env_or(const char* name, unsigned dflt) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : dflt;
}

using key_t_ = std::pair<std::string, std::string>;

struct stored {
  aztables::entity e;
  aztables::etag etag;   // current, as last reported by a write or read
  aztables::etag stale;  // an older one (for deserved 412s)
};

// The fast policy of the harness: many retries, tiny waits, short timeouts.
aztables::retry_options fast_policy() {
  auto r = aztables::retry_options::exponential(12, 2ms, 1ms, 20ms);
  r.max_elapsed = 60000ms;
  return r;
}

struct counters {
  std::map<std::string, long> outcomes;  // "insert: ok", "delete: not_found", ...
  long attempts = 0, retries = 0, verified = 0, ambiguous_deletes = 0, exhausted = 0, careful_unknown = 0;
  long mismatches = 0;
};

}  // namespace

TEST_CASE("Azurite: 10,000 mixed operations through a 30% fault-injecting proxy lose and duplicate nothing",
          "[retry][faults]") {
  const unsigned seed = env_or("AZTABLES_FAULT_SEED", 5);
  const unsigned ops = env_or("AZTABLES_FAULT_OPS", 10000);
  // Stalls cost a whole attempt timeout each: rarer than the other faults, to keep the run short.
  aztables_test::fault_proxy proxy(azurite_target(), seed,
                                   {"--rate", "0.3", "--stall-ms", "400", "--weights", "stall_before=0.5,stall_after=0.5"});

  aztables_test::scoped_table table(aztables_test::azurite_service(), "faults");
  auto direct = table.client();  // straight to Azurite: setup and the final check

  counters c;
  aztables::client_options o;
  o.retry = fast_policy();
  o.attempt_timeout = 200ms;
  o.connect_timeout = 1000ms;
  o.retry.on_attempt = [&c](const aztables::attempt_info& a) {
    ++c.attempts;
    if (a.outcome == aztables::attempt_outcome::retrying) ++c.retries;
  };
  auto faulty = aztables::service_client::from_connection_string(aztables_test::dev_connection_string(proxy.endpoint()), o)
                    .value()
                    .table(table.name());
  aztables::retry_options careful_policy = faulty.retry_policy();
  careful_policy.retry_non_idempotent = false;
  auto careful = faulty.with_retry(careful_policy);

  std::mt19937_64 rng(seed);
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::map<key_t_, stored> model;
  std::vector<std::string> first_mismatches;

  auto resync = [&](const key_t_& k) {
    auto got = direct.get({k.first, k.second}).value();
    if (got) {
      stored s;
      s.e = *got;
      s.etag = got->etag;
      s.e.etag = {};
      s.e.timestamp.reset();
      model[k] = s;
    } else {
      model.erase(k);
    }
  };
  auto make_entity = [&](const key_t_& k, long seq, bool partial) {
    aztables::entity e(k.first, k.second);
    e.set("Seq", std::int64_t{seq});
    if (!partial || pick(2)) e.set("N", static_cast<std::int32_t>(pick(1000000)));
    if (!partial || pick(2)) e.set("S", std::string(static_cast<std::size_t>(pick(40)), static_cast<char>('a' + pick(26))));
    if (pick(3) == 0) e.set("D", static_cast<double>(pick(1000)) / 8.0);
    return e;
  };
  auto note = [&](const std::string& op, const std::string& what) { ++c.outcomes[op + ": " + what]; };
  auto mismatch = [&](long seq, const std::string& op, const std::string& expected, const std::string& got) {
    ++c.mismatches;
    if (first_mismatches.size() < 20)
      first_mismatches.push_back("op " + std::to_string(seq) + " " + op + ": expected " + expected + ", got " + got);
  };
  const int max_attempts = fast_policy().max_retries + 1;
  // A failure that is the service's fault, not the operation's: retries exhausted.
  auto exhausted = [&](const aztables::error& e) {
    return (e.attempts >= max_attempts && aztables::default_is_retryable(e)) ||
           e.message.find("reading the entity back to check failed") != std::string::npos;
  };

  // An operation against the model: `expect` is the code it deserves (nullopt: success).
  for (long seq = 1; seq <= static_cast<long>(ops); ++seq) {
    const key_t_ k{"p" + std::to_string(pick(8)), "r" + std::to_string(100 + pick(64))};
    auto it = model.find(k);
    const bool exists = it != model.end();
    const int kind = pick(100);
    if (kind < 20) {  // ---- insert (some through the careful client)
      const bool use_careful = pick(10) == 0;
      auto e = make_entity(k, seq, false);
      auto r = (use_careful ? careful : faulty).insert(e);
      const std::string op = use_careful ? "insert (careful)" : "insert";
      if (r) {
        if (exists) mismatch(seq, op, "conflict", "success");
        if (r->verified_after_retry) ++c.verified;
        model[k] = stored{e, r->etag, {}};
        note(op, r->verified_after_retry ? "ok (verified after retry)" : "ok");
      } else if (r.error().code == errc::conflict && exists) {
        note(op, "conflict (deserved)");
      } else if (use_careful && r.error().may_have_applied) {
        ++c.careful_unknown;  // documented: not repeated, outcome unknown
        note(op, "stopped, may have applied");
        resync(k);
      } else if (exhausted(r.error())) {
        ++c.exhausted;
        resync(k);
      } else {
        mismatch(seq, op, exists ? "conflict" : "success", r.error().to_string());
        resync(k);
      }
    } else if (kind < 35) {  // ---- upsert (merge or replace)
      const bool merge = pick(2) == 0;
      auto e = make_entity(k, seq, merge);
      auto r = faulty.upsert(e, merge ? aztables::update_mode::merge : aztables::update_mode::replace);
      const std::string op = merge ? "upsert_merge" : "upsert_replace";
      if (r) {
        stored s = exists ? it->second : stored{};
        if (merge && exists) {
          for (const auto& p : e.properties()) s.e.set(p.name, p.value);
        } else {
          s.e = e;
        }
        s.stale = s.etag;
        s.etag = r->etag;
        model[k] = s;
        note(op, "ok");
      } else if (exhausted(r.error())) {
        ++c.exhausted;
        resync(k);
      } else {
        mismatch(seq, op, "success", r.error().to_string());
        resync(k);
      }
    } else if (kind < 52) {  // ---- update with the current ETag, a stale one, or *
      const bool merge = pick(2) == 0;
      const int which = pick(10);  // 0-5 current, 6-7 *, 8-9 stale
      auto e = make_entity(k, seq, merge);
      std::optional<errc> expect;
      if (!exists) {
        e.etag = which >= 6 && which < 8 ? aztables::etag::any() : aztables::etag("W/\"datetime'2020-01-01T00%3A00%3A00.0000000Z'\"");
        expect = errc::not_found;
      } else if (which >= 8 && !it->second.stale.empty() && it->second.stale != it->second.etag) {
        e.etag = it->second.stale;
        expect = errc::precondition_failed;
      } else if (which >= 6 || it->second.etag.empty()) {
        e.etag = aztables::etag::any();
      } else {
        e.etag = it->second.etag;
      }
      auto r = faulty.update(e, merge ? aztables::update_mode::merge : aztables::update_mode::replace);
      const std::string op = merge ? "update_merge" : "update_replace";
      if (r) {
        if (expect) mismatch(seq, op, aztables::to_string(*expect), "success");
        stored s = exists ? it->second : stored{};
        if (merge) {
          for (const auto& p : e.properties()) s.e.set(p.name, p.value);
        } else {
          s.e = e;
        }
        s.e.etag = {};
        s.stale = s.etag;
        s.etag = r->etag;
        model[k] = s;
        if (r->verified_after_retry) ++c.verified;
        note(op, r->verified_after_retry ? "ok (verified after retry)" : "ok");
      } else if (expect && r.error().code == *expect) {
        note(op, std::string(aztables::to_string(*expect)) + " (deserved)");
      } else if (exhausted(r.error())) {
        ++c.exhausted;
        resync(k);
      } else {
        mismatch(seq, op, expect ? aztables::to_string(*expect) : "success", r.error().to_string());
        resync(k);
      }
    } else if (kind < 68) {  // ---- delete with the current ETag, a stale one, or *
      const int which = pick(10);
      aztables::etag match = aztables::etag::any();
      std::optional<errc> expect;
      if (!exists) {
        expect = errc::not_found;
      } else if (which >= 8 && !it->second.stale.empty() && it->second.stale != it->second.etag) {
        match = it->second.stale;
        expect = errc::precondition_failed;
      } else if (which < 5 && !it->second.etag.empty()) {
        match = it->second.etag;
      }
      auto r = faulty.erase({k.first, k.second}, match);
      if (r) {
        if (expect) mismatch(seq, "delete", aztables::to_string(*expect), "success");
        model.erase(k);
        note("delete", "ok");
      } else if (expect && r.error().code == *expect) {
        note("delete", std::string(aztables::to_string(*expect)) + " (deserved)");
      } else if (!expect && r.error().code == errc::not_found && r.error().may_have_applied) {
        ++c.ambiguous_deletes;  // documented: an earlier attempt deleted it, its answer was lost
        note("delete", "not_found after a lost answer (flagged)");
        model.erase(k);
      } else if (exhausted(r.error())) {
        ++c.exhausted;
        resync(k);
      } else {
        mismatch(seq, "delete", expect ? aztables::to_string(*expect) : "success", r.error().to_string());
        resync(k);
      }
    } else if (kind < 82) {  // ---- a batch: 1 to 5 distinct rows of one partition
      const int n = 1 + pick(5);
      std::vector<int> rows;
      while (static_cast<int>(rows.size()) < n) {
        const int r = 100 + pick(64);
        if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
      }
      aztables::batch b(faulty);
      struct planned {
        key_t_ key;
        aztables::batch_action_kind kind;
        aztables::entity e;
      };
      std::vector<planned> plan;
      std::optional<std::pair<std::size_t, errc>> expect;  // the first action that must fail
      bool only_deletes = true;
      for (int row : rows) {
        const key_t_ bk{k.first, "r" + std::to_string(row)};
        auto mit = model.find(bk);
        const bool ex = mit != model.end();
        int a = pick(6);
        // Mostly actions that can succeed, so that most batches commit.
        if (((a == 0 && ex) || (a >= 3 && !ex)) && pick(4) != 0) a = 1 + pick(2);
        aztables::entity e = make_entity(bk, seq, a == 1 || a == 3);
        std::optional<errc> fails;
        aztables::batch_action_kind ak = aztables::batch_action_kind::insert;
        switch (a) {
          case 0:
            b.insert(e);
            if (ex) fails = errc::conflict;
            break;
          case 1:
          case 2:
            ak = a == 1 ? aztables::batch_action_kind::upsert_merge : aztables::batch_action_kind::upsert_replace;
            b.upsert(e, a == 1 ? aztables::update_mode::merge : aztables::update_mode::replace);
            break;
          case 3:
          case 4:
            ak = a == 3 ? aztables::batch_action_kind::update_merge : aztables::batch_action_kind::update_replace;
            e.etag = ex && a == 4 && !mit->second.etag.empty() ? mit->second.etag : aztables::etag::any();
            b.update(e, a == 3 ? aztables::update_mode::merge : aztables::update_mode::replace);
            if (!ex) fails = errc::not_found;
            break;
          default:
            ak = aztables::batch_action_kind::erase;
            b.erase({bk.first, bk.second}, aztables::etag::any());
            if (!ex) fails = errc::not_found;
            break;
        }
        only_deletes = only_deletes && ak == aztables::batch_action_kind::erase;
        if (fails && !expect) expect = std::make_pair(plan.size(), *fails);
        plan.push_back({bk, ak, e});
      }
      auto r = b.submit();
      auto apply_all = [&](const std::vector<aztables::batch_action_result>* results) {
        for (std::size_t i = 0; i < plan.size(); ++i) {
          const planned& pl = plan[i];
          if (pl.kind == aztables::batch_action_kind::erase) {
            model.erase(pl.key);
            continue;
          }
          auto mit = model.find(pl.key);
          stored s = mit != model.end() ? mit->second : stored{};
          const bool merge = pl.kind == aztables::batch_action_kind::upsert_merge ||
                             pl.kind == aztables::batch_action_kind::update_merge;
          if (merge && mit != model.end()) {
            for (const auto& p : pl.e.properties()) s.e.set(p.name, p.value);
          } else {
            s.e = pl.e;
          }
          s.e.etag = {};
          s.stale = s.etag;
          s.etag = results ? (*results)[i].etag : aztables::etag{};
          model[pl.key] = s;
        }
      };
      if (r) {
        if (expect) mismatch(seq, "batch", aztables::to_string(expect->second), "success");
        if (r->verified_after_retry) ++c.verified;
        apply_all(&r->actions);
        note("batch", r->verified_after_retry ? "ok (verified after retry)" : "ok");
      } else if (expect && r.error().code == expect->second && r.error().action_index == expect->first) {
        note("batch", std::string(aztables::to_string(expect->second)) + " (deserved)");
      } else if (!expect && only_deletes && r.error().code == errc::not_found && r.error().may_have_applied) {
        ++c.ambiguous_deletes;  // documented: a batch of deletes answered 404 after a lost answer
        note("batch", "deletes: not_found after a lost answer (flagged)");
        apply_all(nullptr);
      } else if (exhausted(r.error()) || r.error().message.find("reading its entities back to check failed") != std::string::npos) {
        ++c.exhausted;
        for (const auto& pl : plan) resync(pl.key);
      } else {
        mismatch(seq, "batch", expect ? std::string(aztables::to_string(expect->second)) + " at " + std::to_string(expect->first) : "success",
                 r.error().to_string());
        for (const auto& pl : plan) resync(pl.key);
      }
    } else if (kind < 88) {  // ---- a query of one partition in small pages (continuations), maybe filtered
      auto q = aztables::query::row_range(k.first).page_size(2 + pick(15));
      const bool filtered = pick(2) == 0;
      const std::int32_t threshold = static_cast<std::int32_t>(pick(1000000));
      if (filtered) q.where(aztables::filter::ge("N", threshold));
      auto pager = faulty.query(std::move(q));
      std::vector<aztables::entity> got;
      std::optional<aztables::error> failed;
      long pages = 0;
      while (!pager.done()) {
        auto pg = pager.next_page();
        if (!pg) {
          failed = pg.error();
          break;
        }
        ++pages;
        for (auto& e : pg->items) got.push_back(std::move(e));
      }
      if (failed) {
        if (exhausted(*failed)) ++c.exhausted;
        else mismatch(seq, "query", "success", failed->to_string());
        continue;
      }
      std::vector<const aztables::entity*> want;
      for (auto mit = model.lower_bound({k.first, ""}); mit != model.end() && mit->first.first == k.first; ++mit) {
        const aztables::value* n = mit->second.e.get("N");
        if (filtered && !(n && n->get_if<std::int32_t>() && *n->get_if<std::int32_t>() >= threshold)) continue;
        want.push_back(&mit->second.e);
      }
      bool same = got.size() == want.size();
      for (std::size_t i = 0; same && i < got.size(); ++i) same = got[i] == *want[i];
      if (!same) {
        mismatch(seq, "query", std::to_string(want.size()) + " entities", std::to_string(got.size()) + " entities or other content");
      } else {
        note("query", "ok");
        c.outcomes["query: pages read"] += pages;
      }
    } else {  // ---- point read
      auto r = faulty.get({k.first, k.second});
      if (!r) {
        if (exhausted(r.error())) ++c.exhausted;
        else mismatch(seq, "get", "success", r.error().to_string());
        continue;
      }
      if (static_cast<bool>(*r) != exists || (exists && !(**r == it->second.e))) {
        mismatch(seq, "get", exists ? "the model's entity" : "absent", *r ? "a different entity" : "absent");
        resync(k);
      } else {
        if (exists) model[k].etag = (*r)->etag;
        note("get", exists ? "found" : "absent");
      }
    }
  }

  // ---- the table against the model, read straight from Azurite.
  long lost = 0, duplicated = 0, differing = 0, present = 0;
  for (int p = 0; p < 8; ++p) {
    for (int r = 100; r < 164; ++r) {
      const key_t_ k{"p" + std::to_string(p), "r" + std::to_string(r)};
      auto got = direct.get({k.first, k.second}).value();
      auto it = model.find(k);
      if (got) ++present;
      if (got && it == model.end()) ++duplicated;
      else if (!got && it != model.end()) ++lost;
      else if (got && !(*got == it->second.e)) ++differing;
    }
  }

  // A table scan (not only the key space above) sees anything written twice elsewhere.
  long scanned = 0;
  for (const aztables::entity& e : direct.query(aztables::query::table_scan())) {
    ++scanned;
    auto it = model.find({e.partition_key, e.row_key});
    if (it == model.end()) ++duplicated;
    else if (!(e == it->second.e)) ++differing;
  }
  if (scanned != static_cast<long>(model.size())) ++lost;

  auto st = proxy.stats();
  std::printf("\n==== retry under faults (seed %u, %u operations) ====\n", seed, ops);
  std::printf("proxy: %ld requests, %ld faults injected (%.1f%%), %ld forwarded\n", st["requests"], st["faults"],
              st["requests"] ? 100.0 * static_cast<double>(st["faults"]) / static_cast<double>(st["requests"]) : 0.0,
              st["forwarded"]);
  std::printf("faults:");
  for (const auto& kv : st)
    if (kv.first != "requests" && kv.first != "faults" && kv.first != "forwarded") std::printf(" %s=%ld", kv.first.c_str(), kv.second);
  std::printf("\nclient: %ld attempts, %ld retries; verified after retry %ld; deletes answered 404 after a lost answer %ld; "
              "careful inserts stopped %ld; retries exhausted %ld\n",
              c.attempts, c.retries, c.verified, c.ambiguous_deletes, c.careful_unknown, c.exhausted);
  std::printf("outcomes:\n");
  for (const auto& kv : c.outcomes) std::printf("  %-48s %ld\n", kv.first.c_str(), kv.second);
  std::printf("table: %ld entities (%ld in a table scan, %zu in the model); lost %ld, duplicated %ld, differing %ld; "
              "mismatched outcomes %ld\n",
              present, scanned, model.size(), lost, duplicated, differing, c.mismatches);
  for (const auto& m : first_mismatches) std::printf("  MISMATCH %s\n", m.c_str());
  std::fflush(stdout);

  CHECK(st["faults"] > static_cast<long>(ops) / 5);
  CHECK(c.mismatches == 0);
  CHECK(lost == 0);
  CHECK(duplicated == 0);
  CHECK(differing == 0);
  CHECK(c.exhausted <= static_cast<long>(ops) / 1000);  // 13 faults in a row: very rare
}
