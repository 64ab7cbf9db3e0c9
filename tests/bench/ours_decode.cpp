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
/// parser reused across pages as the pager does; `out` is overwritten.
template <class Vec>
void decode(od::parser& parser, std::string& page, const aztables::detail::entity_schema* schema, bool minimal,
            Vec& out) {
  std::size_t total = 0, delivered = 0;
  if (auto err = aztables::detail::decode_page(page, parser, schema, minimal, &out, 0,
                                               std::numeric_limits<std::size_t>::max(), total, delivered))
    throw std::runtime_error("decode_page: " + err->message);
  if (delivered != 1000 || out.size() != 1000) throw std::runtime_error("decode_page: wrong count");
}

bool is_minimal(const std::string& page) { return page.compare(0, 17, "{\"odata.metadata\"") == 0; }

template <class T>
timed_fn decode_fn(const std::string& page, const aztables::detail::entity_schema* schema, bool reuse) {
  auto p = std::make_shared<std::string>(page);
  auto parser = std::make_shared<od::parser>();
  auto kept = std::make_shared<std::vector<T>>();
  const bool minimal = is_minimal(page);
  if (reuse)
    return loop([p, parser, schema, minimal, kept] {
      decode(*parser, *p, schema, minimal, *kept);
      keep(kept->data());
    });
  return loop([p, parser, schema, minimal] {
    std::vector<T> out;
    decode(*parser, *p, schema, minimal, out);
    keep(out.data());
  });
}

}  // namespace

timed_fn decode_typed_fn(const std::string& page, bool reuse) {
  return decode_fn<order>(page, &aztables::detail::schema_of<order>(), reuse);
}

std::uint64_t decode_typed_checksum(const std::string& page) {
  std::string copy = page;
  od::parser parser;
  std::vector<order> out;
  decode(parser, copy, &aztables::detail::schema_of<order>(), is_minimal(page), out);
  const std::uint64_t fresh = checksum(out);
  // Decoding again over the same entities must give the same structs.
  decode(parser, copy, &aztables::detail::schema_of<order>(), is_minimal(page), out);
  if (checksum(out) != fresh) throw std::runtime_error("decode_page: decoding into a used vector differs");
  return fresh;
}

timed_fn decode_dynamic_fn(const std::string& page, bool reuse) {
  return decode_fn<aztables::entity>(page, nullptr, reuse);
}

std::string simdjson_builtin() { return SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION); }
std::string simdjson_active() { return simdjson::get_active_implementation()->name(); }

}  // namespace bench
