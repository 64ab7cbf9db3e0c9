// A member type with no Edm type.
// expect: aztables: unsupported member type in an entity mapping
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
#include <vector>
struct order {
  std::string customer, id;
  std::vector<int> lines;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties = aztables::fields(aztables::field("Lines", &order::lines));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
