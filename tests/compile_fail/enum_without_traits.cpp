// Enums are opt-in: without enum_traits there is no storage decision.
// expect: aztables: an enum member needs aztables::enum_traits<E>
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
enum class status { open, shipped };
struct order {
  std::string customer, id;
  status st = status::open;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties = aztables::fields(aztables::field("Status", &order::st));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
