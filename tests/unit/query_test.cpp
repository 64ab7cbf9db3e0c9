// Queries without a network: filter literals and hostile values, key ranges
// and the prefix edge cases, the four query kinds, and the pager's paging,
// limits, resume tokens and typed decoding against a fake transport.
#include <catch2/catch.hpp>
#include <test_support.hpp>
#include <typed_models.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace az = aztables;
using az::filter;
using az::key_range;
using az::query;

namespace {

/// A small OData $filter tokenizer: the filter's shape is its token list with
/// every string literal's content replaced by "<str>".
struct odata_tokens {
  std::vector<std::string> shape;
  std::vector<std::string> strings;  ///< decoded string literals
  bool ok = true;
};

odata_tokens tokenize(const std::string& f) {
  odata_tokens t;
  std::size_t i = 0;
  while (i < f.size()) {
    char c = f[i];
    if (c == ' ') {
      ++i;
    } else if (c == '(' || c == ')') {
      t.shape.emplace_back(1, c);
      ++i;
    } else if (c == '\'') {
      std::string s;
      ++i;
      for (;;) {
        if (i >= f.size()) {
          t.ok = false;
          return t;
        }
        if (f[i] == '\'') {
          if (i + 1 < f.size() && f[i + 1] == '\'') {
            s += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        s += f[i++];
      }
      t.shape.push_back("<str>");
      t.strings.push_back(s);
    } else {
      std::string w;
      while (i < f.size() && f[i] != ' ' && f[i] != '(' && f[i] != ')' && f[i] != '\'') w += f[i++];
      t.shape.push_back(w);
    }
  }
  return t;
}

std::string text(const filter& f) { return f.str().value(); }

}  // namespace

TEST_CASE("filter: typed literals", "[query][filter]") {
  CHECK(text(filter::eq("Name", "O'Brien")) == "Name eq 'O''Brien'");
  CHECK(text(filter::eq("Name", std::string("x"))) == "Name eq 'x'");
  CHECK(text(filter::ne("N", 42)) == "N ne 42");
  CHECK(text(filter::gt("N", std::int64_t{42})) == "N gt 42L");
  CHECK(text(filter::ge("N", std::numeric_limits<std::int64_t>::min())) == "N ge -9223372036854775808L");
  CHECK(text(filter::lt("D", 2.0)) == "D lt 2.0");
  CHECK(text(filter::lt("D", 0.1)) == "D lt 0.1");
  for (double d : {1e300, -1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 1.0 / 3}) {
    const std::string t = text(filter::le("D", d));  // fixed notation, no exponent, reads back exactly
    INFO(t);
    CHECK(t.find_first_of("eE+", 5) == std::string::npos);
    CHECK(std::strtod(t.c_str() + 5, nullptr) == d);
  }
  CHECK(text(filter::le("D", -0.0)) == "D le -0.0");
  CHECK(text(filter::eq("D", 5e-324)) == "D eq 0." + std::string(323, '0') + "5");
  CHECK(text(filter::eq("D", 123456.789)) == "D eq 123456.789");
  CHECK(text(filter::eq("D", -1.5e-7)) == "D eq -0.00000015");
  CHECK(text(filter::eq("B", true)) == "B eq true");
  CHECK(text(filter::eq("T", az::datetime(az::ticks(16409952001234567LL)))) ==
        "T eq datetime'2022-01-01T00:00:00.1234567Z'");
  CHECK(text(filter::eq("T", az::datetime(az::ticks(0)))) == "T eq datetime'1970-01-01T00:00:00.0000000Z'");
  CHECK(text(filter::eq("G", *az::guid::parse("C9DA6455-213D-42C9-9A79-3E9149A57833"))) ==
        "G eq guid'c9da6455-213d-42c9-9a79-3e9149a57833'");
  CHECK(text(filter::eq("X", az::binary{0x01, 0x02, 0xff})) == "X eq X'0102ff'");
  CHECK(text(filter::eq("Size", typed_models::size::large)) == "Size eq 'Large'");
  CHECK(text(filter::eq("Color", typed_models::color::green)) == "Color eq 2");
  CHECK(text(filter::eq("Huge", typed_models::huge::big)) == "Huge eq 1099511627776L");
  CHECK(text(filter::eq("V", az::value(std::int64_t{3}))) == "V eq 3L");
  CHECK(text(filter::eq("RowKey", "r")) == "RowKey eq 'r'");
  CHECK(text(filter::eq("Timestamp", az::datetime(az::ticks(0)))) == "Timestamp eq datetime'1970-01-01T00:00:00.0000000Z'");
}

TEST_CASE("filter: composition and parentheses", "[query][filter]") {
  auto a = filter::eq("A", 1), b = filter::eq("B", 2), c = filter::eq("C", 3);
  CHECK(text(a && b && c) == "A eq 1 and B eq 2 and C eq 3");
  CHECK(text(a || (b && c)) == "A eq 1 or (B eq 2 and C eq 3)");
  CHECK(text((a || b) && c) == "(A eq 1 or B eq 2) and C eq 3");
  CHECK(text(!(a || b)) == "not (A eq 1 or B eq 2)");
  CHECK(text(!a && b) == "not (A eq 1) and B eq 2");
  CHECK(text(filter() && a) == "A eq 1");
  CHECK(text(a || filter()) == "A eq 1");
  CHECK(filter().empty());
  CHECK(text(filter::raw_unchecked("X eq 1 or Y eq 2") && a) == "(X eq 1 or Y eq 2) and A eq 1");
  auto neg = !filter();
  CHECK(neg.str().error().code == az::errc::invalid_argument);
}

TEST_CASE("filter: bad input is an invalid_argument error carried to the end", "[query][filter]") {
  auto check = [](const filter& f, const std::string& msg) {
    auto s = f.str();
    REQUIRE_FALSE(s);
    CHECK(s.error().code == az::errc::invalid_argument);
    CHECK_THAT(s.error().message, Catch::Contains(msg));
  };
  check(filter::eq("bad name", 1), "property 'bad name'");
  check(filter::eq("A) or (1 eq 1", 1), "C# identifier");
  check(filter::eq("", 1), "may not be empty");
  check(filter::eq("D", std::nan("")), "NaN");
  check(filter::eq("D", std::numeric_limits<double>::infinity()), "NaN and infinite");
  check(filter::eq("S", std::string("\xff\xfe")), "not valid UTF-8");
  check(filter::eq("T", az::datetime(az::ticks(-116444736000000001LL))), "outside the service's range");
  check(filter::eq("Size", static_cast<typed_models::size>(9)), "no name");
  check(filter::eq("A", 1) && filter::eq("bad-name", 2), "bad-name");
  check(!filter::eq("-", 1), "property '-'");
}

TEST_CASE("filter: a hostile value never changes the filter's shape", "[query][filter][security]") {
  const std::vector<std::string> hostile = {
      "x' or 1 eq 1 or 'a' eq 'a",
      "'",
      "''",
      "' or PartitionKey ne '",
      "x') or (RowKey gt '",
      "\\'; drop table",
      "a'b''c'''d",
      "%27 or %27a%27 eq %27a",
      "&$filter=PartitionKey ne ''&x=",
      "#?/\\\n\r\t",
      "'\xC3\xA9\xE2\x80\x8B'",
      "not (x) and",
      "datetime'2020-01-01T00:00:00Z'",
      std::string("nul\0byte", 8),
  };
  const auto benign = tokenize(text(filter::eq("Name", "x") && filter::ge("RowKey", "y")));
  REQUIRE(benign.ok);
  for (const auto& h : hostile) {
    INFO(h);
    const std::string t = text(filter::eq("Name", h) && filter::ge("RowKey", h));
    const auto toks = tokenize(t);
    REQUIRE(toks.ok);
    CHECK(toks.shape == benign.shape);
    REQUIRE(toks.strings.size() == 2);
    CHECK(toks.strings[0] == h);
    CHECK(toks.strings[1] == h);
    // The same holds for key conditions built by the query kinds.
    const auto q = tokenize(query::row_range("p", key_range::closed(h, h + "z")).filter_text().value());
    const auto qb = tokenize(query::row_range("p", key_range::closed("a", "az")).filter_text().value());
    CHECK(q.shape == qb.shape);
  }
}

TEST_CASE("key_range::prefix: the successor in UTF-16 order", "[query][range]") {
  auto upper = [](std::string_view p) -> std::optional<std::string> {
    auto r = key_range::prefix(p);
    REQUIRE_FALSE(r.build_error());
    if (!r.upper()) return std::nullopt;
    CHECK_FALSE(r.upper()->inclusive);
    return r.upper()->key;
  };
  auto r = key_range::prefix("AGE:05");
  REQUIRE(r.lower());
  CHECK(r.lower()->key == "AGE:05");
  CHECK(r.lower()->inclusive);
  CHECK(upper("AGE:05") == std::string("AGE:06"));
  CHECK(upper("a") == std::string("b"));
  CHECK(upper("a\x7f") == std::string("a\xC2\x80"));                 // U+007F -> U+0080 (two UTF-8 bytes)
  CHECK(upper("\xC3\xA9") == std::string("\xC3\xAA"));               // é -> ê
  CHECK(upper("a\xC2\xBF") == std::string("a\xC3\x80"));             // U+00BF -> U+00C0: not a byte increment
  CHECK(upper("a\xEF\xBF\xBF") == std::string("b"));                 // trailing U+FFFF is dropped
  CHECK(upper("ab\xEF\xBF\xBF\xEF\xBF\xBF") == std::string("ac"));
  CHECK(upper("\xED\x9F\xBF") == std::string("\xF0\x90\x80\x80"));   // U+D7FF -> U+10000 (surrogates sort next)
  CHECK(upper("\xF0\x9F\x98\x80") == std::string("\xF0\x9F\x98\x81"));  // U+1F600 -> U+1F601
  CHECK(upper("\xF0\x90\x8F\xBF") == std::string("\xF0\x90\x90\x80"));  // U+103FF -> U+10400 (high surrogate carries)
  CHECK(upper("x\xF4\x8F\xBF\xBF") == std::string("x\xEE\x80\x80"));    // U+10FFFF -> U+E000
  CHECK(upper("\xEE\x80\x80") == std::string("\xEE\x80\x81"));         // U+E000 -> U+E001
  CHECK_FALSE(upper("\xEF\xBF\xBF"));                                  // only U+FFFF: no upper end
  auto all = key_range::prefix("");
  CHECK(all.unbounded());
  auto bad = key_range::prefix("a\xC3");
  REQUIRE(bad.build_error());
  CHECK(bad.build_error()->code == az::errc::invalid_argument);
  CHECK(query::row_range("p", key_range::prefix("\xff")).filter_text().error().code == az::errc::invalid_argument);
}

TEST_CASE("query kinds: the filter each one sends", "[query][kinds]") {
  CHECK(query::point({"p'1", "r"}).filter_text().value() == "PartitionKey eq 'p''1' and RowKey eq 'r'");
  CHECK(query::row_range("p").filter_text().value() == "PartitionKey eq 'p'");
  CHECK(query::row_range("p", key_range::half_open("a", "m")).filter_text().value() ==
        "PartitionKey eq 'p' and RowKey ge 'a' and RowKey lt 'm'");
  CHECK(query::row_range("p", key_range::closed("a", "m")).filter_text().value() ==
        "PartitionKey eq 'p' and RowKey ge 'a' and RowKey le 'm'");
  CHECK(query::row_range("p", key_range::greater_than("a")).filter_text().value() ==
        "PartitionKey eq 'p' and RowKey gt 'a'");
  CHECK(query::row_range("p", key_range::at_most("m")).filter_text().value() == "PartitionKey eq 'p' and RowKey le 'm'");
  CHECK(query::row_range("p", key_range::less_than("m")).filter_text().value() == "PartitionKey eq 'p' and RowKey lt 'm'");
  CHECK(query::row_range("p", key_range::prefix("AGE:")).filter_text().value() ==
        "PartitionKey eq 'p' and RowKey ge 'AGE:' and RowKey lt 'AGE;'");
  CHECK(query::partition_range(key_range::at_least("p0")).filter_text().value() == "PartitionKey ge 'p0'");
  CHECK(query::partition_range(key_range::half_open("p0", "p5"), key_range::prefix("A")).filter_text().value() ==
        "PartitionKey ge 'p0' and PartitionKey lt 'p5' and RowKey ge 'A' and RowKey lt 'B'");
  CHECK(query::table_scan().filter_text().value().empty());
  CHECK(query::table_scan().where(filter::eq("A", 1)).filter_text().value() == "A eq 1");
  CHECK(query::row_range("p").where(filter::eq("A", 1) || filter::eq("B", 2)).where(filter::eq("C", 3)).filter_text().value() ==
        "PartitionKey eq 'p' and ((A eq 1 or B eq 2) and C eq 3)");
  CHECK(query::point({"p", "r"}).query_kind() == query::kind::point);

  auto err = query::partition_range(key_range()).filter_text();
  REQUIRE_FALSE(err);
  CHECK_THAT(err.error().message, Catch::Contains("query::table_scan()"));
  CHECK(query::row_range("a/b").filter_text().error().message.find("PartitionKey") == 0);
  CHECK(query::point({"p", "r#"}).filter_text().error().code == az::errc::invalid_argument);
  CHECK(query::row_range("p").where(filter::eq("1x", 1)).filter_text().error().code == az::errc::invalid_argument);
}

// ---- the pager against a fake transport -------------------------------------

namespace {

struct harness {
  std::shared_ptr<aztables_test::fake_transport> t = std::make_shared<aztables_test::fake_transport>();
  az::client_options opt = [this] {
    auto o = aztables_test::fake_options(t);
    o.retry = az::retry_options::none();
    return o;
  }();
  az::table_client tc = az::service_client::from_connection_string(aztables_test::dev_connection_string(), opt)
                            .value()
                            .table("orders");

  /// A page of entities with RowKeys r<from>..r<to-1> and optional continuation headers.
  void page(int from, int to, std::optional<std::string> npk = {}, std::optional<std::string> nrk = {}) {
    std::string body = R"({"odata.metadata":"x","value":[)";
    for (int i = from; i < to; ++i) {
      if (i > from) body += ',';
      body += R"({"odata.etag":"W/\"e)" + std::to_string(i) + R"(\"","PartitionKey":"p","RowKey":"r)" +
              std::to_string(i) + R"(","N":)" + std::to_string(i) + "}";
    }
    body += "]}";
    std::vector<az::http_header> h;
    if (npk) h.push_back({"x-ms-continuation-nextpartitionkey", *npk});
    if (nrk) h.push_back({"x-ms-continuation-nextrowkey", *nrk});
    t->push(200, body, h);
  }
  std::string url(std::size_t i) const { return t->requests().at(i).url; }
};

std::vector<std::string> row_keys(const std::vector<az::entity>& v) {
  std::vector<std::string> out;
  for (auto& e : v) out.push_back(e.row_key);
  return out;
}

}  // namespace

TEST_CASE("pager: follows continuations, empty pages included, until none comes", "[query][pager]") {
  harness h;
  h.page(0, 2, std::string("cA=="), std::string("cjI+/w=="));
  h.page(2, 2, std::string("cA=="), std::nullopt);  // empty, no NextRowKey, still continues
  h.page(2, 3);
  std::vector<std::string> got;
  auto p = h.tc.query(query::row_range("p"));
  for (az::entity& e : p) got.push_back(e.row_key);
  CHECK(got == std::vector<std::string>{"r0", "r1", "r2"});
  CHECK(p.done());
  CHECK(p.token().empty());
  REQUIRE(h.t->request_count() == 3);
  CHECK(h.url(0) == "http://127.0.0.1:10002/devstoreaccount1/orders()?$filter=PartitionKey%20eq%20%27p%27");
  CHECK(h.url(1) == h.url(0) + "&NextPartitionKey=cA%3D%3D&NextRowKey=cjI%2B%2Fw%3D%3D");
  CHECK(h.url(2) == h.url(0) + "&NextPartitionKey=cA%3D%3D");
  CHECK(h.t->requests()[0].headers.get("Accept") == "application/json;odata=minimalmetadata");
}

TEST_CASE("pager: next_page(page&) reuses one page object; a failed fetch leaves it empty and retries", "[query][pager]") {
  harness h;
  h.page(0, 3, std::string("cA"), std::string("cjM"));
  h.t->push(500, R"({"odata.error":{"code":"InternalError","message":{"value":"boom"}}})");
  h.page(3, 4, std::string("cA"), std::string("cjQ"));
  h.page(4, 6);
  auto p = h.tc.query(query::row_range("p"));
  az::page<az::entity> pg;
  REQUIRE(p.next_page(pg));
  CHECK(row_keys(pg.items) == std::vector<std::string>{"r0", "r1", "r2"});
  const std::string first_token = pg.token;
  CHECK_FALSE(first_token.empty());
  auto failed = p.next_page(pg);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().http_status == 500);
  CHECK(pg.items.empty());
  REQUIRE(p.next_page(pg));  // the same page again: nothing lost or doubled
  CHECK(row_keys(pg.items) == std::vector<std::string>{"r3"});
  CHECK(*pg.items[0].get("N")->as_int32() == 3);
  REQUIRE(p.next_page(pg));
  CHECK(row_keys(pg.items) == std::vector<std::string>{"r4", "r5"});
  CHECK(pg.token.empty());
  CHECK(p.done());
  REQUIRE(p.next_page(pg));
  CHECK(pg.items.empty());
}

TEST_CASE("pager: page by page, with page size, select and limit", "[query][pager]") {
  harness h;
  h.page(0, 2, std::string("cA"), std::string("cjI"));
  h.page(2, 3, std::string("cA"), std::string("cjM"));
  auto p = h.tc.query(query::table_scan().select({"N", "RowKey"}).page_size(2).limit(3));
  auto a = p.next_page().value();
  CHECK(row_keys(a.items) == std::vector<std::string>{"r0", "r1"});
  CHECK_FALSE(a.token.empty());
  CHECK_FALSE(p.done());
  auto b = p.next_page().value();
  CHECK(row_keys(b.items) == std::vector<std::string>{"r2"});
  CHECK(p.done());
  CHECK_FALSE(b.token.empty());  // the limit stopped it, not the end of the data
  CHECK(h.url(0) == "http://127.0.0.1:10002/devstoreaccount1/orders()?$select=N%2CRowKey&$top=2");
  CHECK(h.url(1) ==
        "http://127.0.0.1:10002/devstoreaccount1/orders()?$select=N%2CRowKey&$top=1&NextPartitionKey=cA&NextRowKey=cjI");
  CHECK(p.next_page().value().items.empty());
  CHECK(h.t->request_count() == 2);
}

TEST_CASE("pager: a page longer than asked is cut at the limit and resumes after it", "[query][pager]") {
  harness h;
  h.page(0, 5, std::string("cA"), std::string("cjU"));  // a server that ignores $top
  auto q = query::row_range("p").limit(3);
  auto p = h.tc.query(q);
  std::vector<std::string> got;
  for (auto& e : p) got.push_back(e.row_key);
  CHECK(got == std::vector<std::string>{"r0", "r1", "r2"});
  const std::string tok = p.token();
  REQUIRE_FALSE(tok.empty());
  // Resuming re-reads from the page start and skips the 3 delivered entities.
  h.page(0, 5, std::string("cA"), std::string("cjU"));
  h.page(5, 6);
  auto rest = h.tc.query(query::row_range("p").resume(tok));
  got.clear();
  for (auto& e : rest) got.push_back(e.row_key);
  CHECK(got == std::vector<std::string>{"r3", "r4", "r5"});
  CHECK(h.url(1) == "http://127.0.0.1:10002/devstoreaccount1/orders()?$filter=PartitionKey%20eq%20%27p%27");
}

TEST_CASE("pager: a token taken in the middle of a page resumes exactly there", "[query][pager]") {
  harness h;
  h.page(0, 3, std::string("cA"), std::string("cjM"));
  h.page(3, 6);
  auto p = h.tc.query(query::row_range("p"));
  std::vector<std::string> first;
  std::string tok;
  for (auto& e : p) {
    first.push_back(e.row_key);
    if (first.size() == 4) {
      tok = p.token();  // r3 consumed (the page started at r3)
      break;
    }
  }
  CHECK(first == std::vector<std::string>{"r0", "r1", "r2", "r3"});
  // The rest of the buffered page is still there for this pager.
  auto rest_of_page = p.next_page().value();
  CHECK(row_keys(rest_of_page.items) == std::vector<std::string>{"r4", "r5"});
  CHECK(rest_of_page.token.empty());
  // A new pager from the token re-reads page two and skips r3.
  h.page(3, 6);
  auto resumed = h.tc.query(query::row_range("p").resume(tok));
  auto pg = resumed.next_page().value();
  CHECK(row_keys(pg.items) == std::vector<std::string>{"r4", "r5"});
  CHECK(h.url(2) == "http://127.0.0.1:10002/devstoreaccount1/orders()?$filter=PartitionKey%20eq%20%27p%27&NextPartitionKey=cA&NextRowKey=cjM");
}

TEST_CASE("pager: tokens are checked against the query", "[query][pager]") {
  harness h;
  h.page(0, 1, std::string("cA"), std::string("cjE"));
  auto p = h.tc.query(query::row_range("p"));
  REQUIRE(p.next_page());
  const std::string tok = p.token();
  CHECK(tok.rfind("aztq1.", 0) == 0);
  auto other = h.tc.query(query::row_range("q").resume(tok));
  auto r = other.next_page();
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_argument);
  CHECK_THAT(r.error().message, Catch::Contains("different query"));
  CHECK(h.tc.query(query::row_range("p").resume("")).next_page().error().code == az::errc::invalid_argument);
  CHECK(h.tc.query(query::row_range("p").resume("garbage")).next_page().error().code == az::errc::invalid_argument);
  CHECK(h.tc.query(query::row_range("p").page_size(1001)).next_page().error().code == az::errc::invalid_argument);
  CHECK(h.tc.query(query::row_range("p").page_size(0)).next_page().error().code == az::errc::invalid_argument);
  CHECK(h.tc.query<typed_models::everything>(query::row_range("p").select({"S"})).next_page().error().code ==
        az::errc::invalid_argument);
  auto bad_table = az::service_client::from_connection_string(aztables_test::dev_connection_string(), h.opt)
                       .value()
                       .table("no-such_name");
  CHECK(bad_table.query(query::row_range("p")).next_page().error().code == az::errc::invalid_argument);
  CHECK(bad_table.get<typed_models::everything>({"p", "r"}).error().code == az::errc::invalid_argument);
  CHECK(h.t->request_count() == 1);  // nothing sent for any bad query
  auto zero = h.tc.query(query::row_range("p").limit(0));
  CHECK(zero.done());
  CHECK(zero.begin() == zero.end());
}

TEST_CASE("pager: errors surface: exception from range-for, result from next_page, retry works", "[query][pager]") {
  harness h;
  h.page(0, 1, std::string("cA"), std::string("cjE"));
  h.t->push(403, "<Error><Code>AuthorizationFailure</Code><Message>no</Message></Error>");
  h.page(1, 2);
  auto p = h.tc.query(query::row_range("p"));
  std::vector<std::string> got;
  try {
    for (auto& e : p) got.push_back(e.row_key);
    FAIL("no exception");
  } catch (const az::exception& e) {
    CHECK(e.error().code == az::errc::authentication);
  }
  CHECK(got == std::vector<std::string>{"r0"});
  // Nothing moved: the failed page is fetched again.
  auto again = p.next_page().value();
  CHECK(row_keys(again.items) == std::vector<std::string>{"r1"});
  CHECK(h.url(2) == h.url(1));
  CHECK(p.done());
}

TEST_CASE("pager: an empty page repeating its own continuation is an error, not a loop", "[query][pager]") {
  harness h;
  h.page(0, 0, std::string("cA"), std::string("cjE"));
  h.page(0, 0, std::string("cA"), std::string("cjE"));
  auto p = h.tc.query(query::row_range("p"));
  REQUIRE(p.next_page());
  auto r = p.next_page();
  REQUIRE_FALSE(r);
  CHECK(r.error().code == az::errc::invalid_response);
}

TEST_CASE("typed query: mapped $select, nometadata without an ETag member, straight decode", "[query][typed]") {
  harness h;
  h.t->push(200, R"({"value":[{"PartitionKey":"p","RowKey":"a","I64":"12","S":"x","Other":1},)"
                 R"({"PartitionKey":"p","RowKey":"b","I64":"-1"}]})");
  auto p = h.tc.query<typed_models::everything_view>(query::row_range("p").page_size(10));
  auto pg = p.next_page().value();
  REQUIRE(pg.items.size() == 2);
  CHECK(pg.items[0].i64 == 12);
  CHECK(pg.items[0].s == std::string("x"));
  CHECK(pg.items[1].rk == "b");
  CHECK_FALSE(pg.items[1].s);
  auto rq = h.t->requests().at(0);
  CHECK(rq.headers.get("Accept") == "application/json;odata=nometadata");
  CHECK(rq.url ==
        "http://127.0.0.1:10002/devstoreaccount1/orders()?$filter=PartitionKey%20eq%20%27p%27&$select=PartitionKey%"
        "2CRowKey%2CI64%2CS&$top=10");
}

TEST_CASE("typed query: minimalmetadata with an ETag member; annotations checked in any order", "[query][typed]") {
  harness h;
  const std::string ok_fields =
      R"("S":"s","B":false,"I32":1,"D":1.5,"T@odata.type":"Edm.DateTime","T":"2026-01-02T03:04:05.1234567Z",)"
      R"("G":"c9da6455-213d-42c9-9a79-3e9149a57833","G@odata.type":"Edm.Guid","Bin@odata.type":"Edm.Binary","Bin":"",)"
      R"("Color":3,"Size":"Large","Huge@odata.type":"Edm.Int64","Huge":"1099511627776")";
  SECTION("a good entity (annotation before and after the value)") {
    h.t->push(200, R"({"value":[{"odata.etag":"W/\"1\"","PartitionKey":"p","RowKey":"r","I64":"5","I64@odata.type":"Edm.Int64",)" +
                       ok_fields + "}]}");
    auto p = h.tc.query<typed_models::everything>(query::row_range("p"));
    auto pg = p.next_page().value();
    REQUIRE(pg.items.size() == 1);
    CHECK(pg.items[0].etag.str() == "W/\"1\"");
    CHECK(pg.items[0].i64 == 5);
    CHECK(pg.items[0].bin.empty());
    CHECK(h.t->requests().at(0).headers.get("Accept") == "application/json;odata=minimalmetadata");
  }
  SECTION("an Int64 member stored as an unannotated String") {
    h.t->push(200, R"({"value":[{"PartitionKey":"p","RowKey":"r","I64":"5",)" + ok_fields + "}]}");
    auto r = h.tc.query<typed_models::everything>(query::row_range("p")).next_page();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == az::errc::mapping);
    CHECK(r.error().message == "property 'I64': stored as Edm.String, which does not fit the member type std::int64_t");
  }
  SECTION("a String member annotated as Int64") {
    h.t->push(200, R"({"value":[{"PartitionKey":"p","RowKey":"r","I64":"5","I64@odata.type":"Edm.Int64",)" + ok_fields +
                       R"(,"S@odata.type":"Edm.Int64"}]})");
    auto r = h.tc.query<typed_models::everything>(query::row_range("p")).next_page();
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "property 'S': stored as Edm.Int64, which does not fit the member type std::string");
  }
  SECTION("a Double where an Int32 is mapped") {
    h.t->push(200, R"({"value":[{"PartitionKey":"p","RowKey":"r","I64":"5","I64@odata.type":"Edm.Int64",)" + ok_fields +
                       R"(,"I32":2.5}]})");
    auto r = h.tc.query<typed_models::everything>(query::row_range("p")).next_page();
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "property 'I32': stored as Edm.Double, which does not fit the member type std::int32_t");
  }
  SECTION("a null for a non-optional member") {
    h.t->push(200, R"({"value":[{"PartitionKey":"p","RowKey":"r","I64":"5","I64@odata.type":"Edm.Int64",)" + ok_fields +
                       R"(,"B":null}]})");
    auto r = h.tc.query<typed_models::everything>(query::row_range("p")).next_page();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith("property 'B': is null"));
  }
}
