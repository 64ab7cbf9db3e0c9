// SPDX-License-Identifier: MIT
// "ours" for row 3b: the batch layer's `$batch` body writer (detail::build_batch_body,
// what batch::submit() sends: every action validated, one buffer).
#include "harness.hpp"
#include "rows.hpp"

#include <aztables/batch.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

namespace bench {

namespace {
class null_transport final : public aztables::transport {
 public:
  aztables::result<aztables::http_response> send(const aztables::http_request&) override {
    return aztables::error::make(aztables::errc::transport, "not used");
  }
};
}  // namespace

std::string batch_table_url() { return "http://127.0.0.1:10002/devstoreaccount1/orders"; }

timed_fn batch_body_fn(const std::vector<aztables::entity>& entities) {
  using namespace aztables;
  client_options opt;
  opt.transport = std::make_shared<null_transport>();
  auto client = std::make_shared<table_client>(
      table_client::from_connection_string(
          "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + std::string(development_account_key) +
              ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1",
          "orders", opt)
          .value());
  auto target = std::make_shared<detail::batch_target>(*client->core(), "orders");
  if (target->table_url != batch_table_url()) throw std::runtime_error("row 3b: unexpected table URL " + target->table_url);
  auto actions = std::make_shared<std::vector<batch_action>>();
  for (const auto& e : entities) actions->push_back(batch_action{batch_action_kind::insert, e});
  auto bounds = std::make_shared<detail::batch_boundaries>();
  bounds->batch = "batch_00000000-0000-0000-0000-000000000001";
  bounds->changeset = "changeset_00000000-0000-0000-0000-000000000002";
  auto no_deferred = std::make_shared<std::vector<std::pair<std::size_t, error>>>();
  {
    auto body = detail::build_batch_body(*target, *actions, *no_deferred, *bounds);
    if (!body) throw std::runtime_error("row 3b: " + body.error().message);
  }
  return loop([client, target, actions, bounds, no_deferred] {
    auto body = detail::build_batch_body(*target, *actions, *no_deferred, *bounds);
    if (!body) throw std::runtime_error("row 3b: " + body.error().message);
    keep(*body);
  });
}

}  // namespace bench
