// SPDX-License-Identifier: MIT
// Internal: the <SignedIdentifiers> XML of Get/Set Table ACL, written and read
// without an XML library. The reader accepts what the service and Azurite
// send (declaration, whitespace, empty or self-closing elements, the five
// predefined entities and numeric character references) and rejects the
// rest as invalid_response. Std-only.
#pragma once

#include <aztables/access_policy.hpp>
#include <aztables/detail/codec.hpp>
#include <aztables/detail/url.hpp>  // hex_value
#include <aztables/error.hpp>

#include <cstdint>
#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline void append_xml_text(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
}

/// "2030-01-01T00:00:00.0000000Z" (the form the REST reference shows).
inline std::string format_acl_time(std::chrono::system_clock::time_point t) {
  return format_iso8601(std::chrono::time_point_cast<ticks>(std::chrono::floor<std::chrono::seconds>(t)));
}

/// The request body of Set Table ACL.
inline std::string write_signed_identifiers(const std::vector<signed_identifier>& ids) {
  std::string x = "<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers>";
  for (const auto& si : ids) {
    x += "<SignedIdentifier><Id>";
    append_xml_text(x, si.id);
    x += "</Id><AccessPolicy>";
    if (si.policy.starts_on) x += "<Start>" + format_acl_time(*si.policy.starts_on) + "</Start>";
    if (si.policy.expires_on) x += "<Expiry>" + format_acl_time(*si.policy.expires_on) + "</Expiry>";
    if (si.policy.permissions.any()) x += "<Permission>" + si.policy.permissions.str() + "</Permission>";
    x += "</AccessPolicy></SignedIdentifier>";
  }
  x += "</SignedIdentifiers>";
  return x;
}

/// A tiny pull reader over the element structure of a document.
class xml_cursor {
 public:
  explicit xml_cursor(std::string_view s) : s_(s) {}

  /// Skips the declaration, comments, processing instructions and whitespace.
  void skip_misc() {
    while (true) {
      skip_ws();
      if (starts("<?")) {
        std::size_t e = s_.find("?>", p_);
        p_ = e == std::string_view::npos ? s_.size() : e + 2;
      } else if (starts("<!--")) {
        std::size_t e = s_.find("-->", p_);
        p_ = e == std::string_view::npos ? s_.size() : e + 3;
      } else {
        return;
      }
    }
  }

  /// Reads an opening tag; `self_closing` tells whether it was `<x/>`.
  bool open(std::string& name, bool& self_closing) {
    skip_misc();
    if (!starts("<") || starts("</")) return false;
    std::size_t e = s_.find('>', p_);
    if (e == std::string_view::npos) return false;
    std::string_view tag = s_.substr(p_ + 1, e - p_ - 1);
    self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.remove_suffix(1);
    std::size_t sp = tag.find_first_of(" \t\r\n");
    name = std::string(tag.substr(0, sp));  // attributes (xmlns) are ignored
    if (name.empty()) return false;
    p_ = e + 1;
    return true;
  }

  /// True if the next thing is `</name>` (consumed).
  bool close(std::string_view name) {
    skip_misc();
    if (!starts("</")) return false;
    std::size_t e = s_.find('>', p_);
    if (e == std::string_view::npos) return false;
    std::string_view tag = s_.substr(p_ + 2, e - p_ - 2);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t' || tag.back() == '\r' || tag.back() == '\n'))
      tag.remove_suffix(1);
    if (tag != name) return false;
    p_ = e + 1;
    return true;
  }

  bool at_close() {
    skip_misc();
    return starts("</");
  }

  /// Reads character data up to the next '<', decoding entities.
  bool text(std::string& out) {
    out.clear();
    std::size_t e = s_.find('<', p_);
    if (e == std::string_view::npos) return false;
    std::string_view raw = s_.substr(p_, e - p_);
    p_ = e;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      std::size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos || semi - i > 10) return false;
      std::string_view ent = raw.substr(i + 1, semi - i - 1);
      if (ent == "amp") out += '&';
      else if (ent == "lt") out += '<';
      else if (ent == "gt") out += '>';
      else if (ent == "quot") out += '"';
      else if (ent == "apos") out += '\'';
      else if (ent.size() > 1 && ent[0] == '#') {
        std::uint32_t cp = 0;
        bool hex = ent[1] == 'x' || ent[1] == 'X';
        std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) return false;
        for (char c : digits) {
          int v = hex ? hex_value(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
          if (v < 0 || cp > 0x10ffff) return false;
          cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(v);
        }
        if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        append_utf8(out, cp);
      } else {
        return false;
      }
      i = semi;
    }
    return true;
  }

  /// Skips one whole element whose opening tag was just read.
  bool skip_element(const std::string& name, bool self_closing, int depth = 0) {
    if (self_closing) return true;
    if (depth > 16) return false;
    while (true) {
      if (close(name)) return true;
      skip_misc();
      if (p_ >= s_.size()) return false;
      if (starts("<")) {
        std::string child;
        bool sc = false;
        if (!open(child, sc) || !skip_element(child, sc, depth + 1)) return false;
      } else {
        std::string ignored;
        if (!text(ignored)) return false;
      }
    }
  }

  bool at_end() {
    skip_misc();
    return p_ >= s_.size();
  }

 private:
  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  void skip_ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r' || s_[p_] == '\n')) ++p_;
  }
  bool starts(std::string_view x) const { return s_.substr(p_, x.size()) == x; }

  std::string_view s_;
  std::size_t p_ = 0;
};

/// Parses the response body of Get Table ACL. An empty body (or an empty
/// <SignedIdentifiers/>) is an empty list.
inline result<std::vector<signed_identifier>> parse_signed_identifiers(std::string_view body) {
  auto bad = [](std::string what) { return error::make(errc::invalid_response, "access policies: " + std::move(what)); };
  std::vector<signed_identifier> out;
  xml_cursor x(body);
  if (x.at_end()) return out;
  std::string name;
  bool sc = false;
  if (!x.open(name, sc) || name != "SignedIdentifiers") return bad("the body is not a <SignedIdentifiers> document");
  if (sc) return x.at_end() ? result<std::vector<signed_identifier>>(out) : bad("content after the document");
  while (!x.close("SignedIdentifiers")) {
    if (!x.open(name, sc)) return bad("malformed XML");
    if (name != "SignedIdentifier") {
      if (!x.skip_element(name, sc)) return bad("malformed XML");
      continue;
    }
    if (out.size() >= 64) return bad("more than 64 signed identifiers");
    signed_identifier si;
    bool have_id = false;
    while (!sc && !x.close("SignedIdentifier")) {
      std::string field;
      bool fsc = false;
      if (!x.open(field, fsc)) return bad("malformed XML in <SignedIdentifier>");
      if (field == "Id") {
        if (!fsc && (!x.text(si.id) || !x.close("Id"))) return bad("malformed <Id>");
        have_id = true;
      } else if (field == "AccessPolicy") {
        while (!fsc && !x.close("AccessPolicy")) {
          std::string pf, value;
          bool psc = false;
          if (!x.open(pf, psc)) return bad("malformed XML in <AccessPolicy>");
          if (pf != "Start" && pf != "Expiry" && pf != "Permission") {
            if (!x.skip_element(pf, psc)) return bad("malformed XML in <AccessPolicy>");
            continue;
          }
          if (!psc && (!x.text(value) || !x.close(pf))) return bad("malformed <" + pf + ">");
          if (value.empty()) continue;
          if (pf == "Permission") {
            auto p = table_sas_permissions::parse(value);
            if (!p) return bad("<Permission> is not a table permission string");
            si.policy.permissions = *p;
          } else {
            auto t = parse_iso8601(value);
            // system_clock counts nanoseconds: years past 2262 do not fit.
            constexpr std::int64_t limit = INT64_MAX / 100;
            if (!t || t->time_since_epoch().count() > limit || t->time_since_epoch().count() < -limit)
              return bad("<" + pf + "> is not an ISO 8601 time in the years 1678-2261");
            auto tp = std::chrono::time_point_cast<std::chrono::system_clock::duration>(*t);
            (pf == "Start" ? si.policy.starts_on : si.policy.expires_on) = tp;
          }
        }
      } else if (!x.skip_element(field, fsc)) {
        return bad("malformed XML in <SignedIdentifier>");
      }
    }
    if (!have_id) return bad("a <SignedIdentifier> has no <Id>");
    out.push_back(std::move(si));
  }
  if (!x.at_end()) return bad("content after the document");
  return out;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
