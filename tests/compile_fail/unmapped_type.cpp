// A type without entity_traits cannot be converted.
// expect: aztables: this type has no entity mapping. Map it with
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct order {
  std::string customer, id;
};
int main() { return aztables::to_entity(order{}) ? 0 : 1; }
