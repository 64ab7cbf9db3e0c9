// SPDX-License-Identifier: MIT
// Internal: a batch (entity group transaction) that fails after an earlier
// attempt whose answer was lost (README "Retries"). The transaction is
// atomic, so either that attempt applied every action or none. A retry of
// an applied batch fails on its first insert (409), update with an ETag
// (412) or delete (404): the service is then reporting our own write. We read
// every action's entity back (through the same retry policy):
//  - every action shows applied, and at least one of them is not a delete:
//    success, flagged `verified_after_retry`, with the ETags read back. (The
//    transaction is atomic, so one of our writes in place proves all were; an
//    absent entity alone proves nothing: it may never have existed.)
//  - otherwise: the failure, with `may_have_applied` set and a message that
//    says the outcome could not be confirmed. Never a silent success, never a
//    plain failure that hides a write.
#pragma once

#include <aztables/batch.hpp>
#include <aztables/detail/write_verify.hpp>

#include <string>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

/// What "applied" looks like for one batch action.
inline verify_mode batch_verify_mode(batch_action_kind k) noexcept {
  switch (k) {
    case batch_action_kind::erase: return verify_mode::absent;
    case batch_action_kind::upsert_merge:
    case batch_action_kind::update_merge: return verify_mode::contains;
    default: return verify_mode::equal;  // insert, upsert_replace, update_replace
  }
}

/// See the file comment. `failure`: the answer of the last attempt.
inline result<batch_result> verify_batch(table_client client, const std::vector<batch_action>& actions,
                                         error failure) {
  batch_result out;
  out.actions.reserve(actions.size());
  bool proof = false;  // a non-delete action shows applied
  for (const auto& a : actions) {
    auto got = client.get({a.entity.partition_key, a.entity.row_key});
    if (!got || !shows_applied(*got, batch_verify_mode(a.kind), a.entity)) {
      failure.may_have_applied = true;
      if (!got)
        failure.message += " (an earlier attempt of this batch may have been applied; reading its entities back to "
                           "check failed: " + got.error().to_string() + ")";
      else
        failure.message += " (an earlier attempt of this batch may have been applied, but the table does not show "
                           "all of its actions: it was not, unless another writer changed them since)";
      return failure;
    }
    proof = proof || a.kind != batch_action_kind::erase;
    batch_action_result r;
    r.kind = a.kind;
    r.status = a.kind == batch_action_kind::insert ? 201 : 204;
    if (*got) r.etag = (*got)->etag;
    out.actions.push_back(std::move(r));
  }
  if (!proof) {
    failure.may_have_applied = true;
    failure.message += " (an earlier attempt of this batch got no answer and may have deleted them; a batch of "
                       "deletes cannot be verified)";
    return failure;
  }
  out.verified_after_retry = true;
  return out;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
