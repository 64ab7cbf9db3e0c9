// The typed table_client calls need a mapping too.
// expect: aztables: this type has no entity mapping. Map it with
#include <aztables/table_client.hpp>
struct order {
  std::string customer, id;
};
void f(aztables::table_client& tc) { (void)tc.insert(order{}); }
int main() { return 0; }
