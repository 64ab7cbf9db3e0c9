// SPDX-License-Identifier: MIT
// Internal: the Table service's SharedKey and SharedKeyLite string-to-sign.
// Pure string functions (no OpenSSL), so unit tests can pin them exactly.
#pragma once

#include <aztables/config.hpp>
#include <aztables/credentials.hpp>

#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// CanonicalizedResource for the Table service (both schemes):
/// "/" + account + the URL path exactly as sent (so with path-style URLs the
/// account appears twice), plus "?comp=<v>" when the query has a `comp`
/// parameter. No other query parameter is signed.
/// `base_path` is the endpoint's path ("" or "/devstoreaccount1"), `path` is
/// relative to it ("Tables", "t(PartitionKey='a',RowKey='b')"), `query` is
/// the encoded query without '?'.
inline void append_canonicalized_resource(std::string& r, std::string_view account, std::string_view base_path,
                                          std::string_view path, std::string_view query) {
  r += '/';
  r.append(account.data(), account.size());
  r.append(base_path.data(), base_path.size());
  r += '/';
  r.append(path.data(), path.size());
  // Find a parameter named exactly "comp" (not "xcomp", not inside a value).
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view param = query.substr(start, end - start);
    if (param.size() >= 5 && param.substr(0, 5) == "comp=") {
      r += '?';
      r.append(param.data(), param.size());
      break;
    }
    start = end + 1;
  }
}

/// The same, as a new string.
inline std::string canonicalized_resource(std::string_view account, std::string_view base_path,
                                          std::string_view path, std::string_view query) {
  std::string r;
  r.reserve(2 + account.size() + base_path.size() + path.size());
  append_canonicalized_resource(r, account, base_path, path, query);
  return r;
}

/// Appends the string to sign up to (and including) the line break after the
/// date; the canonicalized resource follows it. See string_to_sign.
inline void append_string_to_sign_head(std::string& s, shared_key_scheme scheme, std::string_view method,
                                       std::string_view content_type, std::string_view date) {
  if (scheme == shared_key_scheme::shared_key) {
    s.append(method.data(), method.size());
    s += "\n\n";
    s.append(content_type.data(), content_type.size());
    s += '\n';
  }
  s.append(date.data(), date.size());
  s += '\n';
}

/// The string to sign. SharedKey: VERB\nContent-MD5\nContent-Type\nDate\nResource
/// (Content-MD5 is never sent, so always empty); SharedKeyLite: Date\nResource.
/// `date` is the x-ms-date value, exactly as sent.
inline std::string string_to_sign(shared_key_scheme scheme, std::string_view method, std::string_view content_type,
                                  std::string_view date, std::string_view resource) {
  std::string s;
  s.reserve(method.size() + content_type.size() + date.size() + resource.size() + 4);
  append_string_to_sign_head(s, scheme, method, content_type, date);
  s.append(resource.data(), resource.size());
  return s;
}

/// "SharedKey " or "SharedKeyLite ": the Authorization header's scheme word.
inline const char* authorization_scheme(shared_key_scheme scheme) noexcept {
  return scheme == shared_key_scheme::shared_key ? "SharedKey " : "SharedKeyLite ";
}

}  // namespace detail
AZTABLES_NAMESPACE_END
