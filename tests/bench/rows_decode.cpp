// SPDX-License-Identifier: MIT
// Rows 1 and 2: decoding a 1,000-entity query page.
//   ours:      the library's page decoders (typed into `order`, dynamic into `entity`)
//   baseline:  raw simdjson On-Demand iteration touching every key and value
//              (strings unescaped, numbers parsed, nothing stored) - the floor
//              any simdjson-based decoder pays; and nlohmann::json parsing the
//              page and filling the same structs with the same conversions.
#include "harness.hpp"
#include "rows.hpp"
#include "workload.hpp"

#include <aztables/detail/json_reader.hpp>
#include <aztables/mapping.hpp>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <cstring>
#include <stdexcept>

namespace bench {
namespace {

namespace od = simdjson::ondemand;

std::uint64_t touch_value(od::value v) {
  od::json_type t;
  if (v.type().get(t)) throw std::runtime_error("raw: bad type");
  switch (t) {
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s)) throw std::runtime_error("raw: bad string");
      return s.size() + static_cast<unsigned char>(s.empty() ? 0 : s[0]);
    }
    case od::json_type::number: {
      od::number n;
      if (v.get_number().get(n)) throw std::runtime_error("raw: bad number");
      if (n.is_double()) {
        double d = n.get_double();
        std::uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        return bits;
      }
      return n.is_int64() ? static_cast<std::uint64_t>(n.get_int64()) : n.get_uint64();
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b)) throw std::runtime_error("raw: bad bool");
      return b;
    }
    case od::json_type::null: return 1;
    default: throw std::runtime_error("raw: nested value");
  }
}

/// The baseline: iterate the page touching every value.
std::uint64_t raw_iterate(od::parser& parser, std::string& page) {
  std::uint64_t sum = 0;
  od::document doc;
  if (parser.iterate(aztables::detail::padded_view(page)).get(doc)) throw std::runtime_error("raw: not JSON");
  od::object top;
  if (doc.get_object().get(top)) throw std::runtime_error("raw: not an object");
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key)) throw std::runtime_error("raw: bad key");
    if (key != "value") {
      sum += touch_value(field.value());
      continue;
    }
    od::array arr;
    if (field.value().get_array().get(arr)) throw std::runtime_error("raw: no value array");
    for (auto item : arr) {
      od::object obj;
      if (item.get_object().get(obj)) throw std::runtime_error("raw: entity not an object");
      for (auto prop : obj) {
        std::string_view k;
        if (prop.unescaped_key().get(k)) throw std::runtime_error("raw: bad key");
        sum += k.size();
        od::value v;
        if (prop.value().get(v)) throw std::runtime_error("raw: bad value");
        sum += touch_value(v);
      }
    }
  }
  return sum;
}

/// nlohmann::json into the same structs, with the same conversions the
/// library uses (ISO 8601, GUID and base64 parsing). `out` is overwritten,
/// its entities in place (copy-assigned strings keep their storage), as ours.
void nlohmann_decode(const std::string& page, std::vector<order>& out) {
  using aztables::detail::base64_decode_to;
  using aztables::detail::parse_iso8601;
  const nlohmann::json j = nlohmann::json::parse(page);
  const auto& arr = j.at("value");
  out.resize(arr.size());
  std::size_t n = 0;
  auto str = [](const nlohmann::json& e, const char* k) -> const std::string& {
    return e.at(k).get_ref<const std::string&>();
  };
  for (const auto& e : arr) {
    order& o = out[n++];
    o.customer = str(e, "PartitionKey");
    o.id = str(e, "RowKey");
    o.etag = aztables::etag();
    if (auto it = e.find("odata.etag"); it != e.end()) o.etag = aztables::etag(it->get<std::string>());
    o.name = str(e, "Name");
    o.email = str(e, "Email");
    o.description = str(e, "Description");
    o.address = str(e, "Address");
    o.city = str(e, "City");
    o.quantity = e.at("Quantity").get<std::int32_t>();
    const std::string& tc = str(e, "TotalCents");
    if (std::from_chars(tc.data(), tc.data() + tc.size(), o.total_cents).ec != std::errc())
      throw std::runtime_error("nlohmann: bad Int64");
    o.price = e.at("Price").get<double>();
    o.discount = e.at("Discount").get<double>();
    o.active = e.at("Active").get<bool>();
    auto c = parse_iso8601(str(e, "Created"));
    auto s = parse_iso8601(str(e, "Shipped"));
    auto g = aztables::guid::parse(str(e, "OrderId"));
    if (!c || !s || !g || !base64_decode_to(str(e, "Thumbprint"), o.thumbprint))
      throw std::runtime_error("nlohmann: bad typed value");
    o.created = *c;
    o.shipped = *s;
    o.order_id = *g;
    o.note.reset();
    if (auto it = e.find("Note"); it != e.end() && !it->is_null()) o.note = it->get<std::string>();
  }
}

std::vector<order> nlohmann_decode(const std::string& page) {
  std::vector<order> out;
  nlohmann_decode(page, out);
  return out;
}

struct page_set {
  std::vector<order> orders;
  std::string minimal, none;
};

const page_set& pages() {
  static const page_set p = [] {
    page_set s;
    s.orders = make_orders(1000);
    s.minimal = make_page(s.orders, shape::minimal);
    s.none = make_page(s.orders, shape::none);
    return s;
  }();
  return p;
}

}  // namespace

void rows_decode(context& ctx) {
  const page_set& ps = pages();
  struct shape_case {
    const char* suffix;
    const std::string* page;
    const char* label;
  };
  const shape_case shapes[] = {{"minimal", &ps.minimal, "minimalmetadata"}, {"none", &ps.none, "nometadata"}};

  // Row 1: typed and dynamic decode against raw simdjson iteration. The
  // target rows decode page after page into one vector (what the pager's
  // range-for and next_page(page&) do); 1e/1f show a new vector per page.
  struct row1_case {
    bool typed;
    int shape;
    bool reuse;
  };
  const row1_case cases[] = {{true, 0, true},  {true, 1, true},  {false, 0, true},
                             {false, 1, true}, {true, 0, false}, {false, 0, false}};
  char id = 'a';
  for (const row1_case& c : cases) {
    const shape_case& sc = shapes[c.shape];
    row r;
    r.id = std::string("1") + id++;
    r.title = std::string(c.typed ? "page decode typed, " : "page decode dynamic, ") + sc.label +
              (c.reuse ? "" : ", new vector per page");
    r.ours = std::string(c.typed ? "aztables typed query page decode into std::vector<order>"
                                 : "aztables dynamic query page decode into std::vector<aztables::entity>") +
             (c.reuse ? " (reused across pages, entities overwritten in place)" : " (a new vector per page)");
    r.baseline = "raw simdjson On-Demand iteration touching every key and value (parser reused)";
    r.unit = "B";
    r.units_per_op = static_cast<double>(sc.page->size());
    if (c.reuse) {
      r.target = c.typed ? 0.5 : 0.4;
      r.target_text = c.typed ? ">= 0.50x (aim 0.8x)" : ">= 0.40x";
    } else {
      r.target_text = "(info)";
    }
    if (!ctx.wants(r.id)) continue;
    auto ours = c.typed ? decode_typed_fn(*sc.page, c.reuse) : decode_dynamic_fn(*sc.page, c.reuse);
    auto page = std::make_shared<std::string>(*sc.page);
    auto parser = std::make_shared<od::parser>();
    auto base = loop([page, parser] { keep(raw_iterate(*parser, *page)); });
    ctx.add(r, compare(ctx.s, ours, base, r.id));
  }

  // Row 2: the same page through nlohmann::json into the same structs.
  for (int si = 0; si < 2; ++si) {
    const shape_case& sc = shapes[si];
    row r;
    r.id = std::string("2") + static_cast<char>('a' + si);
    r.title = std::string("page decode typed vs nlohmann, ") + sc.label;
    r.ours = "aztables typed query page decode into std::vector<order> (reused across pages)";
    r.baseline = "nlohmann::json::parse + field-by-field into the same reused std::vector<order>";
    r.unit = "B";
    r.units_per_op = static_cast<double>(sc.page->size());
    r.target = 20;
    r.target_text = ">= 20x";
    if (!ctx.wants(r.id)) continue;
    auto ours = decode_typed_fn(*sc.page, true);
    // Both sides must produce the same structs.
    const std::uint64_t want = checksum(nlohmann_decode(*sc.page));
    const std::uint64_t got = decode_typed_checksum(*sc.page);
    if (want != got) throw std::runtime_error("row " + r.id + ": typed decode and nlohmann decode disagree");
    auto page = std::make_shared<std::string>(*sc.page);
    auto kept = std::make_shared<std::vector<order>>();
    auto base = loop([page, kept] {
      nlohmann_decode(*page, *kept);
      keep(kept->data());
    });
    ctx.add(r, compare(ctx.s, ours, base, r.id));
  }
}

std::uint64_t nlohmann_checksum(const std::string& page) { return checksum(nlohmann_decode(page)); }

}  // namespace bench
