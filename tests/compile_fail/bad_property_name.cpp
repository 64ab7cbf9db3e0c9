// Property names follow C# identifier rules.
// expect: aztables: a property name must follow C# identifier rules
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::string customer, id;
  std::int32_t n = 0;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties = aztables::fields(aztables::field("item-count", &order::n));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
