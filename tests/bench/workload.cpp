// SPDX-License-Identifier: MIT
#include "workload.hpp"

#include <aztables/detail/codec.hpp>

namespace bench {
namespace {

void put_string(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else out += ch;
  }
  out += '"';
}

void put_key(std::string& out, std::string_view k) {
  out += '"';
  out += k;
  out += "\":";
}

void put_double(std::string& out, double d) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
  out += t;
  if (t.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

// A typed string property: annotation first (as the service writes it) in minimalmetadata.
void put_typed(std::string& out, std::string_view name, const char* type, std::string_view text, shape s) {
  if (s == shape::minimal) {
    out += ",\"";
    out += name;
    out += "@odata.type\":\"";
    out += type;
    out += '"';
  }
  out += ',';
  put_key(out, name);
  put_string(out, text);
}

void put_order(std::string& out, const order& o, shape s) {
  using namespace aztables::detail;
  out += '{';
  if (s == shape::minimal) {
    put_key(out, "odata.etag");
    put_string(out, o.etag.str());
    out += ',';
  }
  put_key(out, "PartitionKey");
  put_string(out, o.customer);
  out += ',';
  put_key(out, "RowKey");
  put_string(out, o.id);
  out += ',';
  put_key(out, "Name");
  put_string(out, o.name);
  out += ',';
  put_key(out, "Email");
  put_string(out, o.email);
  out += ',';
  put_key(out, "Description");
  put_string(out, o.description);
  out += ',';
  put_key(out, "Address");
  put_string(out, o.address);
  out += ',';
  put_key(out, "City");
  put_string(out, o.city);
  out += ',';
  put_key(out, "Quantity");
  out += std::to_string(o.quantity);
  put_typed(out, "TotalCents", "Edm.Int64", std::to_string(o.total_cents), s);
  out += ',';
  put_key(out, "Price");
  put_double(out, o.price);
  out += ',';
  put_key(out, "Discount");
  put_double(out, o.discount);
  out += ',';
  put_key(out, "Active");
  out += o.active ? "true" : "false";
  put_typed(out, "Created", "Edm.DateTime", format_iso8601(o.created), s);
  put_typed(out, "Shipped", "Edm.DateTime", format_iso8601(o.shipped), s);
  put_typed(out, "OrderId", "Edm.Guid", o.order_id.to_string(), s);
  std::string b64;
  base64_encode_to(b64, o.thumbprint.data(), o.thumbprint.size());
  put_typed(out, "Thumbprint", "Edm.Binary", b64, s);
  if (o.note) {
    out += ',';
    put_key(out, "Note");
    put_string(out, *o.note);
  }
  out += ',';
  put_key(out, "Timestamp");
  put_string(out, "2026-11-21T13:26:15.3827306Z");
  out += '}';
}

}  // namespace

std::string make_page(const std::vector<order>& orders, shape s) {
  std::string out;
  out.reserve(orders.size() * 1200 + 200);
  out += '{';
  if (s == shape::minimal)
    out += "\"odata.metadata\":\"http://127.0.0.1:10002/devstoreaccount1/$metadata#orders\",";
  out += "\"value\":[";
  for (std::size_t i = 0; i < orders.size(); ++i) {
    if (i) out += ',';
    put_order(out, orders[i], s);
  }
  out += "]}";
  return out;
}

std::string make_entity_body(const order& o) {
  std::string out = "{\"odata.metadata\":\"http://127.0.0.1/devstoreaccount1/$metadata#orders/@Element\",";
  std::string one;
  put_order(one, o, shape::minimal);
  out.append(one, 1, std::string::npos);
  return out;
}

std::uint64_t checksum(const order& o) {
  std::uint64_t s = 0;
  auto mix = [&](std::uint64_t v) { s = (s ^ v) * 0x100000001b3ULL; };
  auto str = [&](const std::string& v) {
    mix(v.size());
    for (unsigned char c : v) mix(c);
  };
  str(o.customer);
  str(o.id);
  str(o.etag.str());
  str(o.name);
  str(o.email);
  str(o.description);
  str(o.address);
  str(o.city);
  mix(static_cast<std::uint64_t>(o.quantity));
  mix(static_cast<std::uint64_t>(o.total_cents));
  mix(static_cast<std::uint64_t>(o.price * 1000));
  mix(static_cast<std::uint64_t>(o.discount * 10000));
  mix(o.active);
  mix(static_cast<std::uint64_t>(o.created.time_since_epoch().count()));
  mix(static_cast<std::uint64_t>(o.shipped.time_since_epoch().count()));
  for (auto b : o.order_id.bytes()) mix(b);
  for (auto b : o.thumbprint) mix(b);
  if (o.note) str(*o.note);
  return s;
}

}  // namespace bench
