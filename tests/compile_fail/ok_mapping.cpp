// The control case: a correct mapping compiles with the same flags.
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::string customer, id;
  std::int64_t quantity = 0;
  aztables::etag etag;
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto etag = &order::etag;
  static constexpr auto properties = aztables::fields(aztables::field("Quantity", &order::quantity));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
