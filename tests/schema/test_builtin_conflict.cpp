// A user definition registered before the built-in table keeps its op: the table skips that
// entry (and says so) instead of failing as a whole. Its own executable: it needs to run before
// anything else in the process registers the table.
#include <doctest/doctest.h>

#include <ctmatch/schema/builtin.hpp>

#include <string>

using namespace ctmatch;
using namespace ctmatch::schema;

TEST_CASE("builtin: an op defined first by the user keeps its definition") {
  REQUIRE(SchemaRegistry::global().size() == 0);  // nothing registered the table yet
  OpId expand = register_schema("aten::expand(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  OpId gelu = register_schema("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");  // same interface
  CHECK(ensure_builtin_schemas() == std::size(builtin_schemas));
  REQUIRE(skipped_builtin_schemas().size() == 1);
  CHECK(skipped_builtin_schemas()[0].find("aten.expand.default") != std::string::npos);
  CHECK(find_schema(expand)->num_args == 2);  // the user's
  CHECK(OpRegistry::global().signature(expand)->params.size() == 2);
  CHECK(find_schema(gelu)->num_args == 2);
  CHECK(find_schema("aten.mm.default") != nullptr);  // the rest of the table is there
  CHECK(SchemaRegistry::global().size() == std::size(builtin_schemas));
}
