// SPDX-License-Identifier: MIT
// Internal: reading a SAS token (the query string a SAS builder or the portal
// makes) and the PartitionKey/RowKey range a table SAS may carry. Std-only.
#pragma once

#include <aztables/config.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/detail/url.hpp>
#include <aztables/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// One decoded `name=value` pair of a SAS token.
struct sas_param {
  std::string name;
  std::string value;
};

/// The parameters of a SAS token, decoded, in token order.
struct sas_token {
  std::vector<sas_param> params;

  const std::string* find(std::string_view name) const noexcept {
    for (const auto& p : params)
      if (p.name == name) return &p.value;
    return nullptr;
  }
  std::string_view get(std::string_view name) const noexcept {
    const std::string* v = find(name);
    return v ? std::string_view(*v) : std::string_view();
  }
};

/// Parses "sv=...&sp=...&sig=..." (a leading '?' is allowed). Errors never
/// echo a value: the token is a secret. Rules: non-empty, `name=value`
/// segments with non-empty names, no name twice, a non-empty `sig`.
inline result<sas_token> parse_sas_token(std::string_view token, std::string_view field = "SAS token") {
  auto bad = [&](std::string rule) { return error::invalid_argument(std::string(field), std::move(rule)); };
  if (!token.empty() && token.front() == '?') token.remove_prefix(1);
  if (token.empty()) return bad("is empty");
  if (token.size() > 16384) return bad("is longer than 16384 characters");
  sas_token t;
  std::size_t index = 0;
  while (!token.empty()) {
    std::size_t amp = token.find('&');
    std::string_view seg = token.substr(0, amp);
    token = amp == std::string_view::npos ? std::string_view() : token.substr(amp + 1);
    ++index;
    if (seg.empty()) continue;
    for (char c : seg) {
      const auto u = static_cast<unsigned char>(c);
      if (u <= 0x20 || u >= 0x7f || c == '#')
        return bad("parameter " + std::to_string(index) + " contains a character that must be percent-encoded "
                   "(value not shown)");
    }
    std::size_t eq = seg.find('=');
    if (eq == 0 || eq == std::string_view::npos)
      return bad("parameter " + std::to_string(index) + " is not of the form name=value (value not shown)");
    std::string name = percent_decode(seg.substr(0, eq));
    if (t.find(name))
      return bad("parameter '" + name.substr(0, 16) + "' appears twice");
    t.params.push_back({std::move(name), percent_decode(seg.substr(eq + 1))});
  }
  if (t.params.empty()) return bad("is empty");
  if (t.get("sig").empty()) return bad("has no sig= parameter");
  return t;
}

/// Compares two keys the way the service orders them: ordinal over UTF-16
/// code units. (Byte order of UTF-8 differs from it only when a character
/// above U+FFFF meets one in U+E000-U+FFFF.) Invalid UTF-8 falls back to bytes.
inline int compare_keys(std::string_view a, std::string_view b) noexcept {
  if (!scan_utf8(a).valid || !scan_utf8(b).valid) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  // One UTF-16 code unit at a time; `low` holds the second unit of a pair.
  struct cursor {
    std::string_view s;
    std::size_t i = 0;
    std::uint32_t low = 0;
    bool next(std::uint32_t& u) noexcept {
      if (low) {
        u = low;
        low = 0;
        return true;
      }
      if (i >= s.size()) return false;
      std::uint32_t cp = 0;
      next_code_point(s, i, cp);  // valid: checked above
      if (cp >= 0x10000) {
        u = 0xd800 + ((cp - 0x10000) >> 10);
        low = 0xdc00 + ((cp - 0x10000) & 0x3ff);
      } else {
        u = cp;
      }
      return true;
    }
  };
  cursor x{a}, y{b};
  while (true) {
    std::uint32_t ua = 0, ub = 0;
    const bool ha = x.next(ua), hb = y.next(ub);
    if (!ha || !hb) return ha == hb ? 0 : (ha ? 1 : -1);
    if (ua != ub) return ua < ub ? -1 : 1;
  }
}

/// The PartitionKey/RowKey range of a table SAS (spk, srk, epk, erk); an
/// empty string is "no bound". The service's rules:
///   spk:      PartitionKey >= spk
///   spk, srk: PartitionKey > spk, or PartitionKey == spk and RowKey >= srk
///   epk:      PartitionKey <= epk
///   epk, erk: PartitionKey < epk, or PartitionKey == epk and RowKey <= erk
struct sas_key_range {
  std::string spk, srk, epk, erk;

  bool empty() const noexcept { return spk.empty() && srk.empty() && epk.empty() && erk.empty(); }

  bool contains(std::string_view pk, std::string_view rk) const noexcept {
    if (!spk.empty()) {
      int c = compare_keys(pk, spk);
      if (c < 0) return false;
      if (c == 0 && !srk.empty() && compare_keys(rk, srk) < 0) return false;
    }
    if (!epk.empty()) {
      int c = compare_keys(pk, epk);
      if (c > 0) return false;
      if (c == 0 && !erk.empty() && compare_keys(rk, erk) > 0) return false;
    }
    return true;
  }

  /// "[spk,srk .. epk,erk]" for error messages (the bounds are not secret).
  std::string describe() const {
    auto side = [](const std::string& p, const std::string& r) {
      if (p.empty()) return std::string("*");
      std::string s = "'" + p.substr(0, 64) + "'";
      if (!r.empty()) s += ",'" + r.substr(0, 64) + "'";
      return s;
    };
    return "[" + side(spk, srk) + " .. " + side(epk, erk) + "]";
  }

  static sas_key_range from(const sas_token& t) {
    sas_key_range r;
    r.spk = t.get("spk");
    r.srk = t.get("srk");
    r.epk = t.get("epk");
    r.erk = t.get("erk");
    return r;
  }
};

/// Reads the keys from an entity path "table(PartitionKey='p',RowKey='r')"
/// as the core builds it (quotes doubled, then percent-encoded). False if
/// `path` is not such a path.
inline bool keys_from_entity_path(std::string_view path, std::string& pk, std::string& rk) {
  constexpr std::string_view a = "(PartitionKey='", b = "',RowKey='", c = "')";
  std::size_t p = path.find(a);
  if (p == std::string_view::npos || path.size() < c.size() || path.substr(path.size() - c.size()) != c) return false;
  std::string_view rest = path.substr(p + a.size(), path.size() - c.size() - p - a.size());
  std::size_t q = rest.find(b);
  if (q == std::string_view::npos) return false;
  auto undouble = [](std::string s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      out += s[i];
      if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') ++i;
    }
    return out;
  };
  pk = undouble(percent_decode(rest.substr(0, q)));
  rk = undouble(percent_decode(rest.substr(q + b.size())));
  return true;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
