// Two members mapped to one stored name.
// expect: aztables: two mapped properties have the same stored name
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::string customer, id;
  std::int64_t quantity = 0;
  double total = 0;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties =
      aztables::fields(aztables::field("Amount", &order::quantity), aztables::field("Amount", &order::total));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
