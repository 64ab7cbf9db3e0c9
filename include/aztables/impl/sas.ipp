// SPDX-License-Identifier: MIT
// SAS builders (inline in header-only mode, compiled once by <aztables/src.hpp>).
#pragma once

#include <aztables/detail/codec.hpp>
#include <aztables/detail/hmac.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/sas_token.hpp>
#include <aztables/detail/url.hpp>
#include <aztables/sas.hpp>
#include <aztables/table_client.hpp>

#include <cstdint>
#include <optional>
#include <string>

AZTABLES_NAMESPACE_BEGIN

AZTABLES_DECL std::string table_sas_permissions::str() const {
  std::string s;
  if (query) s += 'r';
  if (add) s += 'a';
  if (update) s += 'u';
  if (erase) s += 'd';
  return s;
}

AZTABLES_DECL result<table_sas_permissions> table_sas_permissions::parse(std::string_view s) {
  table_sas_permissions p;
  for (char c : s) {
    bool* flag = c == 'r' ? &p.query : c == 'a' ? &p.add : c == 'u' ? &p.update : c == 'd' ? &p.erase : nullptr;
    if (!flag) return error::invalid_argument("table SAS permissions", "may contain only the letters r, a, u, d");
    if (*flag) return error::invalid_argument("table SAS permissions", "name a permission twice");
    *flag = true;
  }
  return p;
}

AZTABLES_DECL std::string account_sas_permissions::str() const {
  std::string s;
  if (read) s += 'r';
  if (write) s += 'w';
  if (erase) s += 'd';
  if (list) s += 'l';
  if (add) s += 'a';
  if (create) s += 'c';
  if (update) s += 'u';
  return s;
}

AZTABLES_DECL std::string account_sas_resource_types::str() const {
  std::string s;
  if (service) s += 's';
  if (container) s += 'c';
  if (object) s += 'o';
  return s;
}

namespace detail {

/// "2030-01-01T00:00:00Z": the SAS time form (whole seconds, UTC).
inline std::string format_sas_time(std::chrono::system_clock::time_point t) {
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  std::string s = format_iso8601(std::chrono::time_point_cast<ticks>(secs));
  return s.substr(0, 19) + "Z";
}

/// Parses a dotted-quad IPv4 address (no leading zeros).
inline std::optional<std::uint32_t> parse_ipv4(std::string_view s) noexcept {
  std::uint32_t addr = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (s.empty() || s.front() != '.') return std::nullopt;
      s.remove_prefix(1);
    }
    std::size_t n = 0;
    unsigned v = 0;
    while (n < s.size() && n < 4 && s[n] >= '0' && s[n] <= '9') v = v * 10 + static_cast<unsigned>(s[n++] - '0');
    if (n == 0 || n > 3 || v > 255 || (n > 1 && s[0] == '0')) return std::nullopt;
    addr = (addr << 8) | v;
    s.remove_prefix(n);
  }
  if (!s.empty()) return std::nullopt;
  return addr;
}

inline std::optional<error> check_sas_ip_range(std::string_view r) {
  if (r.empty()) return std::nullopt;
  const char* rule = "must be an IPv4 address (168.1.5.65) or an ascending range (168.1.5.60-168.1.5.70)";
  std::size_t dash = r.find('-');
  auto lo = parse_ipv4(r.substr(0, dash));
  if (!lo) return error::invalid_argument("ip_range", rule);
  if (dash != std::string_view::npos) {
    auto hi = parse_ipv4(r.substr(dash + 1));
    if (!hi || *hi < *lo) return error::invalid_argument("ip_range", rule);
  }
  return std::nullopt;
}

inline std::optional<error> check_sas_version(std::string_view v) {
  bool shape = v.size() == 10 && v[4] == '-' && v[7] == '-';
  for (std::size_t i = 0; shape && i < v.size(); ++i)
    if (i != 4 && i != 7 && (v[i] < '0' || v[i] > '9')) shape = false;
  if (!shape) return error::invalid_argument("version", "must be a service version of the form YYYY-MM-DD");
  if (v < std::string_view("2015-04-05"))
    return error::invalid_argument("version", "must be 2015-04-05 or later (earlier SAS layouts are not supported)");
  return std::nullopt;
}

/// The checks shared by both builders: start/expiry order and "not in the
/// past", IP range, version, and a usable key. Fills `mac`.
inline std::optional<error> check_sas_common(const shared_key_credential& key,
                                             const std::optional<std::chrono::system_clock::time_point>& starts_on,
                                             const std::optional<std::chrono::system_clock::time_point>& expires_on,
                                             const std::function<std::chrono::system_clock::time_point()>& clock,
                                             std::string_view ip_range, std::string_view version,
                                             std::optional<hmac_sha256>& mac) {
  if (key.account_name().empty()) return error::invalid_argument("account name", "is empty");
  binary raw;
  if (key.secret_base64_key().empty() || !base64_decode_to(key.secret_base64_key(), raw))
    return error::invalid_argument("account key", "is not valid base64 (value not shown)");
  if (expires_on) {
    const auto now = std::chrono::floor<std::chrono::seconds>(clock ? clock() : std::chrono::system_clock::now());
    const auto exp = std::chrono::floor<std::chrono::seconds>(*expires_on);
    if (exp <= now)
      return error::invalid_argument("expires_on", "is not in the future (" + format_sas_time(*expires_on) +
                                                       " <= now " + format_sas_time(now) + ")");
    if (starts_on && exp <= std::chrono::floor<std::chrono::seconds>(*starts_on))
      return error::invalid_argument("expires_on", "must be after starts_on (" + format_sas_time(*starts_on) + ")");
  }
  if (auto e = check_sas_ip_range(ip_range)) return e;
  if (auto e = check_sas_version(version)) return e;
  mac.emplace(raw);
  return std::nullopt;
}

inline void append_sas_param(std::string& token, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  if (!token.empty()) token += '&';
  token.append(name.data(), name.size());
  token += '=';
  percent_encode_to(token, value);
}

inline std::string sas_signature(hmac_sha256& mac, std::string_view string_to_sign) {
  auto digest = mac.sign(string_to_sign);
  std::string sig;
  base64_encode_to(sig, digest.data(), digest.size());
  return sig;
}

}  // namespace detail

AZTABLES_DECL result<std::string> make_table_sas(const shared_key_credential& key, const table_sas_options& o) {
  if (auto v = validate_table_name(o.table_name); !v) return std::move(v).error();
  if (o.policy_id.empty()) {
    if (!o.permissions.any())
      return error::invalid_argument("permissions", "grant nothing; set at least one (or name a stored policy in "
                                                    "policy_id)");
    if (!o.expires_on)
      return error::invalid_argument("expires_on", "is required when no stored policy (policy_id) is named");
  } else if (o.policy_id.size() > 64) {
    return error::invalid_argument("policy_id", "is longer than 64 characters");
  }
  for (char c : o.policy_id)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return error::invalid_argument("policy_id", "contains a control character");
  if (!o.start_row_key.empty() && o.start_partition_key.empty())
    return error::invalid_argument("start_row_key", "needs start_partition_key");
  if (!o.end_row_key.empty() && o.end_partition_key.empty())
    return error::invalid_argument("end_row_key", "needs end_partition_key");
  const std::pair<const char*, const std::string*> keys[] = {{"start_partition_key", &o.start_partition_key},
                                                             {"start_row_key", &o.start_row_key},
                                                             {"end_partition_key", &o.end_partition_key},
                                                             {"end_row_key", &o.end_row_key}};
  for (const auto& k : keys)
    if (!k.second->empty())
      if (auto e = detail::check_key(k.first, *k.second)) return std::move(*e);
  if (!o.start_partition_key.empty() && !o.end_partition_key.empty()) {
    int c = detail::compare_keys(o.start_partition_key, o.end_partition_key);
    if (c > 0 || (c == 0 && !o.start_row_key.empty() && !o.end_row_key.empty() &&
                  detail::compare_keys(o.start_row_key, o.end_row_key) > 0))
      return error::invalid_argument("key range", "starts after it ends (start keys > end keys)");
  }
  std::optional<detail::hmac_sha256> mac;
  if (auto e = detail::check_sas_common(key, o.starts_on, o.expires_on, o.clock, o.ip_range, o.version, mac))
    return std::move(*e);

  const std::string sp = o.permissions.str();
  const std::string st = o.starts_on ? detail::format_sas_time(*o.starts_on) : std::string();
  const std::string se = o.expires_on ? detail::format_sas_time(*o.expires_on) : std::string();
  const std::string spr = o.protocol == sas_protocol::https ? "https" : "https,http";
  std::string table_lower = o.table_name;
  for (auto& c : table_lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');

  std::string to_sign;
  to_sign.reserve(256);
  for (const std::string* part : {&sp, &st, &se}) {
    to_sign += *part;
    to_sign += '\n';
  }
  to_sign += "/table/" + key.account_name() + "/" + table_lower + "\n";
  for (const std::string* part : {&o.policy_id, &o.ip_range, &spr, &o.version, &o.start_partition_key,
                                  &o.start_row_key, &o.end_partition_key}) {
    to_sign += *part;
    to_sign += '\n';
  }
  to_sign += o.end_row_key;

  std::string token;
  detail::append_sas_param(token, "sv", o.version);
  detail::append_sas_param(token, "tn", o.table_name);
  detail::append_sas_param(token, "sp", sp);
  detail::append_sas_param(token, "st", st);
  detail::append_sas_param(token, "se", se);
  detail::append_sas_param(token, "sip", o.ip_range);
  detail::append_sas_param(token, "spr", spr);
  detail::append_sas_param(token, "si", o.policy_id);
  detail::append_sas_param(token, "spk", o.start_partition_key);
  detail::append_sas_param(token, "srk", o.start_row_key);
  detail::append_sas_param(token, "epk", o.end_partition_key);
  detail::append_sas_param(token, "erk", o.end_row_key);
  detail::append_sas_param(token, "sig", detail::sas_signature(*mac, to_sign));
  return token;
}

AZTABLES_DECL result<std::string> make_account_sas(const shared_key_credential& key, const account_sas_options& o) {
  if (!o.permissions.any()) return error::invalid_argument("permissions", "grant nothing; set at least one");
  if (!o.resource_types.any())
    return error::invalid_argument("resource_types", "name no level; set service, container and/or object");
  if (!o.expires_on) return error::invalid_argument("expires_on", "is required for an account SAS");
  std::optional<detail::hmac_sha256> mac;
  if (auto e = detail::check_sas_common(key, o.starts_on, o.expires_on, o.clock, o.ip_range, o.version, mac))
    return std::move(*e);

  const std::string sp = o.permissions.str();
  const std::string srt = o.resource_types.str();
  const std::string st = o.starts_on ? detail::format_sas_time(*o.starts_on) : std::string();
  const std::string se = detail::format_sas_time(*o.expires_on);
  const std::string spr = o.protocol == sas_protocol::https ? "https" : "https,http";

  // account \n sp \n ss \n srt \n st \n se \n sip \n spr \n sv \n [ses \n]
  std::string to_sign = key.account_name() + "\n" + sp + "\nt\n" + srt + "\n" + st + "\n" + se + "\n" + o.ip_range +
                        "\n" + spr + "\n" + o.version + "\n";
  if (o.version >= "2020-12-06") to_sign += "\n";  // signed encryption scope (none)

  std::string token;
  detail::append_sas_param(token, "sv", o.version);
  detail::append_sas_param(token, "ss", "t");
  detail::append_sas_param(token, "srt", srt);
  detail::append_sas_param(token, "sp", sp);
  detail::append_sas_param(token, "st", st);
  detail::append_sas_param(token, "se", se);
  detail::append_sas_param(token, "sip", o.ip_range);
  detail::append_sas_param(token, "spr", spr);
  detail::append_sas_param(token, "sig", detail::sas_signature(*mac, to_sign));
  return token;
}

AZTABLES_NAMESPACE_END
