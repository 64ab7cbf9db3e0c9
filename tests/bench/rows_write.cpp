// SPDX-License-Identifier: MIT
// Row 3: request bodies.
//   3a ours: detail::append_entity_json (validates every service rule in the
//      same pass) into a fresh string, as insert() does.
//      baseline: the same entity as a nlohmann::json object, then dump().
//   3b ours: the batch layer's multipart `$batch` body of 100 inserts.
//      baseline: nlohmann dump() per entity + std::string concatenation of the
//      same multipart framing.
#include "harness.hpp"
#include "rows.hpp"
#include "workload.hpp"

#include <aztables/detail/json_writer.hpp>
#include <aztables/mapping.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <stdexcept>

namespace bench {
namespace {

using aztables::edm;

nlohmann::json to_nlohmann(const aztables::entity& e) {
  using namespace aztables::detail;
  nlohmann::json j = nlohmann::json::object();
  j["PartitionKey"] = e.partition_key;
  j["RowKey"] = e.row_key;
  for (const auto& p : e) {
    const aztables::value& v = p.value;
    auto annotate = [&](const char* t) { j[p.name + "@odata.type"] = t; };
    switch (v.type()) {
      case edm::string: j[p.name] = *v.as_string(); break;
      case edm::boolean: j[p.name] = *v.as_bool(); break;
      case edm::int32: j[p.name] = *v.as_int32(); break;
      case edm::int64:
        j[p.name] = std::to_string(*v.as_int64());
        annotate("Edm.Int64");
        break;
      case edm::double_:
        j[p.name] = *v.as_double();
        annotate("Edm.Double");
        break;
      case edm::datetime:
        j[p.name] = format_iso8601(*v.as_datetime());
        annotate("Edm.DateTime");
        break;
      case edm::guid:
        j[p.name] = v.as_guid()->to_string();
        annotate("Edm.Guid");
        break;
      case edm::binary: {
        std::string b;
        base64_encode_to(b, v.as_binary()->data(), v.as_binary()->size());
        j[p.name] = std::move(b);
        annotate("Edm.Binary");
        break;
      }
    }
  }
  return j;
}

std::string nlohmann_body(const aztables::entity& e) { return to_nlohmann(e).dump(); }

std::string our_body(const aztables::entity& e) {
  std::string body;
  body.reserve(256);  // as table_client::insert does
  if (auto err = aztables::detail::append_entity_json(body, e)) throw std::runtime_error(err->message);
  return body;
}

}  // namespace

timed_fn batch_body_fn(const std::vector<aztables::entity>& entities);  // rows_batch.cpp
std::string batch_table_url();
std::string batch_body_nlohmann(const std::vector<aztables::entity>& entities, const std::string& url);

void rows_write(context& ctx) {
  {
    row r;
    r.id = "3a";
    r.title = "insert body, one ~1 KB entity";
    r.ours = "detail::append_entity_json (with all service-rule checks) into a fresh string";
    r.baseline = "nlohmann::json object from the same entity, then dump()";
    r.unit = "op";
    r.target = 5;
    r.target_text = ">= 5x";
    if (ctx.wants(r.id)) {
      auto e = std::make_shared<aztables::entity>(aztables::to_entity(make_order(7)).value());
      const std::string ours_json = our_body(*e);
      if (nlohmann::json::parse(ours_json) != nlohmann::json::parse(nlohmann_body(*e)))
        throw std::runtime_error("row 3a: the two bodies differ");
      r.note = std::to_string(ours_json.size()) + " bytes";
      auto ours = loop([e] { keep(our_body(*e)); });
      auto base = loop([e] { keep(nlohmann_body(*e)); });
      ctx.add(r, compare(ctx.s, ours, base, r.id));
    }
  }
  {
    row r;
    r.id = "3b";
    r.title = "$batch body, 100 inserts";
    r.ours = "the batch layer's multipart writer (validation included)";
    r.baseline = "nlohmann dump() per entity + std::string concatenation of the same multipart framing";
    r.unit = "op";
    r.target = 5;
    r.target_text = ">= 5x";
    if (ctx.wants(r.id)) {
      auto entities = std::make_shared<std::vector<aztables::entity>>();
      for (std::size_t i = 0; i < 100; ++i) {
        aztables::entity e = aztables::to_entity(make_order(i * 10)).value();  // one partition
        entities->push_back(std::move(e));
      }
      auto ours = batch_body_fn(*entities);
      if (!ours) {
        ctx.skip(r, "batch layer not available yet");
      } else {
        const std::string url = batch_table_url();
        auto base = loop([entities, url] { keep(batch_body_nlohmann(*entities, url)); });
        ctx.add(r, compare(ctx.s, ours, base, r.id));
      }
    }
  }
}

std::string batch_body_nlohmann(const std::vector<aztables::entity>& entities, const std::string& url) {
  const std::string b = "batch_00000000-0000-0000-0000-000000000001";
  const std::string cs = "changeset_00000000-0000-0000-0000-000000000002";
  std::string out = "--" + b + "\r\nContent-Type: multipart/mixed; boundary=" + cs + "\r\n\r\n";
  for (const auto& e : entities) {
    out += "--" + cs + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n";
    out += "POST " + url + " HTTP/1.1\r\n";
    out += "Accept: application/json;odata=minimalmetadata\r\nContent-Type: application/json\r\n"
           "Prefer: return-no-content\r\nDataServiceVersion: 3.0;\r\n\r\n";
    out += nlohmann_body(e) + "\r\n";
  }
  out += "--" + cs + "--\r\n\r\n--" + b + "--\r\n";
  return out;
}

}  // namespace bench
