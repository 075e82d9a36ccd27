// Schemas back to text: canonical, and parsing it again gives the same interface.
#include <doctest/doctest.h>

#include <ctmatch/schema/builtin_table.hpp>
#include <ctmatch/schema/print.hpp>
#include <ctmatch/schema/registry.hpp>

#include <string>

using namespace ctmatch::schema;

TEST_CASE("print: types") {
  CHECK(to_string(Type{}) == "Tensor");
  CHECK(to_string(Type{BaseType::Int, false, true, 2, false}) == "int[2]");
  CHECK(to_string(Type{BaseType::Int, false, true, -1, true}) == "int[]?");
  CHECK(to_string(Type{BaseType::Tensor, true, true, -1, false}) == "Tensor?[]");
  CHECK(to_string(Type{BaseType::ScalarType, false, false, -1, true}) == "ScalarType?");
  CHECK(to_string(Type{}, "a", true) == "Tensor(a!)");
  CHECK(to_string(Type{BaseType::Tensor, false, true, -1, false}, "a") == "Tensor(a)[]");
}

TEST_CASE("print: schemas are canonical text") {
  auto r = parse_schema("aten::add.Tensor( Tensor self,Tensor other,*,Scalar alpha=1 )->Tensor");
  REQUIRE(r.ok);
  CHECK(to_string(r.schema) == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  auto m = parse_schema("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  REQUIRE(m.ok);
  CHECK(to_string(m.schema) == "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  auto n = parse_schema("aten::_print(str s) -> ()");
  REQUIRE(n.ok);
  CHECK(to_string(n.schema) == "aten::_print(str s) -> ()");
  auto k = parse_schema("prims::_make_token() -> Tensor");
  REQUIRE(k.ok);
  CHECK(to_string(k.schema) == "prims::_make_token() -> Tensor");
}

TEST_CASE("print: parse(print(s)) has the interface of s, for the whole built-in table") {
  for (std::string_view s : builtin_schemas) {
    CAPTURE(s);
    auto a = parse_schema(s);
    REQUIRE(a.ok);
    std::string text = to_string(a.schema);
    auto b = parse_schema(text);
    REQUIRE_MESSAGE(b.ok, text);
    CHECK(same_interface(a.schema, b.schema));
    CHECK(to_string(b.schema) == text);  // a fixed point
  }
}
