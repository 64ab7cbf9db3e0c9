// SPDX-License-Identifier: MIT
#pragma once

#include <aztables/detail/codec.hpp>
#include <aztables/detail/json_reader.hpp>
#include <aztables/detail/json_writer.hpp>
#include <aztables/json.hpp>

AZTABLES_NAMESPACE_BEGIN

AZTABLES_DECL result<std::string> to_json(const entity& e) {
  std::string body;
  body.reserve(128);
  if (auto err = detail::append_entity_json(body, e)) return std::move(*err);
  std::string out;
  out.reserve(body.size() + 96);
  out += '{';
  if (!e.etag.empty()) {
    out += "\"odata.etag\":";
    const auto scan = detail::scan_utf8(e.etag.str());
    if (!scan.valid) return error::invalid_argument("etag", "is not valid UTF-8");
    detail::append_json_string(out, e.etag.str());
    out += ',';
  }
  out.append(body, 1, body.size() - 2);  // the members, without the braces
  if (e.timestamp) {
    out += ",\"Timestamp\":\"";
    detail::format_iso8601_to(out, *e.timestamp);
    out += "\",\"Timestamp@odata.type\":\"Edm.DateTime\"";
  }
  out += '}';
  return out;
}

AZTABLES_DECL result<entity> from_json(std::string_view json) {
  std::string buf;
  buf.reserve(json.size() + simdjson::SIMDJSON_PADDING);
  buf.assign(json.data(), json.size());
  auto invalid = [](std::string rule) { return error::invalid_argument("entity JSON", std::move(rule)); };
  detail::od::parser parser;
  detail::od::document doc;
  if (parser.iterate(detail::padded_view(buf)).get(doc)) return invalid("is not JSON");
  detail::od::object obj;
  if (doc.get_object().get(obj)) return invalid("is not a JSON object");
  entity e;
  if (auto err = detail::read_entity(obj, e)) return invalid(err->message);
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return invalid("has text after the object");
  const auto& props = e.properties();
  for (std::size_t i = 1; i < props.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (props[i].name == props[j].name) return invalid("property '" + props[i].name + "' appears twice");
  return e;
}

AZTABLES_NAMESPACE_END
