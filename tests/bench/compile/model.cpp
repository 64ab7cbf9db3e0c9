// SPDX-License-Identifier: MIT
// Row 7a, "ours": a user's model TU - includes only the mapping header and maps a struct.
#include <aztables/mapping.hpp>

#include <cstdint>
#include <optional>
#include <string>

struct order {
  std::string customer, id;
  std::int64_t quantity = 0;
  double total = 0;
  bool shipped = false;
  aztables::datetime created{};
  std::optional<std::string> note;
  aztables::etag etag;
};

template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto etag = &order::etag;
  static constexpr auto properties =
      aztables::fields(aztables::field("Quantity", &order::quantity), aztables::field("Total", &order::total),
                       aztables::field("Shipped", &order::shipped), aztables::field("Created", &order::created),
                       aztables::field("Note", &order::note));
};

// Model code uses the struct; the conversions are instantiated where the
// client is called (compile/model_convert.cpp measures them on their own).
double order_value(const order& o) { return static_cast<double>(o.quantity) * o.total; }
