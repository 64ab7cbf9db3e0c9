// SAS builders: signatures Azurite verified (AZURITE-NOTES.md, transcript 16),
// parameter encoding, every validation rule, token parsing and key ranges.
#include <catch2/catch.hpp>
#include <test_support.hpp>

#include <aztables/detail/hmac.hpp>
#include <aztables/detail/sas_token.hpp>

using namespace std::chrono;

namespace {

system_clock::time_point utc(int y, unsigned m, unsigned d, int hh = 0, int mm = 0, int ss = 0) {
  return system_clock::time_point(seconds(aztables::detail::days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss));
}

aztables::shared_key_credential dev_key() {
  return aztables::shared_key_credential(std::string(aztables::development_account_name),
                                         std::string(aztables::development_account_key));
}

auto fixed_clock(system_clock::time_point t) {
  return [t] { return t; };
}

}  // namespace

TEST_CASE("account SAS: signature Azurite verified (sv=2019-02-02, ss=t, srt=sco, sp=rl)", "[sas]") {
  aztables::account_sas_options o;
  o.permissions.read = true;
  o.permissions.list = true;
  o.resource_types = {true, true, true};
  o.expires_on = utc(2030, 1, 1);
  o.protocol = aztables::sas_protocol::https_and_http;
  o.clock = fixed_clock(utc(2026, 11, 21));
  auto token = aztables::make_account_sas(dev_key(), o);
  REQUIRE(token);
  CHECK(*token ==
        "sv=2019-02-02&ss=t&srt=sco&sp=rl&se=2030-01-01T00%3A00%3A00Z&spr=https%2Chttp"
        "&sig=LwU%2BL0siNbunPZpfLAb5mxUl0pdJOOgKVG1pTloKIWI%3D");
}

TEST_CASE("table SAS: signature Azurite verified (tn=probe, sp=r)", "[sas]") {
  aztables::table_sas_options o;
  o.table_name = "probe";
  o.permissions.query = true;
  o.expires_on = utc(2030, 1, 1);
  o.protocol = aztables::sas_protocol::https_and_http;
  o.clock = fixed_clock(utc(2026, 11, 21));
  auto token = aztables::make_table_sas(dev_key(), o);
  REQUIRE(token);
  CHECK(*token ==
        "sv=2019-02-02&tn=probe&sp=r&se=2030-01-01T00%3A00%3A00Z&spr=https%2Chttp"
        "&sig=QSHGr3VQWMyA%2BYpKP2TumYya8DaMeZD8YsUaHcyTnn4%3D");
}

TEST_CASE("table SAS: the table name is signed in lower case, sent as given", "[sas]") {
  aztables::table_sas_options o;
  o.table_name = "Probe";
  o.permissions.query = true;
  o.expires_on = utc(2030, 1, 1);
  o.protocol = aztables::sas_protocol::https_and_http;
  o.clock = fixed_clock(utc(2026, 11, 21));
  auto token = aztables::make_table_sas(dev_key(), o).value();
  CHECK(token.find("tn=Probe&") != std::string::npos);
  CHECK(token.find("sig=QSHGr3VQWMyA%2BYpKP2TumYya8DaMeZD8YsUaHcyTnn4%3D") != std::string::npos);
}

TEST_CASE("table SAS: every optional field is encoded and signed", "[sas]") {
  aztables::table_sas_options o;
  o.table_name = "orders";
  o.permissions = aztables::table_sas_permissions::all();
  o.starts_on = utc(2026, 11, 21, 12, 0, 0) + milliseconds(999);  // truncated to seconds
  o.expires_on = utc(2026, 11, 22, 12, 0, 0);
  o.ip_range = "10.0.0.1-10.0.0.255";
  o.start_partition_key = "a b";
  o.start_row_key = "r:1";
  o.end_partition_key = "c&d";
  o.end_row_key = "z";
  o.policy_id = "policy+1";
  o.clock = fixed_clock(utc(2026, 11, 21));
  auto token = aztables::make_table_sas(dev_key(), o).value();
  CHECK(token.rfind(
            "sv=2019-02-02&tn=orders&sp=raud&st=2026-11-21T12%3A00%3A00Z&se=2026-11-22T12%3A00%3A00Z"
            "&sip=10.0.0.1-10.0.0.255&spr=https&si=policy%2B1&spk=a%20b&srk=r%3A1&epk=c%26d&erk=z&sig=",
            0) == 0);
  // The same string-to-sign computed independently.
  std::string to_sign =
      "raud\n2026-11-21T12:00:00Z\n2026-11-22T12:00:00Z\n/table/devstoreaccount1/orders\npolicy+1\n"
      "10.0.0.1-10.0.0.255\nhttps\n2019-02-02\na b\nr:1\nc&d\nz";
  aztables::binary key;
  REQUIRE(aztables::detail::base64_decode_to(aztables::development_account_key, key));
  aztables::detail::hmac_sha256 mac(key);
  auto d = mac.sign(to_sign);
  std::string sig;
  aztables::detail::base64_encode_to(sig, d.data(), d.size());
  CHECK(token.substr(token.find("&sig=") + 5) == aztables::detail::percent_encode(sig));
  // And it parses back.
  auto parsed = aztables::detail::parse_sas_token(token).value();
  CHECK(parsed.get("spk") == "a b");
  CHECK(parsed.get("epk") == "c&d");
  CHECK(parsed.get("sig") == sig);
}

TEST_CASE("account SAS: 2020-12-06 and later sign the encryption-scope line", "[sas]") {
  aztables::account_sas_options o;
  o.permissions.read = true;
  o.resource_types.object = true;
  o.expires_on = utc(2030, 1, 1);
  o.version = "2020-12-06";
  o.clock = fixed_clock(utc(2026, 11, 21));
  auto token = aztables::make_account_sas(dev_key(), o).value();
  aztables::binary key;
  REQUIRE(aztables::detail::base64_decode_to(aztables::development_account_key, key));
  aztables::detail::hmac_sha256 mac(key);
  auto d = mac.sign("devstoreaccount1\nr\nt\no\n\n2030-01-01T00:00:00Z\n\nhttps\n2020-12-06\n\n");
  std::string sig;
  aztables::detail::base64_encode_to(sig, d.data(), d.size());
  CHECK(token == "sv=2020-12-06&ss=t&srt=o&sp=r&se=2030-01-01T00%3A00%3A00Z&spr=https&sig=" +
                     aztables::detail::percent_encode(sig));
}

TEST_CASE("permission strings are in service order and parse back", "[sas]") {
  aztables::account_sas_permissions a;
  a.update = a.create = a.add = a.list = a.erase = a.write = a.read = true;
  CHECK(a.str() == "rwdlacu");
  aztables::table_sas_permissions t;
  t.erase = t.query = true;
  CHECK(t.str() == "rd");
  auto p = aztables::table_sas_permissions::parse("dura").value();
  CHECK(p.str() == "raud");
  CHECK(aztables::table_sas_permissions::parse("rr").error().code == aztables::errc::invalid_argument);
  CHECK(aztables::table_sas_permissions::parse("rw").error().message.find("r, a, u, d") != std::string::npos);
  CHECK(aztables::account_sas_resource_types{true, false, true}.str() == "so");
}

TEST_CASE("SAS builders refuse bad options with invalid_argument naming the field", "[sas]") {
  const auto now = utc(2026, 11, 21);
  auto table = [&] {
    aztables::table_sas_options o;
    o.table_name = "orders";
    o.permissions.query = true;
    o.expires_on = now + hours(1);
    o.clock = fixed_clock(now);
    return o;
  };
  auto expect = [](const aztables::result<std::string>& r, const std::string& field) {
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_argument);
    CHECK(r.error().message.rfind(field, 0) == 0);
    CHECK(r.error().message.find(std::string(aztables::development_account_key)) == std::string::npos);
  };
  REQUIRE(aztables::make_table_sas(dev_key(), table()));

  auto o = table();
  o.expires_on = now - seconds(1);
  expect(aztables::make_table_sas(dev_key(), o), "expires_on");  // in the past
  o = table();
  o.expires_on = now;
  expect(aztables::make_table_sas(dev_key(), o), "expires_on");  // exactly now is not the future
  o = table();
  o.starts_on = now + hours(2);
  expect(aztables::make_table_sas(dev_key(), o), "expires_on");  // before the start
  o = table();
  o.expires_on.reset();
  expect(aztables::make_table_sas(dev_key(), o), "expires_on");  // missing without a policy
  o = table();
  o.permissions = {};
  expect(aztables::make_table_sas(dev_key(), o), "permissions");
  o = table();
  o.table_name = "no-dashes";
  expect(aztables::make_table_sas(dev_key(), o), "table name");
  o = table();
  o.policy_id = std::string(65, 'p');
  expect(aztables::make_table_sas(dev_key(), o), "policy_id");
  for (const char* bad : {"1.2.3", "1.2.3.256", "01.2.3.4", "1.2.3.4-1.2.3.3", "1.2.3.4-", "::1", "a.b.c.d", "1.2.3.4 "}) {
    o = table();
    o.ip_range = bad;
    INFO(bad);
    expect(aztables::make_table_sas(dev_key(), o), "ip_range");
  }
  for (const char* bad : {"2019-2-02", "2014-02-14", "", "2019-02-02x"}) {
    o = table();
    o.version = bad;
    INFO(bad);
    expect(aztables::make_table_sas(dev_key(), o), "version");
  }
  o = table();
  o.start_row_key = "r";
  expect(aztables::make_table_sas(dev_key(), o), "start_row_key");
  o = table();
  o.end_row_key = "r";
  expect(aztables::make_table_sas(dev_key(), o), "end_row_key");
  o = table();
  o.start_partition_key = "b";
  o.end_partition_key = "a";
  expect(aztables::make_table_sas(dev_key(), o), "key range");
  o = table();
  o.start_partition_key = "a";
  o.start_row_key = "2";
  o.end_partition_key = "a";
  o.end_row_key = "1";
  expect(aztables::make_table_sas(dev_key(), o), "key range");
  o = table();
  o.end_partition_key = "a/b";
  expect(aztables::make_table_sas(dev_key(), o), "end_partition_key");

  // A stored policy may supply permissions and expiry.
  o = table();
  o.permissions = {};
  o.expires_on.reset();
  o.policy_id = "readers";
  auto token = aztables::make_table_sas(dev_key(), o).value();
  CHECK(token.find("si=readers") != std::string::npos);
  CHECK(token.find("sp=") == std::string::npos);
  CHECK(token.find("se=") == std::string::npos);

  // A bad key: named, never shown.
  aztables::shared_key_credential bad_key("devstoreaccount1", "not*base64");
  expect(aztables::make_table_sas(bad_key, table()), "account key");
  aztables::shared_key_credential no_account("", std::string(aztables::development_account_key));
  expect(aztables::make_table_sas(no_account, table()), "account name");

  aztables::account_sas_options a;
  a.permissions.read = true;
  a.resource_types.object = true;
  a.expires_on = now + hours(1);
  a.clock = fixed_clock(now);
  REQUIRE(aztables::make_account_sas(dev_key(), a));
  auto a2 = a;
  a2.permissions = {};
  expect(aztables::make_account_sas(dev_key(), a2), "permissions");
  a2 = a;
  a2.resource_types = {};
  expect(aztables::make_account_sas(dev_key(), a2), "resource_types");
  a2 = a;
  a2.expires_on.reset();
  expect(aztables::make_account_sas(dev_key(), a2), "expires_on");
  a2 = a;
  a2.expires_on = now - hours(1);
  expect(aztables::make_account_sas(dev_key(), a2), "expires_on");
}

TEST_CASE("SAS token parsing: decoded values, never echoed on error", "[sas]") {
  auto t = aztables::detail::parse_sas_token("?sv=2019-02-02&sp=r&sig=abc%2Bdef%3D").value();
  CHECK(t.get("sig") == "abc+def=");
  CHECK(t.get("sp") == "r");
  CHECK(t.find("tn") == nullptr);
  for (const char* bad : {"", "?", "sv=1", "sig=", "sig=SECRETVALUE&sig=SECRETVALUE", "=x&sig=SECRETVALUE",
                          "sig=SECRET VALUE", "sig=SECRETVALUE#frag", "noequals&sig=SECRETVALUE"}) {
    auto r = aztables::detail::parse_sas_token(bad);
    INFO(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == aztables::errc::invalid_argument);
    CHECK(r.error().message.find("SECRET") == std::string::npos);
  }
}

TEST_CASE("SAS key ranges follow the service's composite rules and UTF-16 order", "[sas]") {
  aztables::detail::sas_key_range r{"b", "5", "d", "2"};
  CHECK_FALSE(r.contains("a", "9"));
  CHECK_FALSE(r.contains("b", "4"));
  CHECK(r.contains("b", "5"));
  CHECK(r.contains("c", ""));
  CHECK(r.contains("c", "zzz"));
  CHECK(r.contains("d", "2"));
  CHECK_FALSE(r.contains("d", "3"));
  CHECK_FALSE(r.contains("e", ""));
  aztables::detail::sas_key_range pk_only{"b", "", "b", ""};
  CHECK(pk_only.contains("b", "anything"));
  CHECK_FALSE(pk_only.contains("ba", ""));
  CHECK(aztables::detail::sas_key_range{}.contains("x", "y"));
  // U+FFFD (one UTF-16 unit, EF BF BD) sorts after U+1F600 (a surrogate pair,
  // D83D DE00) in UTF-16 order, although its UTF-8 bytes sort before.
  CHECK(aztables::detail::compare_keys("\xF0\x9F\x98\x80", "\xEF\xBF\xBD") < 0);
  CHECK(aztables::detail::compare_keys("abc", "abd") < 0);
  CHECK(aztables::detail::compare_keys("ab", "abc") < 0);
  CHECK(aztables::detail::compare_keys("abc", "abc") == 0);
  std::string pk, rk;
  REQUIRE(aztables::detail::keys_from_entity_path(aztables::detail::entity_path("t", "it's a/b", "r%'"), pk, rk));
  CHECK(pk == "it's a/b");
  CHECK(rk == "r%'");
  CHECK_FALSE(aztables::detail::keys_from_entity_path("t()", pk, rk));
}
