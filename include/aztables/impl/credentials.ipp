// SPDX-License-Identifier: MIT
// Connection-string parsing.
#pragma once

#include <aztables/credentials.hpp>
#include <aztables/detail/codec.hpp>
#include <aztables/detail/url.hpp>

#include <string>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

AZTABLES_DECL result<connection_config> parse_connection_string(std::string_view cs) {
  struct kv {
    std::string key;  // lower-cased
    std::string name;  // as written
    std::string value;
  };
  std::vector<kv> items;
  auto lower = [](std::string_view s) {
    std::string r(s);
    for (auto& c : r)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return r;
  };
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    return s;
  };
  std::size_t index = 0;
  while (!cs.empty()) {
    std::size_t semi = cs.find(';');
    std::string_view seg = trim(cs.substr(0, semi));
    cs = semi == std::string_view::npos ? std::string_view() : cs.substr(semi + 1);
    ++index;
    if (seg.empty()) continue;
    std::size_t eq = seg.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return error::invalid_argument("connection string", "segment " + std::to_string(index) +
                                                               " is not of the form Key=Value");
    std::string name(trim(seg.substr(0, eq)));
    std::string key = lower(name);
    for (auto& it : items)
      if (it.key == key) {
        // Name only the keys we know: an unknown "name" may be a pasted secret.
        static constexpr std::string_view known[] = {
            "usedevelopmentstorage", "developmentstorageproxyuri", "defaultendpointsprotocol", "accountname",
            "accountkey", "endpointsuffix", "tableendpoint", "sharedaccesssignature"};
        for (std::string_view k : known)
          if (k == key) return error::invalid_argument("connection string key '" + name + "'", "appears twice");
        return error::invalid_argument("connection string", "segment " + std::to_string(index) +
                                                                 " repeats an earlier key");
      }
    items.push_back({key, name, std::string(trim(seg.substr(eq + 1)))});
  }
  auto get = [&](std::string_view k) -> const std::string* {
    for (auto& it : items)
      if (it.key == k) return &it.value;
    return nullptr;
  };

  connection_config cfg;
  if (const std::string* dev = get("usedevelopmentstorage")) {
    if (lower(*dev) != "true")
      return error::invalid_argument("connection string key 'UseDevelopmentStorage'", "must be 'true' when present");
    std::string host = "http://127.0.0.1";
    if (const std::string* proxy = get("developmentstorageproxyuri")) {
      auto ep = detail::parse_endpoint(*proxy, "connection string key 'DevelopmentStorageProxyUri'");
      if (!ep) return std::move(ep).error();
      host = ep->scheme + "://" + (ep->host.find(':') != std::string::npos ? "[" + ep->host + "]" : ep->host);
    }
    cfg.table_endpoint = host + ":10002/" + std::string(development_account_name);
    cfg.account_name = std::string(development_account_name);
    cfg.credential = shared_key_credential(cfg.account_name, std::string(development_account_key));
    return cfg;
  }

  const std::string* name = get("accountname");
  const std::string* key = get("accountkey");
  const std::string* sas = get("sharedaccesssignature");
  const std::string* endpoint = get("tableendpoint");
  if (name) {
    if (name->empty()) return error::invalid_argument("connection string key 'AccountName'", "is empty");
    for (char c : *name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
        return error::invalid_argument("connection string key 'AccountName'",
                                       "may contain only lowercase letters and digits");
    cfg.account_name = *name;
  }
  if (key && sas)
    return error::invalid_argument("connection string", "has both AccountKey and SharedAccessSignature; give one");
  if (key) {
    if (!name) return error::invalid_argument("connection string key 'AccountKey'", "needs AccountName");
    binary decoded;
    if (key->empty() || !detail::base64_decode_to(*key, decoded))
      return error::invalid_argument("connection string key 'AccountKey'", "is not valid base64 (value not shown)");
    cfg.credential = shared_key_credential(*name, *key);
  } else if (sas) {
    std::string_view t = *sas;
    if (!t.empty() && t.front() == '?') t.remove_prefix(1);
    if (t.empty()) return error::invalid_argument("connection string key 'SharedAccessSignature'", "is empty");
    if (t.find("sig=") == std::string_view::npos)
      return error::invalid_argument("connection string key 'SharedAccessSignature'", "has no sig= parameter");
    cfg.credential = sas_credential{std::string(t)};
  } else {
    return error::invalid_argument("connection string",
                                   "names no credential: give AccountKey or SharedAccessSignature "
                                   "(or UseDevelopmentStorage=true)");
  }

  if (endpoint) {
    auto ep = detail::parse_endpoint(*endpoint, "connection string key 'TableEndpoint'");
    if (!ep) return std::move(ep).error();
    cfg.table_endpoint = ep->base_url();
    if (cfg.account_name.empty()) cfg.account_name = detail::account_from_host(*ep);
  } else {
    if (!name)
      return error::invalid_argument("connection string", "needs AccountName or TableEndpoint to know the endpoint");
    std::string protocol = "https";
    if (const std::string* p = get("defaultendpointsprotocol")) {
      protocol = lower(*p);
      if (protocol != "https" && protocol != "http")
        return error::invalid_argument("connection string key 'DefaultEndpointsProtocol'", "must be https or http");
    }
    std::string suffix = "core.windows.net";
    if (const std::string* s = get("endpointsuffix")) {
      // Host-name characters only (found by fuzz_connection_string: a ':' made
      // an endpoint that did not parse).
      bool host_chars = !s->empty() && s->front() != '.' && s->front() != '-';
      for (char c : *s)
        host_chars = host_chars && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                    c == '.' || c == '-');
      if (!host_chars)
        return error::invalid_argument("connection string key 'EndpointSuffix'", "must be a host suffix such as core.windows.net");
      suffix = *s;
    }
    cfg.table_endpoint = protocol + "://" + *name + ".table." + suffix;
  }
  return cfg;
}

AZTABLES_NAMESPACE_END
