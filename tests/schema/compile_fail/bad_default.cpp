// Must not compile: a bool argument with an int default, inside a class template as a pattern
// declares ops; the diagnostic names error::bool_default_must_be_True_or_False at offset 15.
#include <ctmatch/schema/diagnose.hpp>
#include <ctmatch/schema/parse.hpp>

template <int N>
struct DeclaredOp {
  static constexpr auto parsed = ctmatch::schema::parse_schema("aten::f(bool b=1) -> Tensor");
  static_assert(ctmatch::schema::schema_ok<&parsed>());
};
template struct DeclaredOp<0>;
