// SPDX-License-Identifier: MIT
// The benchmark's data: a mapped order struct with every Edm type, ~1 KB
// entities generated deterministically, and query pages in the shapes the
// service sends (minimalmetadata and nometadata).
#pragma once

#include <aztables/entity.hpp>
#include <aztables/mapping.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench {

/// Every Edm type, strings with escapes and non-ASCII text, an optional.
struct order {
  std::string customer;  // PartitionKey
  std::string id;        // RowKey
  aztables::etag etag;
  std::string name;
  std::string email;
  std::string description;
  std::string address;
  std::string city;
  std::int32_t quantity = 0;
  std::int64_t total_cents = 0;
  double price = 0;
  double discount = 0;
  bool active = false;
  aztables::datetime created{};
  aztables::datetime shipped{};
  aztables::guid order_id;
  aztables::binary thumbprint;
  std::optional<std::string> note;
};

}  // namespace bench

template <>
struct aztables::entity_traits<bench::order> {
  static constexpr auto partition_key = &bench::order::customer;
  static constexpr auto row_key = &bench::order::id;
  static constexpr auto etag = &bench::order::etag;
  static constexpr auto properties = aztables::fields(
      aztables::field("Name", &bench::order::name), aztables::field("Email", &bench::order::email),
      aztables::field("Description", &bench::order::description), aztables::field("Address", &bench::order::address),
      aztables::field("City", &bench::order::city), aztables::field("Quantity", &bench::order::quantity),
      aztables::field("TotalCents", &bench::order::total_cents), aztables::field("Price", &bench::order::price),
      aztables::field("Discount", &bench::order::discount), aztables::field("Active", &bench::order::active),
      aztables::field("Created", &bench::order::created), aztables::field("Shipped", &bench::order::shipped),
      aztables::field("OrderId", &bench::order::order_id), aztables::field("Thumbprint", &bench::order::thumbprint),
      aztables::field("Note", &bench::order::note));
};

namespace bench {

/// splitmix64: a fixed seed gives the same data on every run and machine.
struct rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

inline std::string pad(std::uint64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<std::size_t>(width) - s.size(), '0');
  return s;
}

/// Order number `i` (0-based) of a data set; the same `i` always gives the same order.
inline order make_order(std::size_t i, std::size_t partitions = 10) {
  rng r{0xa27ab1e5ULL + i * 7919};
  static const char* words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                                "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"};
  static const char* cities[] = {"Zürich", "Lisboa", "Kraków", "Seattle", "Ōsaka", "Nairobi", "Québec", "Oslo"};
  order o;
  o.customer = "customer-" + pad(i % partitions, 4);
  o.id = "order-" + pad(i, 8);
  o.name = std::string("Customer ") + words[r.below(16)] + " " + words[r.below(16)] + " #" + std::to_string(i);
  o.email = "user" + pad(i, 6) + "@example.com";
  // ~320 bytes of prose with a quote, a backslash, a line break and non-ASCII text.
  o.description.reserve(340);
  while (o.description.size() < 300) {
    o.description += words[r.below(16)];
    o.description += ' ';
  }
  o.description += "said \"ship it\" \\ path\nline 2: naïve café 中文";
  o.address = std::to_string(1 + r.below(9999)) + " " + words[r.below(16)] + " street, building " +
              std::to_string(r.below(100)) + ", floor " + std::to_string(r.below(40));
  o.city = cities[r.below(8)];
  o.quantity = static_cast<std::int32_t>(r.below(1000));
  o.total_cents = static_cast<std::int64_t>(r.below(1ULL << 40)) + 5000000000LL;
  o.price = static_cast<double>(r.below(100000)) / 100.0 + 0.25;
  o.discount = static_cast<double>(r.below(1000)) / 1000.0 + 0.0625;
  o.active = r.below(2) == 1;
  const std::int64_t base = 17672256000000000LL;  // 2026-01-01T00:00:00Z in ticks since 1970
  o.created = aztables::datetime(aztables::ticks(base + static_cast<std::int64_t>(r.below(315360000000000ULL))));
  o.shipped = aztables::datetime(aztables::ticks(base + static_cast<std::int64_t>(r.below(315360000000000ULL))));
  std::array<std::uint8_t, 16> g{};
  for (auto& b : g) b = static_cast<std::uint8_t>(r.next());
  o.order_id = aztables::guid(g);
  o.thumbprint.resize(96);
  for (auto& b : o.thumbprint) b = static_cast<std::uint8_t>(r.next());
  if (i % 2 == 0) o.note = "gift wrap, deliver after " + std::to_string(8 + r.below(10)) + ":00";
  o.etag = aztables::etag("W/\"datetime'2026-11-21T13%3A26%3A15." + pad(r.below(10000000), 7) + "Z'\"");
  return o;
}

inline std::vector<order> make_orders(std::size_t n, std::size_t partitions = 10) {
  std::vector<order> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(make_order(i, partitions));
  return v;
}

/// The page shapes.
enum class shape { minimal, none };

/// A query response body as the service writes it: `odata.metadata` (minimal
/// only), then `value` with the entities (odata.etag, keys, properties with
/// their `@odata.type` annotation before the value, Timestamp last). Written by
/// hand here, independent of the library's writer.
std::string make_page(const std::vector<order>& orders, shape s);

/// The body of one entity (as a point get returns it, minimalmetadata).
std::string make_entity_body(const order& o);

/// Sum of everything decoded, to check that all decoders agree and to keep the
/// work observable.
std::uint64_t checksum(const order& o);
inline std::uint64_t checksum(const std::vector<order>& v) {
  std::uint64_t s = 0;
  for (const auto& o : v) s = s * 31 + checksum(o);
  return s;
}

}  // namespace bench
