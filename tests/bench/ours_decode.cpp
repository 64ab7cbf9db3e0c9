// SPDX-License-Identifier: MIT
// "ours" for rows 1 and 2: the library's query page decoders.
#include "rows.hpp"
#include "workload.hpp"

#include <aztables/aztables.hpp>
#include <aztables/query.hpp>

#include <limits>
#include <memory>
#include <stdexcept>

namespace bench {
namespace {

namespace od = simdjson::ondemand;

/// The query layer's page decoder (what every pager fetch runs), with the
/// parser reused across pages as the pager does.
template <class Vec>
Vec decode(od::parser& parser, std::string& page, const aztables::detail::entity_schema* schema, bool minimal) {
  Vec out;
  std::size_t total = 0, delivered = 0;
  if (auto err = aztables::detail::decode_page(page, parser, schema, minimal, &out, 0,
                                               std::numeric_limits<std::size_t>::max(), total, delivered))
    throw std::runtime_error("decode_page: " + err->message);
  if (delivered != 1000) throw std::runtime_error("decode_page: wrong count");
  return out;
}

bool is_minimal(const std::string& page) { return page.compare(0, 17, "{\"odata.metadata\"") == 0; }

}  // namespace

timed_fn decode_typed_fn(const std::string& page) {
  auto p = std::make_shared<std::string>(page);
  auto parser = std::make_shared<od::parser>();
  const auto* schema = &aztables::detail::schema_of<order>();
  const bool minimal = is_minimal(page);
  return loop([p, parser, schema, minimal] { keep(decode<std::vector<order>>(*parser, *p, schema, minimal)); });
}

std::uint64_t decode_typed_checksum(const std::string& page) {
  std::string copy = page;
  od::parser parser;
  return checksum(decode<std::vector<order>>(parser, copy, &aztables::detail::schema_of<order>(), is_minimal(page)));
}

timed_fn decode_dynamic_fn(const std::string& page) {
  auto p = std::make_shared<std::string>(page);
  auto parser = std::make_shared<od::parser>();
  const bool minimal = is_minimal(page);
  return loop([p, parser, minimal] { keep(decode<std::vector<aztables::entity>>(*parser, *p, nullptr, minimal)); });
}

std::string simdjson_builtin() { return SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION); }
std::string simdjson_active() { return simdjson::get_active_implementation()->name(); }

}  // namespace bench
