// A system property name used for an ordinary member.
// expect: aztables: PartitionKey, RowKey and Timestamp are system properties
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::string customer, id;
  aztables::datetime when{};
};
template <>
struct aztables::entity_traits<order> {
  static constexpr auto partition_key = &order::customer;
  static constexpr auto row_key = &order::id;
  static constexpr auto properties = aztables::fields(aztables::field("Timestamp", &order::when));
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
