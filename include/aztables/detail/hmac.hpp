// SPDX-License-Identifier: MIT
// Internal: HMAC-SHA256 over OpenSSL 3's EVP digest API, with the key's work
// done once. HMAC(K, m) = H((K ^ opad) || H((K ^ ipad) || m)): the two padded
// key blocks are absorbed into two SHA-256 contexts when the credential is
// made; each signature copies them (EVP_MD_CTX_copy_ex) into a per-thread work
// context and hashes only the message and the inner digest. No fetch, no key
// schedule and no lock per request (OpenSSL's one-shot HMAC() does all three).
#pragma once

#include <aztables/config.hpp>
#include <aztables/detail/per_thread.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

struct evp_md_deleter {
  void operator()(EVP_MD* m) const noexcept { EVP_MD_free(m); }
};
struct evp_md_ctx_deleter {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using evp_md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, evp_md_ctx_deleter>;

class hmac_sha256 {
 public:
  using digest = std::array<std::uint8_t, 32>;
  static constexpr std::size_t block_size = 64;

  explicit hmac_sha256(const std::vector<std::uint8_t>& key) {
    md_.reset(EVP_MD_fetch(nullptr, "SHA256", nullptr));
    if (!md_) throw std::runtime_error("aztables: OpenSSL has no SHA256");
    // Keys longer than a block are hashed first (RFC 2104).
    unsigned char k[block_size] = {0};
    if (key.size() > block_size) {
      unsigned int len = 0;
      if (EVP_Digest(key.data(), key.size(), k, &len, md_.get(), nullptr) != 1)
        throw std::runtime_error("aztables: SHA256 failed");
    } else if (!key.empty()) {
      std::memcpy(k, key.data(), key.size());
    }
    unsigned char pad[block_size];
    for (std::size_t i = 0; i < block_size; ++i) pad[i] = static_cast<unsigned char>(k[i] ^ 0x36);
    inner_ = keyed(pad);
    for (std::size_t i = 0; i < block_size; ++i) pad[i] = static_cast<unsigned char>(k[i] ^ 0x5c);
    outer_ = keyed(pad);
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(pad, sizeof pad);
  }

  /// HMAC-SHA256 of `message`. Safe to call from several threads at once.
  digest sign(std::string_view message) const {
    EVP_MD_CTX* w = work_context();
    digest inner{}, out{};
    unsigned int len = 0;
    if (!w || EVP_MD_CTX_copy_ex(w, inner_.get()) != 1 ||
        EVP_DigestUpdate(w, message.data(), message.size()) != 1 || EVP_DigestFinal_ex(w, inner.data(), &len) != 1 ||
        len != inner.size() || EVP_MD_CTX_copy_ex(w, outer_.get()) != 1 ||
        EVP_DigestUpdate(w, inner.data(), inner.size()) != 1 || EVP_DigestFinal_ex(w, out.data(), &len) != 1 ||
        len != out.size())
      throw std::runtime_error("aztables: HMAC-SHA256 failed");
    OPENSSL_cleanse(inner.data(), inner.size());
    return out;
  }

 private:
  evp_md_ctx_ptr keyed(const unsigned char (&pad)[block_size]) const {
    evp_md_ctx_ptr c(EVP_MD_CTX_new());
    if (!c || EVP_DigestInit_ex2(c.get(), md_.get(), nullptr) != 1 || EVP_DigestUpdate(c.get(), pad, block_size) != 1)
      throw std::runtime_error("aztables: SHA256 init failed");
    return c;
  }

  /// One scratch context per thread, shared by every key (each signature
  /// overwrites it from the key's precomputed state).
  struct work_slot {
    evp_md_ctx_ptr ctx{EVP_MD_CTX_new()};
  };
  static EVP_MD_CTX* work_context() { return per_thread<work_slot>().ctx.get(); }

  std::unique_ptr<EVP_MD, evp_md_deleter> md_;
  evp_md_ctx_ptr inner_;  ///< SHA-256 state after absorbing K ^ ipad; only read after construction
  evp_md_ctx_ptr outer_;  ///< SHA-256 state after absorbing K ^ opad; only read after construction
};

}  // namespace detail
AZTABLES_NAMESPACE_END
