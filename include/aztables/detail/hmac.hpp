// SPDX-License-Identifier: MIT
// Internal: HMAC-SHA256 with OpenSSL 3's EVP_MAC. One keyed context is made
// per credential; each signature takes a context from a small pool and
// re-initialises it with the same key (no per-request key setup, no fetch).
#pragma once

#include <aztables/config.hpp>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

struct evp_mac_deleter {
  void operator()(EVP_MAC* m) const noexcept { EVP_MAC_free(m); }
};
struct evp_mac_ctx_deleter {
  void operator()(EVP_MAC_CTX* c) const noexcept { EVP_MAC_CTX_free(c); }
};
using evp_mac_ctx_ptr = std::unique_ptr<EVP_MAC_CTX, evp_mac_ctx_deleter>;

class hmac_sha256 {
 public:
  using digest = std::array<std::uint8_t, 32>;

  explicit hmac_sha256(const std::vector<std::uint8_t>& key) {
    std::unique_ptr<EVP_MAC, evp_mac_deleter> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
    if (!mac) throw std::runtime_error("aztables: OpenSSL has no HMAC");
    proto_.reset(EVP_MAC_CTX_new(mac.get()));
    if (!proto_) throw std::runtime_error("aztables: EVP_MAC_CTX_new failed");
    char sha256[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, sha256, 0), OSSL_PARAM_construct_end()};
    static const unsigned char empty = 0;
    if (EVP_MAC_init(proto_.get(), key.empty() ? &empty : key.data(), key.size(), params) != 1)
      throw std::runtime_error("aztables: EVP_MAC_init failed");
  }

  digest sign(std::string_view message) {
    evp_mac_ctx_ptr ctx = acquire();
    digest out{};
    std::size_t len = 0;
    // Re-initialise with the key already set (OpenSSL keeps the padded key).
    if (!ctx || EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) != 1 ||
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
        EVP_MAC_final(ctx.get(), out.data(), &len, out.size()) != 1 || len != out.size())
      throw std::runtime_error("aztables: HMAC-SHA256 failed");
    release(std::move(ctx));
    return out;
  }

 private:
  evp_mac_ctx_ptr acquire() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!pool_.empty()) {
        evp_mac_ctx_ptr c = std::move(pool_.back());
        pool_.pop_back();
        return c;
      }
    }
    return evp_mac_ctx_ptr(EVP_MAC_CTX_dup(proto_.get()));
  }
  void release(evp_mac_ctx_ptr c) {
    std::lock_guard<std::mutex> lk(mu_);
    if (pool_.size() < 64) pool_.push_back(std::move(c));
  }

  evp_mac_ctx_ptr proto_;
  std::mutex mu_;
  std::vector<evp_mac_ctx_ptr> pool_;
};

}  // namespace detail
AZTABLES_NAMESPACE_END
