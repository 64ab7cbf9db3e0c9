// Keys are strings.
// expect: aztables: entity_traits<T>::partition_key and row_key must point to std::string members of T
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::int64_t customer = 0;
  std::string id;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
