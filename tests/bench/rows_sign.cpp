// SPDX-License-Identifier: MIT
// Row 4: SharedKey signing of one request.
//   ours: the core's signing path for a point get, as build() runs it: the
//         x-ms-date (format_rfc1123_cached), then
//         client_core::shared_key_authorization() - string-to-sign in a reused
//         buffer, HMAC-SHA256 from the key's precomputed state, base64, the
//         "SharedKey account:signature" header value.
//   baseline: the textbook version - strftime date, string concatenation,
//         OpenSSL's one-shot HMAC(), base64, header string.
#include "harness.hpp"
#include "rows.hpp"

#include <aztables/detail/client_core.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>
#include <memory>
#include <stdexcept>

namespace bench {
namespace {

class null_transport final : public aztables::transport {
 public:
  aztables::result<aztables::http_response> send(const aztables::http_request&) override {
    return aztables::error::make(aztables::errc::transport, "not used");
  }
};

std::string textbook_base64(const unsigned char* p, std::size_t n) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < n; i += 3) {
    std::uint32_t v = std::uint32_t(p[i]) << 16;
    if (i + 1 < n) v |= std::uint32_t(p[i + 1]) << 8;
    if (i + 2 < n) v |= p[i + 2];
    out += tbl[(v >> 18) & 63];
    out += tbl[(v >> 12) & 63];
    out += i + 1 < n ? tbl[(v >> 6) & 63] : '=';
    out += i + 2 < n ? tbl[v & 63] : '=';
  }
  return out;
}

std::string textbook_sign(const std::vector<std::uint8_t>& key, const std::string& account, const std::string& path) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  const std::string to_sign = std::string("GET\n\n\n") + date + "\n/" + account + "/" + account + "/" + path;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(to_sign.data()), to_sign.size(), mac, &len))
    throw std::runtime_error("HMAC failed");
  return "SharedKey " + account + ":" + textbook_base64(mac, len);
}

}  // namespace

void rows_sign(context& ctx) {
  row r;
  r.id = "4";
  r.title = "SharedKey signing, one request";
  r.ours = "x-ms-date + client_core::shared_key_authorization(): string-to-sign, precomputed-key HMAC, base64, header";
  r.baseline = "strftime date + string concatenation + OpenSSL one-shot HMAC() + base64 + header";
  r.unit = "op";
  r.target = 4;
  r.target_text = ">= 4x";
  if (!ctx.wants(r.id)) return;
  using namespace aztables;
  client_options opt;
  opt.transport = std::make_shared<null_transport>();
  const std::string account(development_account_name);
  auto core = detail::client_core::create("http://127.0.0.1:10002/" + account,
                                          shared_key_credential(account, std::string(development_account_key)), opt)
                  .value();
  auto spec = std::make_shared<detail::request_spec>();
  spec->method = "GET";
  spec->path = "orders(PartitionKey='customer-0001',RowKey='order-00000001')";
  std::vector<std::uint8_t> key;
  if (!detail::base64_decode_to(development_account_key, key)) throw std::runtime_error("key");
  const std::string path = spec->path;
  {
    // Same signature as the full request builder puts on the wire.
    auto rq = core->build(*spec);
    if (!rq) throw std::runtime_error(rq.error().message);
    const std::string& date = detail::format_rfc1123_cached(core->now());
    if (rq->headers.get("x-ms-date") == date &&
        rq->headers.get("Authorization") != core->shared_key_authorization("GET", "", date, spec->path, ""))
      throw std::runtime_error("row 4: shared_key_authorization differs from build()");
  }
  auto ours = loop([core, spec] {
    const std::string& date = detail::format_rfc1123_cached(core->now());
    keep(core->shared_key_authorization(spec->method, spec->content_type, date, spec->path, spec->query));
  });
  auto base = loop([key, account, path] { keep(textbook_sign(key, account, path)); });
  ctx.add(r, compare(ctx.s, ours, base, r.id));
}

}  // namespace bench
