// SPDX-License-Identifier: MIT
// Row 7c, "ours": the model TU plus the conversions to and from a dynamic entity
// (to_entity / from_entity, from entity.hpp, instantiated for the struct).
#include <aztables/entity.hpp>  // the conversions (and, through it, mapping.hpp)

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

aztables::result<aztables::entity> to_dynamic(const order& o) { return aztables::to_entity(o); }
aztables::result<order> from_dynamic(const aztables::entity& e) { return aztables::from_entity<order>(e); }
