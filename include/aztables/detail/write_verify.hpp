// SPDX-License-Identifier: MIT
// Internal: verifying a write whose earlier attempt may have been applied
// (README "Retries", idempotency). When a retried insert is answered 409, or
// a retried update with an ETag 412, the service may be reporting the effect
// of our own earlier attempt, whose answer was lost. We read the entity back
// (through the same retry policy) and compare:
//  - it holds what we sent: success, flagged `verified_after_retry`;
//  - anything else: the service's error, honestly, with `may_have_applied`
//    set and the message saying what the read found.
#pragma once

#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/table_client.hpp>

#include <optional>
#include <string>
#include <utility>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// What "our write is applied" looks like for the stored entity.
enum class verify_mode {
  absent,    ///< a delete: no entity
  equal,     ///< insert, replace: keys and all user properties equal to what was sent
  contains,  ///< merge: keys equal, and every property sent is stored with that type and value
};

/// Whether `stored` (the entity read back, or none) shows `sent` applied.
inline bool shows_applied(const std::optional<entity>& stored, verify_mode mode, const entity& sent) {
  if (mode == verify_mode::absent) return !stored;
  if (!stored) return false;
  if (mode == verify_mode::equal) return *stored == sent;
  if (stored->partition_key != sent.partition_key || stored->row_key != sent.row_key) return false;
  for (const auto& p : sent.properties()) {
    const value* v = stored->get(p.name);
    if (!v || !(*v == p.value)) return false;
  }
  return true;
}

/// Reads the entity back and decides (see the file comment). `failure` is
/// the conflicting answer (409 or 412) that prompted the check.
inline result<write_result> verify_write(table_client& client, const entity& sent, verify_mode mode, error failure) {
  auto got = client.get({sent.partition_key, sent.row_key});
  if (got && shows_applied(*got, mode, sent)) {
    write_result w;
    if (*got) w.etag = (*got)->etag;
    w.verified_after_retry = true;
    return w;
  }
  failure.may_have_applied = true;
  if (!got) {
    failure.message += " (an earlier attempt may have been applied, and reading the entity back to check failed: " +
                       got.error().to_string() + ")";
  } else if (!*got) {
    failure.message += " (an earlier attempt may have been applied; the entity is now absent)";
  } else {
    failure.message += " (an earlier attempt may have been applied; the stored entity differs from the one sent, "
                       "so another writer changed it)";
  }
  return failure;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
