// The macro names properties after members: a member called RowKey clashes.
// expect: aztables: PartitionKey, RowKey and Timestamp are system properties
#include <aztables/entity.hpp>  // mapping.hpp and the conversions
struct row {
  std::string pk, rk;
  std::string RowKey;
};
AZTABLES_MAP(row, pk, rk, RowKey);
int main() { return aztables::from_entity<row>(aztables::entity("p", "r")) ? 0 : 1; }
